import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, onTestFinished, test } from 'vitest';
import { analyzeChunks } from '../../ingest/pipeline/analyze-chunks.ts';
import { INDEX_ANALYSIS_VERSION, indexPage } from '../../retrieval/index-fields.ts';
import { adminQuery, openTestStore, testBackend, testDatabaseUrl } from '../../testing/test-store.ts';
import { POSTGRES_MIGRATIONS } from '../postgres/postgres-schema.ts';
import { openPostgresStore } from '../postgres/postgres-store.ts';
import { SQLITE_MIGRATIONS } from '../sqlite/sqlite-schema.ts';
import { openSqliteStore } from '../sqlite/sqlite-store.ts';
import { type FeedbackInput, type Reach, type Store, type Visibility } from '../store.ts';
import { NotFoundError } from '../../errors.ts';

/**
 * The feedback part of the storage interface (feedback.ts `addFeedback`,
 * `listFeedback`), on the test run's backend (embedded in the `embedded`
 * project, PostgreSQL in `postgres`), and each backend's migration that
 * adds it (SQLite 9, PostgreSQL 3).
 */

const KB_ID = 'kb';
const START = Date.UTC(2026, 0, 15, 12, 0, 0);

/** A store with knowledge bases `kb` and `other`, a member `alice`, and `guide.md` (public), `secret.md` (restricted to alice). */
async function storeWithDocuments(): Promise<{ store: Store; aliceId: string }> {
  const opened = await openTestStore({ now: () => START });
  onTestFinished(() => opened.close());
  const { store } = opened;
  await store.createKnowledgeBase({ id: KB_ID, name: 'Knowledge base' });
  await store.createKnowledgeBase({ id: 'other', name: 'Other' });
  const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
  await store.setRole(KB_ID, alice.id, 'editor');
  const put = (docId: string, title: string, visibility: Visibility, readers: string[] = []) =>
    store.putDocument({
      kbId: KB_ID,
      docId,
      title,
      visibility,
      readers,
      quotable: true,
      contentHash: `hash-of-${docId}`,
      analysisVersion: INDEX_ANALYSIS_VERSION,
      chunks: analyzeChunks({ title }, [{ headingPath: [title], text: `The text of ${title}.` }]),
      page: indexPage(docId, { title }, [{ headingPath: [title], text: `The text of ${title}.` }]),
    });
  await put('guide.md', 'Guide', 'public');
  await put('secret.md', 'Launch plan', 'restricted', [alice.id]);
  return { store, aliceId: alice.id };
}

function reach(userId: string, visibilities: readonly Visibility[] = ['public', 'workspace', 'restricted']): Reach {
  return { kbId: KB_ID, userId, visibilities };
}

function rating(overrides: Partial<FeedbackInput> = {}): FeedbackInput {
  return {
    kbId: KB_ID,
    kind: 'rating',
    createdAt: START,
    question: 'How do I create a directory?',
    provenance: 'generated',
    rating: 'down',
    reason: 'out_of_date',
    comment: 'The option was renamed.',
    passages: [
      { docId: 'guide.md', chunkId: 11, version: 'hash-of-guide.m' },
      { docId: 'secret.md', chunkId: 12, version: 'hash-of-secret.' },
    ],
    ...overrides,
  };
}

describe('Store feedback', () => {
  test('a rating with two passages: listed with every field, its passages in order, each titled from its document', async () => {
    const { store, aliceId } = await storeWithDocuments();

    const id = await store.addFeedback(rating());

    expect(await store.listFeedback(reach(aliceId), { limit: 10 })).toEqual([
      {
        ...rating(),
        id,
        passages: [
          { docId: 'guide.md', chunkId: 11, version: 'hash-of-guide.m', title: 'Guide' },
          { docId: 'secret.md', chunkId: 12, version: 'hash-of-secret.', title: 'Launch plan' },
        ],
      },
    ]);
  });

  test('a problem report without a comment, and a rating up without reason or passages: no empty fields listed', async () => {
    const { store, aliceId } = await storeWithDocuments();
    const report: FeedbackInput = {
      kbId: KB_ID,
      kind: 'problem',
      createdAt: START,
      question: 'What is the launch date?',
      provenance: 'qa_shortcut',
      reason: 'broken_link',
      passages: [{ docId: 'guide.md', chunkId: 11, version: 'hash-of-guide.m' }],
    };
    const up: FeedbackInput = { kbId: KB_ID, kind: 'rating', createdAt: START + 1, question: 'Hi?', provenance: 'abstained', rating: 'up', passages: [] };

    await store.addFeedback(report);
    await store.addFeedback(up);

    const listed = await store.listFeedback(reach(aliceId), { limit: 10 });
    expect(listed.map(({ id: _id, ...record }) => record)).toEqual([
      { ...up, passages: [] },
      { ...report, passages: [{ docId: 'guide.md', chunkId: 11, version: 'hash-of-guide.m', title: 'Guide' }] },
    ]);
  });

  test('records of one time and of later times: newest first, then the later id; pages by cursor miss and repeat nothing', async () => {
    const { store, aliceId } = await storeWithDocuments();
    const times = [START, START + 5, START + 5, START + 5, START + 9, START + 2];
    const ids: number[] = [];
    for (const [index, createdAt] of times.entries()) ids.push(await store.addFeedback(rating({ createdAt, question: `Question ${index}?` })));

    const pages: string[][] = [];
    let before: { createdAt: number; id: number } | undefined;
    for (;;) {
      const page = await store.listFeedback(reach(aliceId), { limit: 2, ...(before ? { before } : {}) });
      if (page.length === 0) break;
      pages.push(page.map((record) => record.question));
      const last = page.at(-1)!;
      before = { createdAt: last.createdAt, id: last.id };
    }

    expect(ids).toEqual([...ids].sort((left, right) => left - right));
    expect(pages).toEqual([
      ['Question 4?', 'Question 3?'],
      ['Question 2?', 'Question 1?'],
      ['Question 5?', 'Question 0?'],
    ]);
  });

  test('feedback of another knowledge base: not listed with this one', async () => {
    const { store, aliceId } = await storeWithDocuments();
    await store.addFeedback(rating({ kbId: 'other', question: 'About penguins?', passages: [] }));
    await store.addFeedback(rating({ question: 'About guides?' }));

    const listed = await store.listFeedback(reach(aliceId), { limit: 10 });

    expect(listed.map((record) => record.question)).toEqual(['About guides?']);
  });

  test('a reader outside the restricted document, and a document removed since: those passages listed without a title', async () => {
    const { store, aliceId } = await storeWithDocuments();
    await store.addFeedback(rating());

    const bob = await store.createUser({ email: 'bob@example.com', name: 'Bob' });
    await store.setRole(KB_ID, bob.id, 'editor');
    const forBob = await store.listFeedback(reach(bob.id), { limit: 10 });
    await store.removeDocument(KB_ID, 'guide.md');
    const forAliceAfterRemoval = await store.listFeedback(reach(aliceId), { limit: 10 });

    expect(forBob[0]!.passages.map((passage) => passage.title)).toEqual(['Guide', undefined]);
    expect(forBob[0]!.passages[1]).not.toHaveProperty('title');
    expect(forAliceAfterRemoval[0]!.passages.map((passage) => [passage.docId, passage.title])).toEqual([
      ['guide.md', undefined],
      ['secret.md', 'Launch plan'],
    ]);
  });

  test('a knowledge base that does not exist: NotFoundError, nothing stored', async () => {
    const { store, aliceId } = await storeWithDocuments();

    await expect(store.addFeedback(rating({ kbId: 'missing' }))).rejects.toBeInstanceOf(NotFoundError);

    expect(await store.listFeedback({ ...reach(aliceId), kbId: 'missing' }, { limit: 10 })).toEqual([]);
  });
});

describe.runIf(testBackend() === 'embedded')('SqliteStore migration 9 (feedback)', () => {
  test('a database of migration 8: upgraded at open; feedback is stored and listed', async () => {
    // Arrange: a knowledge base as the previous release stored it
    const folder = await mkdtemp(join(tmpdir(), 'kb-sqlite-migration-test-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'kb.sqlite');
    const old = new BetterSqlite3(path);
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const migration of SQLITE_MIGRATIONS.filter((candidate) => candidate.version < 9)) {
      old.exec(migration.sql);
      old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, START);
    }
    old.prepare("INSERT INTO knowledge_bases (id, name, created_at) VALUES (?, 'KB', ?)").run(KB_ID, START);
    old.prepare('INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES (?, 0, 0, 0)').run(KB_ID);
    old.close();

    // Act
    const upgraded = openSqliteStore({ path, now: () => START });
    onTestFinished(() => upgraded.close());
    await upgraded.addFeedback(rating());

    // Assert
    expect((await upgraded.listFeedback(reach('usr_nobody'), { limit: 1 }))[0]).toMatchObject({ question: rating().question, reason: 'out_of_date' });
  });
});

describe.runIf(testBackend() === 'postgres')('PostgresStore migration 3 (feedback)', () => {
  test('a schema of migration 2: migration 3 applied at open; feedback is stored and listed', async () => {
    // Arrange
    const schema = `t_${randomBytes(6).toString('hex')}`;
    let store: ReturnType<typeof openPostgresStore> | undefined;
    onTestFinished(async () => {
      await store?.close();
      await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const before = POSTGRES_MIGRATIONS.filter((migration) => migration.version < 3);
    // SET LOCAL: the admin connection is shared by the whole run; its search path must not change.
    await adminQuery(`BEGIN; SET LOCAL search_path TO ${schema}; ${before.map((migration) => migration.sql).join('\n')}
      CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL);
      INSERT INTO schema_migrations VALUES ${before.map((migration) => `(${migration.version}, 0)`).join(', ')};
      INSERT INTO knowledge_bases (id, name, created_at) VALUES ('${KB_ID}', 'KB', 5);
      INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES ('${KB_ID}', 0, 0, 0); COMMIT;`);

    // Act: opened only now, since a store starts migrating its schema as it opens.
    store = openPostgresStore({ url: testDatabaseUrl(), schema, maxConnections: 2 });
    await store.addFeedback(rating());

    // Assert
    const versions = await adminQuery<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    expect(versions.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((migration) => migration.version));
    expect((await store.listFeedback(reach('usr_nobody'), { limit: 1 }))[0]).toMatchObject({ question: rating().question, reason: 'out_of_date' });
  });
});
