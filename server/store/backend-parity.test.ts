import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { analyze } from '../retrieval/analyzer.ts';
import { ingestPaths } from '../ingest/pipeline/ingest-files.ts';
import { DEMO_CORPUS_PATH } from '../seed.ts';
import { createTestStoreLocation, testBackend, type TestStoreLocation } from '../testing/test-store.ts';
import { embeddedStoreLocation, openStore } from './open-store.ts';
import type { Reach, ScoredPassage, Store, User, Visibility } from './store.ts';
import type { SearchResult } from '../retrieval/retriever.ts';
import { createLexicalRetriever } from '../retrieval/lexical-retriever.ts';
import { createDenseRetriever } from '../retrieval/dense-retriever.ts';
import { createHybridRetriever } from '../retrieval/hybrid-retriever.ts';
import { embedPendingPassages } from '../embedding/embed-passages.ts';
import { withSentenceSimilarity } from '../retrieval/sentence-similarity.ts';

/** The stand-in model of the dense parity tests: deterministic, so both stores hold the same vectors. */
const HASHED_MODEL = 'hashed-terms';
const HASHED_DIMENSIONS = 64;

/**
 * A text's analyzed terms hashed into {@link HASHED_DIMENSIONS} signed
 * buckets and normalised (feature hashing: K. Weinberger et al., "Feature
 * hashing for large scale multitask learning", ICML 2009): a vector that
 * depends on the text alone, as a real model's does, computed in a blink.
 */
function hashedEmbedding(text: string): Float32Array {
  const vector = new Float32Array(HASHED_DIMENSIONS);
  for (const term of analyze(text)) {
    let hash = 2166136261;
    for (let index = 0; index < term.length; index++) hash = Math.imul(hash ^ term.charCodeAt(index), 16777619) >>> 0;
    vector[hash % HASHED_DIMENSIONS]! += hash & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

/**
 * docs/design-decisions.md "Storage": one analyzer and one BM25 formula, so the same
 * question over the same ingested corpus returns the same passages in the
 * same order on both backends. Pages of the demo corpus (the Node.js API
 * docs) are ingested through the real pipeline, with every visibility, into
 * an embedded store and a PostgreSQL store; questions are asked with reaches
 * that cover the whole knowledge base (the statistics' fast path) and parts
 * of it (statistics within the reach). Runs in the `postgres` test project
 * (it needs the run's PostgreSQL database).
 */

const KB_ID = 'node-docs';
const PAGES: Record<Visibility, string[]> = {
  public: ['path.md', 'timers.md', 'console.md', 'querystring.md', 'string_decoder.md', 'punycode.md'],
  workspace: ['https.md', 'tty.md', 'intl.md'],
  restricted: ['permissions.md', 'domain.md', 'wasi.md'],
};
const QUESTIONS = [
  'How do I join two path segments into one path?',
  'How do I run a function repeatedly every second?',
  'How do I print a formatted message to the console?',
  'How do I parse a URL query string into an object?',
  'How do I decode a buffer into a string without breaking multi-byte characters?',
  'How do I convert a domain name to ASCII punycode?',
  'How can I tell whether the output stream is a terminal (TTY)?',
  'Which permissions restrict file system access?',
  'How do I create an HTTPS server with a certificate?',
  'timeout',
  'zyzzyva quixotic',
];

interface Side {
  store: Store;
  alice: User;
  bob: User;
}

/** The reaches asked with, by name; built per side since user ids differ between the stores. */
const REACHES: Record<string, (side: Side) => Reach> = {
  'a stranger (public only)': () => ({ kbId: KB_ID, userId: 'usr_stranger', visibilities: ['public'] }),
  'a member (public and workspace)': (side) => ({ kbId: KB_ID, userId: side.bob.id, visibilities: ['public', 'workspace'] }),
  'an unlisted member (every visibility)': (side) => ({
    kbId: KB_ID,
    userId: side.bob.id,
    visibilities: ['public', 'workspace', 'restricted'],
  }),
  'the listed reader (every visibility: the whole knowledge base)': (side) => ({
    kbId: KB_ID,
    userId: side.alice.id,
    visibilities: ['public', 'workspace', 'restricted'],
  }),
  'the listed reader (restricted only)': (side) => ({ kbId: KB_ID, userId: side.alice.id, visibilities: ['restricted'] }),
};

describe.runIf(testBackend() === 'postgres')('embedded and PostgreSQL stores over one ingested corpus', () => {
  let folder: string;
  let postgresLocation: TestStoreLocation;
  let embedded: Side;
  let postgres: Side;

  /** Same users, knowledge base and documents, in the same order, as the CLI would build them. */
  async function build(store: Store): Promise<Side> {
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    const bob = await store.createUser({ email: 'bob@example.com', name: 'Bob' });
    await store.createKnowledgeBase({ id: KB_ID, name: 'Node.js API documentation' });
    for (const visibility of ['public', 'workspace', 'restricted'] as const) {
      const report = await ingestPaths(store, {
        kbId: KB_ID,
        paths: PAGES[visibility].map((page) => join(DEMO_CORPUS_PATH, page)),
        visibility,
        readers: visibility === 'restricted' ? [alice.id] : [],
        quotable: visibility !== 'workspace',
      });
      expect(report.failed).toEqual([]);
    }
    return { store, alice, bob };
  }

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'kb-backend-parity-'));
    postgresLocation = await createTestStoreLocation(folder);
    embedded = await build(openStore(embeddedStoreLocation(folder)));
    postgres = await build(openStore(postgresLocation.location));
    for (const side of [embedded, postgres]) await embedPendingPassages(side.store, { modelKey: HASHED_MODEL, embed: async (texts) => texts.map(hashedEmbedding) });
  }, 120_000);

  afterAll(async () => {
    await embedded?.store.close();
    await postgres?.store.close();
    await postgresLocation?.dispose();
    await rm(folder, { recursive: true, force: true });
  });

  /**
   * What must be identical: the passage itself and its rank (the score is
   * compared separately, within 1e-9). Not the content hash: it covers the
   * ingest options, reader ids included, which differ between the stores.
   */
  function identity(passage: ScoredPassage): unknown {
    return [passage.docId, passage.headingPath, passage.text, passage.title, passage.quotable];
  }

  function statistics(result: SearchResult): unknown {
    return { passageCount: result.passageCount, documentFrequencies: result.documentFrequencies };
  }

  test.each(Object.keys(REACHES))(
    'search for each question with the reach of %s: the same passages in the same order, equal scores and statistics',
    async (reachName) => {
      let compared = 0;
      for (const question of QUESTIONS) {
        // Arrange
        const query = { terms: analyze(question), topK: 10 };

        // Act
        const onEmbedded = await createLexicalRetriever(embedded.store).search({ ...query, reach: REACHES[reachName]!(embedded) });
        const onPostgres = await createLexicalRetriever(postgres.store).search({ ...query, reach: REACHES[reachName]!(postgres) });

        // Assert
        expect(statistics(onPostgres), question).toEqual(statistics(onEmbedded));
        expect(onPostgres.passages.map(identity), question).toEqual(onEmbedded.passages.map(identity));
        onPostgres.passages.forEach((passage, rank) => {
          expect(Math.abs(passage.score - onEmbedded.passages[rank]!.score), `${question} #${rank + 1}`).toBeLessThan(1e-9);
        });
        compared += onEmbedded.passages.length;
      }
      expect(compared).toBeGreaterThan(10);
    },
  );

  test.each(Object.keys(REACHES))(
    'dense and hybrid search for each question with the reach of %s: the same top 10 in the same order, equal similarities and sentence similarities',
    async (reachName) => {
      let compared = 0;
      let sentencesScored = 0;
      for (const question of QUESTIONS) {
        const query = { terms: analyze(question), topK: 10, question };
        const retrievers = (side: Side) => {
          const options = { modelKey: HASHED_MODEL, dimensions: HASHED_DIMENSIONS, embedQuery: async (text: string) => hashedEmbedding(text) };
          const dense = createDenseRetriever(side.store, options);
          // As the answer worker builds it: fused, the first passages' sentences scored.
          return { dense, hybrid: withSentenceSimilarity(createHybridRetriever(createLexicalRetriever(side.store), dense), side.store, options) };
        };
        const onEmbedded = retrievers(embedded);
        const onPostgres = retrievers(postgres);
        for (const mode of ['dense', 'hybrid'] as const) {
          const left = await onEmbedded[mode].search({ ...query, reach: REACHES[reachName]!(embedded) });
          const right = await onPostgres[mode].search({ ...query, reach: REACHES[reachName]!(postgres) });
          expect(right.passages.map(identity), `${mode}: ${question}`).toEqual(left.passages.map(identity));
          right.passages.forEach((passage, rank) => {
            expect(Math.abs((passage.similarity ?? 0) - (left.passages[rank]!.similarity ?? 0)), `${mode}: ${question} #${rank + 1}`).toBeLessThan(1e-6);
            expect(Math.abs((passage.sentenceSimilarity ?? 0) - (left.passages[rank]!.sentenceSimilarity ?? 0)), `${mode}: ${question} #${rank + 1}`).toBeLessThan(1e-6);
          });
          compared += left.passages.length;
          if (mode === 'hybrid') sentencesScored += left.passages.filter((passage) => passage.sentenceSimilarity !== undefined).length;
        }
      }
      expect(compared).toBeGreaterThan(20);
      expect(sentencesScored).toBeGreaterThan(10);
    },
  );

  test('passagesOf a restricted page for its reader, whole and under one heading: the same passages in the same order', async () => {
    // Arrange
    const reach = (side: Side): Reach => ({ kbId: KB_ID, userId: side.alice.id, visibilities: ['restricted'] });

    // Act
    const whole = await Promise.all([embedded, postgres].map((side) => side.store.passagesOf(reach(side), 'permissions.md')));
    const section = await Promise.all(
      [embedded, postgres].map((side) => side.store.passagesOf(reach(side), 'permissions.md', 'Module-based permissions')),
    );

    // Assert
    expect(whole[0]!.length).toBeGreaterThan(3);
    expect(whole[1]!.map(identity)).toEqual(whole[0]!.map(identity));
    expect(section[1]!.map(identity)).toEqual(section[0]!.map(identity));
  });

  test('listDocuments: the same records in the same order on both, apart from times, reader ids and hashes', async () => {
    const withoutTimes = async (side: Side) =>
      (await side.store.listDocuments(KB_ID)).map(({ updatedAt: _updatedAt, contentHash: _contentHash, readers, ...rest }) => ({
        ...rest,
        readers: readers.length,
      }));

    expect(await withoutTimes(postgres)).toEqual(await withoutTimes(embedded));
  });
});
