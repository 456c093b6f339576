import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, onTestFinished, test } from 'vitest';
import { adminQuery, testBackend, testDatabaseUrl } from '../testing/test-store.ts';
import { PostingsCache } from './postings-cache.ts';
import { searchPostgres, searchPostgresCached } from './postgres-search.ts';
import { openPostgresStore, POSTGRES_TYPES, type PostgresStoreOptions } from './postgres-store.ts';
import { aboutDocument, indexVersionMoves, operationArbitrary, playOperations, READERS } from '../testing/search-test-fixtures.ts';
import { StoreUnavailableError, type SearchQuery, type SearchResult, type Store } from './store.ts';

/**
 * The PostgreSQL store's search over postings cached in memory
 * (postgres-search.ts `searchPostgresCached`, store/postings-cache.ts) must
 * return exactly what its all-SQL search (`searchPostgres`) returns, and see
 * changes made by other processes (replicas) at their next search. Runs in
 * the `postgres` test project; each test has a schema of its own.
 */

interface Fixture {
  /** The schema's name (its tables for {@link adminQuery}). */
  schema: string;
  /** The writing store, as the CLI or another replica; users `ann` and `bob` exist. */
  store: Store;
  /** User ids by name. */
  users: Map<string, string>;
  /** Opens another store (another replica, with its own pool and postings cache) on the schema. */
  open(options?: Partial<PostgresStoreOptions>): Store;
  /** A connection on the schema with the store's type parsers. */
  connect(): Promise<pg.Client>;
}

/** A fresh schema with users `ann` and `bob`; stores and connections closed, then the schema dropped, after the test. */
async function openFixture(): Promise<Fixture> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const stores: Store[] = [];
  const clients: pg.Client[] = [];
  onTestFinished(async () => {
    for (const client of clients) await client.end();
    for (const opened of stores) await opened.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  const open = (options: Partial<PostgresStoreOptions> = {}): Store => {
    const opened = openPostgresStore({ url: testDatabaseUrl(), schema, maxConnections: 2, ...options });
    stores.push(opened);
    return opened;
  };
  const store = open();
  const users = new Map<string, string>();
  for (const name of READERS) users.set(name, (await store.createUser({ email: `${name}@example.com`, name })).id);
  return {
    schema,
    store,
    users,
    open,
    async connect() {
      const client = new pg.Client({ connectionString: testDatabaseUrl(), options: `-c search_path=${schema}`, types: POSTGRES_TYPES });
      clients.push(client);
      await client.connect();
      return client;
    },
  };
}

/** Runs `work` in a `REPEATABLE READ READ ONLY` transaction of `client`, as the store runs a search. */
async function inSnapshot<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    return await work();
  } finally {
    await client.query('COMMIT');
  }
}

/** A search over `cache` on `client`, in one snapshot. */
function cachedSearch(client: pg.Client, cache: PostingsCache): (query: SearchQuery) => Promise<SearchResult> {
  return (query) => inSnapshot(client, () => searchPostgresCached(client, query, cache));
}

const query: SearchQuery = { reach: { kbId: 'kb', userId: 'usr_nobody', visibilities: ['public'] }, terms: ['alpha', 'beta'], topK: 5 };

function docIdsOf(result: SearchResult): string[] {
  return result.passages.map((passage) => passage.docId).sort();
}

describe.runIf(testBackend() === 'postgres')('searchPostgresCached', () => {
  test('random corpora, reaches and questions written through another store: the cached search returns what the all-SQL search returns, scores to the last bit', async () => {
    // Arrange: each run gets its own knowledge base, written through the
    // fixture's store and searched on another connection by the SQL
    // reference and by two caches (one roomy, one too small for most
    // knowledge bases, so that eviction and the SQL fallback are exercised),
    // and through two other stores, one with its cache, one without.
    const { store, users, open, connect } = await openFixture();
    const client = await connect();
    const roomy = new PostingsCache({ quietMilliseconds: 0 });
    const cached = cachedSearch(client, roomy);
    const cramped = cachedSearch(client, new PostingsCache({ quietMilliseconds: 0, maxPostings: 12 }));
    const cachingStore = open({ postingsCache: { quietMilliseconds: 0 } });
    const sqlStore = open({ postingsCache: false });
    let run = 0;
    let compared = 0;
    let scoredInMemory = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(operationArbitrary, { minLength: 4, maxLength: 20 }), async (operations) => {
        const kbId = `kb-${run++}`;
        await store.createKnowledgeBase({ id: kbId, name: kbId });
        await playOperations(store, kbId, operations, users, async (search) => {
          // Act
          const expected = await searchPostgres(client, search);
          const fromCache = await cached(search);
          const fromCramped = await cramped(search);
          const fromCachingStore = await cachingStore.search(search);
          const fromSqlStore = await sqlStore.search(search);

          // Assert: equal passages, scores bit for bit, and statistics.
          expect(fromCache).toStrictEqual(expected);
          expect(fromCramped).toStrictEqual(expected);
          expect(fromCachingStore).toStrictEqual(expected);
          expect(fromSqlStore).toStrictEqual(expected);
          compared++;
          if (roomy.peek(kbId) && expected.passages.length > 0) scoredInMemory++;
        });
      }),
      { numRuns: 100 },
    );
    // The property compared many searches, and many found passages in memory.
    expect(compared).toBeGreaterThan(200);
    expect(scoredInMemory).toBeGreaterThan(40);
  }, 120_000);

  test('a knowledge base with more postings than the cap: searched in SQL with the all-SQL result, nothing cached', async () => {
    // Arrange: three postings, a cap of two
    const { store, connect } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    for (const [docId, term] of [['a', 'alpha'], ['b', 'beta'], ['c', 'alpha']] as const) {
      await store.putDocument(aboutDocument('kb', docId, term));
    }
    const client = await connect();
    const cache = new PostingsCache({ maxPostings: 2, quietMilliseconds: 0 });

    // Act
    const first = await cachedSearch(client, cache)(query);
    const second = await cachedSearch(client, cache)(query);

    // Assert
    expect(docIdsOf(first)).toEqual(['a', 'b', 'c']);
    expect(second).toStrictEqual(first);
    expect(first).toStrictEqual(await searchPostgres(client, query));
    expect(cache.peek('kb')).toBeUndefined();
    expect(cache.postingTotal).toBe(0);
  });

  test('a knowledge base changed by another store after it was cached: searched in SQL (the new document found) until its new version has been seen for the quiet period, then cached at that version', async () => {
    // Arrange: cached at the first search
    const { store, connect } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(aboutDocument('kb', 'first', 'alpha'));
    const client = await connect();
    let now = 0;
    const cache = new PostingsCache({ quietMilliseconds: 1_000, now: () => now });
    const search = cachedSearch(client, cache);
    const atFirstSearch = await search(query);
    const firstVersion = cache.peek('kb')?.version;

    // Act: another store ingests a document; searches within, then after, the quiet period
    await store.putDocument(aboutDocument('kb', 'second', 'beta'));
    now = 100;
    const duringQuietPeriod = await search(query);
    const cachedDuringQuietPeriod = cache.peek('kb');
    now = 1_200;
    const onceQuiet = await search(query);

    // Assert
    expect(docIdsOf(atFirstSearch)).toEqual(['first']);
    expect(firstVersion).toBeTypeOf('number');
    expect(docIdsOf(duringQuietPeriod)).toEqual(['first', 'second']);
    expect(duringQuietPeriod).toStrictEqual(await searchPostgres(client, query));
    expect(cachedDuringQuietPeriod).toBeUndefined();
    expect(onceQuiet).toStrictEqual(duringQuietPeriod);
    expect(cache.peek('kb')?.version).toBeGreaterThan(firstVersion!);
  });
});

describe.runIf(testBackend() === 'postgres')('PostgresStore search with cached postings', () => {
  test('a document ingested, then removed, through another store (a replica): found, then no longer found, by the next search of a store that had cached the knowledge base', async () => {
    // Arrange: the searching store has cached the knowledge base
    const { store, open } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(aboutDocument('kb', 'first', 'alpha'));
    const worker = open({ postingsCache: { quietMilliseconds: 0 } });
    const before = await worker.search(query);

    // Act
    await store.putDocument(aboutDocument('kb', 'second', 'beta'));
    const afterIngest = await worker.search(query);
    await store.removeDocument('kb', 'second');
    const afterRemoval = await worker.search(query);

    // Assert
    expect(docIdsOf(before)).toEqual(['first']);
    expect(docIdsOf(afterIngest)).toEqual(['first', 'second']);
    expect(afterIngest.documentFrequencies).toEqual({ alpha: 1, beta: 1 });
    expect(docIdsOf(afterRemoval)).toEqual(['first']);
    expect(afterRemoval.documentFrequencies).toEqual({ alpha: 1, beta: 0 });
  });

  test('a knowledge base: its index version grows when a document is created, updated or removed, and not when one is put unchanged or its access changes', async () => {
    // Arrange
    const { schema, store } = await openFixture();
    const versionOf = async () =>
      (await adminQuery<{ version: number }>(`SELECT version::integer AS version FROM ${schema}.index_stats WHERE kb_id = 'kb'`))[0]!.version;

    // Act
    const moves = await indexVersionMoves(store, versionOf);

    // Assert
    expect(moves).toEqual({ created: 'grew', putUnchanged: 'same', updated: 'grew', accessChanged: 'same', otherKnowledgeBaseChanged: 'same', removed: 'grew' });
  });

  test('its connections terminated by the server after the knowledge base was cached: a search fails as unavailable at most once, then finds the same passages unaided', async () => {
    // Arrange
    const applicationName = `kb-widget-test-${randomBytes(4).toString('hex')}`;
    const { store, open } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(aboutDocument('kb', 'first', 'alpha'));
    const worker = open({ applicationName, postingsCache: { quietMilliseconds: 0 } });
    const before = await worker.search(query);

    // Act
    const terminated = await adminQuery<{ count: number }>(
      'SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    const outcomes: unknown[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      outcomes.push(
        await worker.search(query).then(
          (result) => docIdsOf(result),
          (error: unknown) => (error instanceof StoreUnavailableError ? 'unavailable' : String(error)),
        ),
      );
    }

    // Assert
    expect(docIdsOf(before)).toEqual(['first']);
    expect(terminated[0]?.count).toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => outcome === 'unavailable').length).toBeLessThanOrEqual(1);
    expect(outcomes.slice(-2)).toEqual([['first'], ['first']]);
  });
});
