import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, onTestFinished, test } from 'vitest';
import { analyzeChunks } from '../../ingest/pipeline/analyze-chunks.ts';
import { analyzedDocument } from '../../testing/analyzed-document.ts';
import { adminQuery, testBackend, testDatabaseUrl } from '../../testing/test-store.ts';
import { POSTGRES_MIGRATIONS } from './postgres-schema.ts';
import { readPostgresIndex } from './postgres-index.ts';
import { openPostgresStore, POSTGRES_TYPES, type PostgresStoreOptions } from './postgres-store.ts';
import { type DocumentInput, type Store } from '../store.ts';
import { StoreUnavailableError } from '../../errors.ts';
import { analyze } from '../../retrieval/analyzer.ts';
import { INDEX_ANALYSIS_VERSION, indexPage } from '../../retrieval/index-fields.ts';
import { createLexicalRetriever } from '../../retrieval/lexical-retriever.ts';
import { reindexStaleDocuments } from '../../retrieval/reindex.ts';

/**
 * What only the PostgreSQL store has: migrations shared by several processes,
 * a connection pool that outlives dropped connections, and an unreachable
 * server reported as StoreUnavailableError. (Everything both backends do is
 * in store/store.test.ts, which runs on each.) Runs in the `postgres` test project.
 */

/** A fresh schema name, dropped after the test, with stores opened on it closed first. */
function freshSchema(): { schema: string; open(options?: Partial<PostgresStoreOptions>): Store } {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const opened: Store[] = [];
  onTestFinished(async () => {
    for (const store of opened) await store.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  return {
    schema,
    open(options = {}) {
      const store = openPostgresStore({ url: testDatabaseUrl(), schema, maxConnections: 2, ...options });
      opened.push(store);
      return store;
    },
  };
}

/** A public document of knowledge base `kb` (content hash `v1`), its passages analyzed as ingest does. */
function publicDocument(docId: string, title: string, texts: { headingPath: string[]; text: string }[]): DocumentInput {
  return analyzedDocument('kb', docId, title, texts, { contentHash: 'v1' });
}

describe.runIf(testBackend() === 'postgres')('PostgresStore migrations', () => {
  test('four replicas opening one new schema at once: every migration applied exactly once, all four usable', async () => {
    // Arrange
    const { schema, open } = freshSchema();
    const replicas = [open(), open(), open(), open()];

    // Act
    await Promise.all(replicas.map((replica) => replica.ping()));
    const created = await replicas[0]!.createKnowledgeBase({ id: 'kb', name: 'KB' });

    // Assert
    const versions = await adminQuery<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    expect(versions.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((migration) => migration.version));
    for (const replica of replicas) await expect(replica.getKnowledgeBase('kb')).resolves.toEqual(created);
  });

  test('a schema of migration 1 (before documentation sites): migration 2 applied at open, its knowledge base kept without a site', async () => {
    // Arrange
    const { schema, open } = freshSchema();
    await adminQuery(`CREATE SCHEMA ${schema}`);
    // SET LOCAL: the admin connection is shared by the whole run; its search path must not change.
    await adminQuery(`BEGIN; SET LOCAL search_path TO ${schema}; ${POSTGRES_MIGRATIONS.find((migration) => migration.version === 1)!.sql}
      CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL);
      INSERT INTO schema_migrations VALUES (1, 0);
      INSERT INTO knowledge_bases (id, name, created_at) VALUES ('kb', 'KB', 5);
      INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES ('kb', 0, 0, 0); COMMIT;`);

    // Act
    const store = open();
    const knowledgeBase = await store.getKnowledgeBase('kb');

    // Assert
    expect(knowledgeBase).toEqual({ id: 'kb', name: 'KB', createdAt: 5, urlStyle: 'pretty', anchorStyle: 'github' });
    const versions = await adminQuery<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    expect(versions.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((migration) => migration.version));
    await expect(store.updateKnowledgeBase('kb', { baseUrl: 'https://docs.example.com/' })).resolves.toMatchObject({ baseUrl: 'https://docs.example.com/' });
  });

  test('a schema of migration 4 (a row per posting): migration 5 applied at open, the document stale and not found until re-indexed from its stored passages, then found as when ingested afresh', async () => {
    // Arrange: a document indexed as migration 4 stored it
    const { schema, open } = freshSchema();
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const before = POSTGRES_MIGRATIONS.filter((migration) => migration.version <= 4);
    await adminQuery(`BEGIN; SET LOCAL search_path TO ${schema}; ${before.map((migration) => migration.sql).join('\n')}
      CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL);
      INSERT INTO schema_migrations SELECT unnest(ARRAY[${before.map((migration) => migration.version).join(', ')}]), 0;
      INSERT INTO knowledge_bases (id, name, created_at) VALUES ('kb', 'KB', 5);
      INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum, version) VALUES ('kb', 1, 0, 0, 1);
      INSERT INTO documents (kb_id, doc_id, title, visibility, quotable, content_hash, updated_at, chunk_count, analysis_version)
        VALUES ('kb', 'a.md', 'Birds', 'public', true, 'v1', 5, 1, '${INDEX_ANALYSIS_VERSION}');
      INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, text, body_length, heading_length)
        SELECT id, 'kb', 0, ARRAY['Birds'], 'The falcon nests on cliffs.', 3, 1 FROM documents;
      INSERT INTO postings (kb_id, term, chunk_id, document_id, tf_title, tf_description, tf_heading, tf_body)
        SELECT 'kb', 'falcon', c.id, c.document_id, 0, 0, 0, 1 FROM chunks c; COMMIT;`);
    const texts = [{ headingPath: ['Birds'], text: 'The falcon nests on cliffs.' }];
    const fresh = freshSchema().open();
    await fresh.createKnowledgeBase({ id: 'kb', name: 'KB' });
    await fresh.putDocument(publicDocument('a.md', 'Birds', texts));
    const search = async (store: Store) =>
      (await createLexicalRetriever(store, { cache: false }).search({ reach, terms: analyze('falcon cliffs'), topK: 5 })).passages.map(
        ({ chunkId: _id, ...passage }) => passage,
      );
    const reach = { kbId: 'kb', userId: 'usr_nobody', visibilities: ['public'] as const };

    // Act
    const store = open();
    const stale = await store.listStaleDocuments(INDEX_ANALYSIS_VERSION);
    const beforeReindex = await search(store);
    const report = await reindexStaleDocuments(store);

    // Assert
    expect(stale).toEqual([{ kbId: 'kb', docId: 'a.md' }]);
    expect(beforeReindex).toEqual([]);
    expect(report).toEqual({ reindexed: 1, skipped: 0 });
    expect(await search(store)).toEqual(await search(fresh));
    expect((await search(store)).map((passage) => passage.text)).toEqual(['The falcon nests on cliffs.']);
  });

  test('a schema name with characters other than letters, digits and _: refused at open', () => {
    expect(() => openPostgresStore({ url: testDatabaseUrl(), schema: 'x; DROP TABLE users' })).toThrow(/not allowed/);
  });
});

describe.runIf(testBackend() === 'postgres')('PostgresStore when the database goes away', () => {
  test('nothing listening at the URL: opening succeeds, every call rejects with StoreUnavailableError within the connect timeout', async () => {
    // Arrange
    const store = openPostgresStore({ url: 'postgres://postgres@127.0.0.1:1/kb', connectionTimeoutMs: 1_000 });
    onTestFinished(() => store.close());
    const started = Date.now();

    // Act
    const calls = [store.ping(), store.getUser('usr_x'), store.createUser({ email: 'a@example.com', name: 'A' })];

    // Assert
    for (const call of calls) await expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('its connections terminated by the server (as on a restart): calls fail as unavailable at most once, then work again unaided', async () => {
    // Arrange
    const applicationName = `kb-widget-test-${randomBytes(4).toString('hex')}`;
    const { open } = freshSchema();
    const store = open({ applicationName });
    await store.createKnowledgeBase({ id: 'kb', name: 'KB' });
    await Promise.all([store.getKnowledgeBase('kb'), store.getKnowledgeBase('kb')]);

    // Act
    const terminated = await adminQuery<{ count: number }>(
      'SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      outcomes.push(
        await store.getKnowledgeBase('kb').then(
          (found) => (found ? 'found' : 'missing'),
          (error: unknown) => (error instanceof StoreUnavailableError ? 'unavailable' : String(error)),
        ),
      );
    }

    // Assert
    expect(terminated[0]?.count).toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => outcome === 'unavailable').length).toBeLessThanOrEqual(2);
    expect(outcomes.slice(-2)).toEqual(['found', 'found']);
  });

  test('connections of the pool: named by application_name and never more than maxConnections', async () => {
    // Arrange
    const applicationName = `kb-widget-test-${randomBytes(4).toString('hex')}`;
    const { open } = freshSchema();
    const store = open({ applicationName, maxConnections: 3 });
    await store.createKnowledgeBase({ id: 'kb', name: 'KB' });

    // Act
    await Promise.all(Array.from({ length: 20 }, () => store.getKnowledgeBase('kb')));
    const sessions = await adminQuery<{ count: number }>(
      'SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );

    // Assert
    expect(sessions[0]?.count).toBeGreaterThan(0);
    expect(sessions[0]?.count).toBeLessThanOrEqual(3);
  });

  test('a write blocked longer than the statement timeout: rejected as unavailable after about that time, the previous version kept', async () => {
    // Arrange
    const { schema, open } = freshSchema();
    const store = open({ statementTimeoutMs: 300 });
    await store.createKnowledgeBase({ id: 'kb', name: 'KB' });
    const page = (text: string, contentHash: string) => ({
      kbId: 'kb',
      docId: 'a.md',
      title: 'A',
      visibility: 'public' as const,
      readers: [],
      quotable: true,
      contentHash,
      analysisVersion: INDEX_ANALYSIS_VERSION,
      chunks: analyzeChunks({ title: 'A' }, [{ headingPath: ['A'], text }]),
      page: indexPage('a.md', { title: 'A' }, [{ headingPath: ['A'], text }]),
    });
    await store.putDocument(page('The falcon hunts.', 'v1'));
    const blocker = new pg.Client({ connectionString: testDatabaseUrl() });
    await blocker.connect();
    onTestFinished(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query(`SELECT 1 FROM ${schema}.index_stats WHERE kb_id = 'kb' FOR UPDATE`);
    const started = Date.now();

    // Act
    const putting = store.putDocument(page('The heron fishes.', 'v2'));

    // Assert
    await expect(putting).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(3_000);
    await blocker.query('ROLLBACK');
    await expect(store.getDocument('kb', 'a.md')).resolves.toMatchObject({ contentHash: 'v1', chunkCount: 1 });
  });
});

describe.runIf(testBackend() === 'postgres')('PostgresStore whole-index reads', () => {
  test('a whole index read a few term rows per statement: the same columns as read in one statement', async () => {
    // Arrange
    const { schema, open } = freshSchema();
    const store = open();
    await store.createKnowledgeBase({ id: 'kb', name: 'KB' });
    const texts = ['The falcon hunts over the field.', 'A heron fishes in the shallow river.', 'The falcon and the heron share the river field.'];
    for (const [position, text] of texts.entries()) {
      const docId = `page-${position}.md`;
      await store.putDocument({
        kbId: 'kb',
        docId,
        title: `Page ${position}`,
        visibility: 'public',
        readers: [],
        quotable: true,
        contentHash: `v${position}`,
        analysisVersion: INDEX_ANALYSIS_VERSION,
        chunks: analyzeChunks({ title: `Page ${position}` }, [{ headingPath: [`Page ${position}`], text }, { headingPath: [`Page ${position}`, 'More'], text: `${text} Again.` }]),
        page: indexPage(docId, { title: `Page ${position}` }, [{ headingPath: [`Page ${position}`], text }]),
      });
    }
    const client = new pg.Client({ connectionString: testDatabaseUrl(), options: `-c search_path=${schema}`, types: POSTGRES_TYPES });
    await client.connect();
    onTestFinished(() => client.end());
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');

    // Act
    const whole = await readPostgresIndex(client, 'kb', 1_000_000);
    const paged = await readPostgresIndex(client, 'kb', 1_000_000, 3);

    // Assert
    expect(whole!.passages.postingChunks.length).toBeGreaterThan(9);
    expect(whole!.pages.postingChunks.length).toBeGreaterThan(9);
    expect(paged).toEqual(whole);
  });

  test('planner statistics refreshed after a write: every index table analyzed, so that searches right after get good plans', async () => {
    // Arrange
    const { schema, open } = freshSchema();
    const store = open();
    await store.createKnowledgeBase({ id: 'kb', name: 'KB' });
    await store.putDocument(publicDocument('a.md', 'A', [{ headingPath: ['A'], text: 'The falcon hunts.' }]));

    // Act
    await store.refreshPlannerStatistics();

    // Assert
    const analyzed = await adminQuery<{ relname: string }>(
      `SELECT relname FROM pg_stat_user_tables WHERE schemaname = '${schema}' AND last_analyze IS NOT NULL ORDER BY relname`,
    );
    expect(analyzed.map((row) => row.relname)).toEqual(['chunks', 'documents', 'index_segments', 'segment_deletions', 'segment_terms']);
  });
});
