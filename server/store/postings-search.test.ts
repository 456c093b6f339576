import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, onTestFinished, test } from 'vitest';
import { prepareSearch, prepareSqlSearch } from './sqlite-search.ts';
import { openSqliteStore } from './sqlite-store.ts';
import { aboutDocument, operationArbitrary, playOperations, READERS } from '../testing/search-test-fixtures.ts';
import type { ChunkInput, SearchQuery, Store } from './store.ts';

interface Fixture {
  /** The writing connection, as the CLI or the server's main thread. */
  store: Store;
  /** Another connection on the same file, where the searches run. */
  reader: Database;
  /** Users by name (`ann`, `bob`). */
  users: Map<string, string>;
  /** Opens another store on the same file, closed after the test. */
  reopen(): Store;
}

/** A database file with users `ann` and `bob`, removed after the test. */
async function openFixture(): Promise<Fixture> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-postings-search-test-'));
  const path = join(folder, 'kb.sqlite');
  const stores: Store[] = [];
  const reopen = () => {
    const opened = openSqliteStore({ path });
    stores.push(opened);
    return opened;
  };
  const store = reopen();
  const reader = new BetterSqlite3(path);
  onTestFinished(async () => {
    reader.close();
    for (const opened of stores) await opened.close();
    await rm(folder, { recursive: true, force: true });
  });
  const users = new Map<string, string>();
  for (const name of READERS) users.set(name, (await store.createUser({ email: `${name}@example.com`, name })).id);
  return { store, reader, users, reopen };
}

describe('cached postings search', () => {
  test('random corpora, reaches and questions: the cached search returns what the all-SQL search returns, through writes made on another connection', async () => {
    // Arrange: one database; each run gets its own knowledge base, written
    // through the store's connection and searched on another connection by
    // the SQL reference and by two caches (one roomy, one too small for most
    // knowledge bases, so that eviction and the SQL fallback are exercised).
    const { store, reader, users } = await openFixture();
    const reference = prepareSqlSearch(reader);
    const cached = prepareSearch(reader, { quietMilliseconds: 0 });
    const cramped = prepareSearch(reader, { quietMilliseconds: 0, maxPostings: 12 });
    let run = 0;
    let compared = 0;
    let scoredInMemory = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(operationArbitrary, { minLength: 4, maxLength: 25 }), async (operations) => {
        const kbId = `kb-${run++}`;
        await store.createKnowledgeBase({ id: kbId, name: kbId });
        await playOperations(store, kbId, operations, users, (query) => {
          // Act
          const expected = reference.run(query);
          const fromCache = cached.run(query);
          const fromCramped = cramped.run(query);

          // Assert: equal passages, scores bit for bit, and statistics.
          expect(fromCache).toStrictEqual(expected);
          expect(fromCramped).toStrictEqual(expected);
          compared++;
          if (cached.cache.peek(kbId) && expected.passages.length > 0) scoredInMemory++;
        });
      }),
      { numRuns: 150 },
    );
    // The property compared many searches, most of them scored in memory.
    expect(compared).toBeGreaterThan(100);
    expect(scoredInMemory).toBeGreaterThan(50);
  }, 60_000);

  test('ties: passages with equal scores come in chunk id order in both searches', async () => {
    // Arrange: three identical passages and one better one
    const { store, reader } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    const passage: ChunkInput = {
      headingPath: ['Page'],
      text: 'alpha',
      bodyTerms: new Map([['alpha', 1]]),
      headingTerms: new Map(),
      bodyLength: 4,
      headingLength: 1,
    };
    const best: ChunkInput = { ...passage, bodyTerms: new Map([['alpha', 3]]) };
    for (const [docId, chunks] of [['x', [passage, passage]], ['y', [best, passage]]] as const) {
      await store.putDocument({ kbId: 'kb', docId, title: docId, visibility: 'public', readers: [], quotable: true, contentHash: docId, chunks: [...chunks] });
    }
    const query: SearchQuery = { reach: { kbId: 'kb', userId: 'usr_nobody', visibilities: ['public'] }, terms: ['alpha'], topK: 3 };

    // Act
    const fromCache = prepareSearch(reader, { quietMilliseconds: 0 }).run(query);

    // Assert
    const [first, second, third] = fromCache.passages;
    expect(first?.docId).toBe('y');
    expect(second?.score).toBe(third?.score);
    expect(second!.chunkId).toBeLessThan(third!.chunkId);
    expect(fromCache).toStrictEqual(prepareSqlSearch(reader).run(query));
  });
});

describe('cached postings and other connections', () => {
  const query: SearchQuery = { reach: { kbId: 'kb', userId: 'usr_nobody', visibilities: ['public'] }, terms: ['alpha', 'beta'], topK: 5 };

  test('a document ingested, then removed, through another connection is found, then no longer found, by the next search of a connection that had cached the knowledge base', async () => {
    // Arrange: the search connection has cached the knowledge base
    const { store, reader } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(aboutDocument('kb', 'first', 'alpha'));
    const search = prepareSearch(reader, { quietMilliseconds: 0 });
    expect(search.run(query).passages.map((passage) => passage.docId)).toEqual(['first']);
    const cachedVersion = search.cache.peek('kb')?.version;

    // Act: another connection ingests a document, then removes it
    await store.putDocument(aboutDocument('kb', 'second', 'beta'));
    const afterIngest = search.run(query);
    await store.removeDocument('kb', 'second');
    const afterRemoval = search.run(query);

    // Assert: each change is seen by the next search, from rebuilt postings
    expect(afterIngest.passages.map((passage) => passage.docId).sort()).toEqual(['first', 'second']);
    expect(afterIngest.documentFrequencies).toEqual({ alpha: 1, beta: 1 });
    expect(afterRemoval.passages.map((passage) => passage.docId)).toEqual(['first']);
    expect(afterRemoval.documentFrequencies).toEqual({ alpha: 1, beta: 0 });
    expect(search.cache.peek('kb')?.version).toBeGreaterThan(cachedVersion!);
  });

  test('two stores on one file: a document ingested, then removed, through one is found, then no longer found, by the next search of the other', async () => {
    // Arrange: the second store (as an answer worker opens) has searched, so cached, the knowledge base
    const { store, reopen } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(aboutDocument('kb', 'first', 'alpha'));
    const worker = reopen();
    const docIds = async () => (await worker.search(query)).passages.map((passage) => passage.docId).sort();
    expect(await docIds()).toEqual(['first']);

    // Act and Assert: each change is seen by the worker's next search
    await store.putDocument(aboutDocument('kb', 'second', 'beta'));
    expect(await docIds()).toEqual(['first', 'second']);
    await store.removeDocument('kb', 'second');
    expect(await docIds()).toEqual(['first']);
  });
});
