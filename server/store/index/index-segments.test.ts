import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, onTestFinished, test } from 'vitest';
import { analyzeChunks } from '../../ingest/pipeline/analyze-chunks.ts';
import { analyze } from '../../retrieval/analyzer.ts';
import { IndexCache } from '../../retrieval/index-cache.ts';
import { INDEX_ANALYSIS_VERSION, indexPage } from '../../retrieval/index-fields.ts';
import { createLexicalRetriever } from '../../retrieval/lexical-retriever.ts';
import { adminQuery, openTestStore, type TestStore } from '../../testing/test-store.ts';
import { MAX_DELETED_SHARE, MERGE_FACTOR } from './merge-policy.ts';
import type { DocumentInput, Reach, Store } from '../store.ts';

/**
 * The index segments (index-segments.ts) as a search sees them, on the test
 * run's backend: however many transactions wrote a knowledge base, and
 * whatever was replaced or removed since, a search finds what it would find
 * had the knowledge base been written at once.
 */

const KB_ID = 'kb';
const REACH: Reach = { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] };
const WORDS = ['falcon', 'heron', 'river', 'cliff', 'nest', 'hunt', 'field', 'shallow', 'feather', 'wing', 'beak', 'marsh'];

/** A fresh store with one knowledge base, removed after the test; `reopen` opens another (a replica). */
async function freshKnowledgeBase(): Promise<TestStore> {
  const opened = await openTestStore();
  onTestFinished(() => opened.close());
  await opened.store.createKnowledgeBase({ id: KB_ID, name: 'KB' });
  return opened;
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

/** The passage segments of a store, and the largest share of deleted units in any segment. */
async function segmentCounts({ location }: TestStore): Promise<{ segments: number; deletedShare: number }> {
  const sql = (schema: string) => `SELECT (SELECT COUNT(*) FROM ${schema}index_segments WHERE kind = 0) AS segments,
            (SELECT COALESCE(MAX(deleted * 1.0 / units), 0) FROM ${schema}index_segments) AS "deletedShare"`;
  if (location.kind === 'postgres') {
    const [row] = await adminQuery<{ segments: string; deletedShare: string }>(sql(`${location.schema}.`));
    return { segments: Number(row!.segments), deletedShare: Number(row!.deletedShare) };
  }
  const database = new BetterSqlite3(location.path, { readonly: true });
  try {
    return database.prepare(sql('')).get() as { segments: number; deletedShare: number };
  } finally {
    database.close();
  }
}

describe('index segments', () => {
  test(`a knowledge base written in ${3 * MERGE_FACTOR} transactions: merged to fewer than ${MERGE_FACTOR} segments, every search as if written in one`, async () => {
    // Arrange
    const once = await freshKnowledgeBase();
    const piecemeal = await freshKnowledgeBase();
    const documents = Array.from({ length: 3 * MERGE_FACTOR }, (_, n) => documentNumber(n));
    await once.store.putDocuments(documents);
    const { store } = piecemeal;

    // Act
    for (const document of documents) await store.putDocument(document);

    // Assert
    expect((await segmentCounts(piecemeal)).segments).toBeLessThan(MERGE_FACTOR);
    expect(await searches(store)).toEqual(await searches(once.store));
  });

  test('documents replaced and removed over many transactions: their old text never found, and merges drop what was deleted', async () => {
    // Arrange
    const written = await freshKnowledgeBase();
    const { store } = written;
    const count = 2 * MERGE_FACTOR;
    for (let n = 0; n < count; n++) await store.putDocument(documentNumber(n));
    const reference = (await freshKnowledgeBase()).store;

    // Act: every odd document replaced, every third removed, one transaction each
    for (let n = 1; n < count; n += 2) await store.putDocument(documentNumber(n, 1));
    for (let n = 0; n < count; n += 3) await store.removeDocument(KB_ID, `page-${n}.md`);
    await store.putDocuments([documentNumber(count), documentNumber(count + 1)]);

    // Assert
    const survivors = Array.from({ length: count + 2 }, (_, n) => n).filter((n) => n >= count || n % 3 !== 0);
    await reference.putDocuments(survivors.map((n) => documentNumber(n, n < count && n % 2 === 1 ? 1 : 0)));
    expect(await searches(store)).toEqual(await searches(reference));
    const after = await segmentCounts(written);
    expect(after.segments).toBeLessThan(MERGE_FACTOR);
    expect(after.deletedShare).toBeLessThanOrEqual(MAX_DELETED_SHARE);
  });

  test('two replicas, each holding the index in memory: after an ingest on one, the other searches the new and changed documents', async () => {
    // Arrange
    const { store: writer, reopen } = await freshKnowledgeBase();
    const reader = reopen();
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
    const fresh = (await freshKnowledgeBase()).store;
    await fresh.putDocuments([...Array.from({ length: 12 }, (_, n) => documentNumber(n, n === 3 ? 1 : 0)), documentNumber(40), documentNumber(41)]);
    const expected = await searches(fresh);
    expect(before).toBeGreaterThan(0);
    expect(fromReplica).toEqual(expected);
    expect(heldAgain).toEqual(expected);
  });
});
