import { randomBytes } from 'node:crypto';
import { describe, expect, onTestFinished, test } from 'vitest';
import { analyzeChunks } from '../ingest/analyze-chunks.ts';
import { analyze } from '../retrieval/analyzer.ts';
import { IndexCache } from '../retrieval/index-cache.ts';
import { INDEX_ANALYSIS_VERSION, indexPage } from '../retrieval/index-fields.ts';
import { createLexicalRetriever } from '../retrieval/lexical-retriever.ts';
import { adminQuery, testBackend, testDatabaseUrl } from '../testing/test-store.ts';
import { MAX_DELETED_SHARE, MERGE_FACTOR } from './merge-policy.ts';
import { openPostgresStore } from './postgres-store.ts';
import type { DocumentInput, Reach, Store } from './store.ts';

/**
 * The PostgreSQL store's index segments (postgres-segments.ts) as a search
 * sees them: however many transactions wrote a knowledge base, and whatever
 * was replaced or removed since, a search finds what it would find had the
 * knowledge base been written at once. Runs in the `postgres` test project.
 */

const KB_ID = 'kb';
const REACH: Reach = { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] };
const WORDS = ['falcon', 'heron', 'river', 'cliff', 'nest', 'hunt', 'field', 'shallow', 'feather', 'wing', 'beak', 'marsh'];

/** A fresh schema with one knowledge base; `open` opens another store (a replica) on it. */
async function freshKnowledgeBase(): Promise<{ schema: string; open(): Store }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const opened: Store[] = [];
  onTestFinished(async () => {
    for (const store of opened) await store.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  const open = () => {
    const store = openPostgresStore({ url: testDatabaseUrl(), schema, maxConnections: 2 });
    opened.push(store);
    return store;
  };
  await open().createKnowledgeBase({ id: KB_ID, name: 'KB' });
  return { schema, open };
}

/** Document `n` of a deterministic corpus: two passages of words chosen by `n` (and `version`, for a replacement). */
function documentNumber(n: number, version = 0): DocumentInput {
  const docId = `page-${n}.md`;
  const word = (k: number) => WORDS[(n * 7 + k * 3 + version * 5) % WORDS.length]!;
  const texts = [
    { headingPath: [`Page ${n}`], text: `The ${word(0)} and the ${word(1)} by the ${word(2)}.` },
    { headingPath: [`Page ${n}`, 'More'], text: `A ${word(3)} ${word(4)} over the ${word(0)} ${word(5)}.` },
  ];
  return {
    kbId: KB_ID,
    docId,
    title: `Page ${n}`,
    visibility: 'public',
    readers: [],
    quotable: true,
    contentHash: `v${version}-${n}`,
    analysisVersion: INDEX_ANALYSIS_VERSION,
    chunks: analyzeChunks({ title: `Page ${n}` }, texts),
    page: indexPage(docId, { title: `Page ${n}` }, texts),
  };
}

/**
 * Each question's results: doc ids, heading paths and scores (rounded to 9
 * places), every passage found; passages of equal score ordered by doc id,
 * since among ties the order follows storage ids, which differ between two
 * stores written in different orders.
 */
async function searches(store: Store, retriever = createLexicalRetriever(store, { cache: false })): Promise<unknown[]> {
  const results = [];
  for (const question of ['falcon river', 'heron nest', 'shallow marsh feather', 'wing beak cliff hunt', 'field']) {
    const result = await retriever.search({ reach: REACH, terms: analyze(question), topK: 200 });
    const found = result.passages.map((passage) => [passage.docId, passage.headingPath.join('/'), Number(passage.score.toFixed(9))] as const);
    found.sort((left, right) => right[2] - left[2] || left[0].localeCompare(right[0]) || left[1].localeCompare(right[1]));
    results.push({ passageCount: result.passageCount, found });
  }
  return results;
}

/** The passage segments of a schema, and the largest share of deleted units in any segment. */
async function segmentCounts(schema: string): Promise<{ segments: number; deletedShare: number }> {
  const [row] = await adminQuery<{ segments: number; deletedShare: number }>(
    `SELECT (SELECT COUNT(*)::int FROM ${schema}.index_segments WHERE kind = 0) AS segments,
            (SELECT COALESCE(MAX(deleted::float / units), 0) FROM ${schema}.index_segments) AS "deletedShare"`,
  );
  return row!;
}

describe.runIf(testBackend() === 'postgres')('PostgreSQL index segments', () => {
  test(`a knowledge base written in ${3 * MERGE_FACTOR} transactions: merged to fewer than ${MERGE_FACTOR} segments, every search as if written in one`, async () => {
    // Arrange
    const once = await freshKnowledgeBase();
    const piecemeal = await freshKnowledgeBase();
    const documents = Array.from({ length: 3 * MERGE_FACTOR }, (_, n) => documentNumber(n));
    await once.open().putDocuments(documents);
    const store = piecemeal.open();

    // Act
    for (const document of documents) await store.putDocument(document);

    // Assert
    expect((await segmentCounts(piecemeal.schema)).segments).toBeLessThan(MERGE_FACTOR);
    expect(await searches(store)).toEqual(await searches(once.open()));
  });

  test('documents replaced and removed over many transactions: their old text never found, and merges drop what was deleted', async () => {
    // Arrange
    const { schema, open } = await freshKnowledgeBase();
    const store = open();
    const count = 2 * MERGE_FACTOR;
    for (let n = 0; n < count; n++) await store.putDocument(documentNumber(n));
    const expected = await freshKnowledgeBase();
    const reference = expected.open();

    // Act: every odd document replaced, every third removed, one transaction each
    for (let n = 1; n < count; n += 2) await store.putDocument(documentNumber(n, 1));
    for (let n = 0; n < count; n += 3) await store.removeDocument(KB_ID, `page-${n}.md`);
    await store.putDocuments([documentNumber(count), documentNumber(count + 1)]);

    // Assert
    const survivors = Array.from({ length: count + 2 }, (_, n) => n).filter((n) => n >= count || n % 3 !== 0);
    await reference.putDocuments(survivors.map((n) => documentNumber(n, n < count && n % 2 === 1 ? 1 : 0)));
    expect(await searches(store)).toEqual(await searches(reference));
    const after = await segmentCounts(schema);
    expect(after.segments).toBeLessThan(MERGE_FACTOR);
    expect(after.deletedShare).toBeLessThanOrEqual(MAX_DELETED_SHARE);
  });

  test('two replicas, each holding the index in memory: after an ingest on one, the other searches the new and changed documents', async () => {
    // Arrange
    const { open } = await freshKnowledgeBase();
    const [writer, reader] = [open(), open()];
    for (let n = 0; n < 12; n++) await writer.putDocument(documentNumber(n));
    const cache = new IndexCache();
    const held = createLexicalRetriever(reader, { cache });
    await searches(reader, held);
    await cache.settled();
    const before = cache.postingTotal;

    // Act
    await writer.putDocuments([documentNumber(3, 1), documentNumber(40), documentNumber(41)]);
    const fromReplica = await searches(reader, held);
    await cache.settled();
    const heldAgain = await searches(reader, held);

    // Assert
    const fresh = await freshKnowledgeBase();
    await fresh.open().putDocuments([...Array.from({ length: 12 }, (_, n) => documentNumber(n, n === 3 ? 1 : 0)), documentNumber(40), documentNumber(41)]);
    const expected = await searches(fresh.open());
    expect(before).toBeGreaterThan(0);
    expect(fromReplica).toEqual(expected);
    expect(heldAgain).toEqual(expected);
  });
});
