import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, onTestFinished, test } from 'vitest';
import { adminQuery, openTestStore as openBackendTestStore, testBackend, testDatabaseUrl } from '../../testing/test-store.ts';
import { POSTGRES_MIGRATIONS } from '../postgres/postgres-schema.ts';
import { openPostgresStore } from '../postgres/postgres-store.ts';
import { SQLITE_MIGRATIONS } from '../sqlite/sqlite-schema.ts';
import { openSqliteStore } from '../sqlite/sqlite-store.ts';
import type { Store, TokenRecord } from '../store.ts';

/**
 * The token list at scale (docs/http-api.md "Tokens") on the test run's backend: a
 * page newest first, filtered in SQL by status, origin and purpose,
 * continued by a cursor; one token found by id; expired preview and demo
 * tokens deleted, embed tokens kept. Then each backend's migration that
 * admits the purpose `demo`, on a database holding tokens.
 */

const KB_ID = 'kb';
const START = Date.UTC(2026, 10, 27, 10, 0, 0);
const MINUTE = 60_000;

let serial = 0;

/** A token of `KB_ID` created `minutesAgo` before START, living an hour unless told otherwise. */
function token(issuerId: string, overrides: Partial<TokenRecord> & { id: string }): TokenRecord {
  serial += 1;
  return {
    kbId: KB_ID,
    issuerId,
    tokenHash: serial.toString(16).padStart(64, '0'),
    allowedOrigins: ['https://docs.example.com'],
    scope: ['public'],
    purpose: 'embed',
    createdAt: START,
    expiresAt: START + 60 * MINUTE,
    ...overrides,
  };
}

/** A store with one knowledge base (and another one) and an issuer, removed after the test. */
async function storeWithIssuer(): Promise<{ store: Store; issuerId: string }> {
  const opened = await openBackendTestStore({ now: () => START });
  onTestFinished(() => opened.close());
  await opened.store.createKnowledgeBase({ id: KB_ID, name: 'Knowledge base' });
  await opened.store.createKnowledgeBase({ id: 'other', name: 'Other' });
  const issuer = await opened.store.createUser({ email: 'owner@example.com', name: 'Owner' });
  return { store: opened.store, issuerId: issuer.id };
}

describe('TokenRepository listTokenPage', () => {
  test('61 tokens, pages of 20: newest first (ties by id, descending), each token once, the total on every page', async () => {
    // Arrange: a minute apart, two created in the same millisecond
    const { store, issuerId } = await storeWithIssuer();
    for (let index = 0; index < 60; index += 1) {
      await store.insertToken(token(issuerId, { id: `tok_${String(index).padStart(3, '0')}`, createdAt: START + index * MINUTE }));
    }
    await store.insertToken(token(issuerId, { id: 'tok_059b', createdAt: START + 59 * MINUTE }));
    await store.insertToken(token(issuerId, { id: 'tok_elsewhere', kbId: 'other', createdAt: START + 90 * MINUTE }));

    // Act
    const pages: { ids: string[]; total: number }[] = [];
    let after: { createdAt: number; id: string } | undefined;
    for (let pageNumber = 0; pageNumber < 4; pageNumber += 1) {
      const page = await store.listTokenPage(KB_ID, {}, { limit: 20, now: START, ...(after ? { after } : {}) });
      pages.push({ ids: page.tokens.map((listed) => listed.id), total: page.total });
      const last = page.tokens.at(-1);
      if (!last) break;
      after = { createdAt: last.createdAt, id: last.id };
    }

    // Assert
    expect(pages.map((page) => page.ids.length)).toEqual([20, 20, 20, 1]);
    expect(pages.map((page) => page.total)).toEqual([61, 61, 61, 61]);
    expect(pages[0]!.ids.slice(0, 3)).toEqual(['tok_059b', 'tok_059', 'tok_058']);
    expect(pages[3]!.ids).toEqual(['tok_000']);
    const all = pages.flatMap((page) => page.ids);
    expect(new Set(all).size).toBe(61);
    expect(all).not.toContain('tok_elsewhere');
  });

  test('filters by status at `now`, origin text and purpose, alone and combined; the total counts the matches', async () => {
    // Arrange
    const { store, issuerId } = await storeWithIssuer();
    const now = START + 30 * MINUTE;
    await store.insertToken(token(issuerId, { id: 'tok_active', allowedOrigins: ['https://docs.example.com', 'http://localhost:5173'] }));
    await store.insertToken(token(issuerId, { id: 'tok_expired', expiresAt: START + 10 * MINUTE, allowedOrigins: ['https://shop.example.com'] }));
    await store.insertToken(token(issuerId, { id: 'tok_revoked_expired', expiresAt: START + 10 * MINUTE, revokedAt: START + 5 * MINUTE }));
    await store.insertToken(token(issuerId, { id: 'tok_revoked', revokedAt: START + 20 * MINUTE, allowedOrigins: ['http://localhost:35173'] }));
    await store.insertToken(token(issuerId, { id: 'tok_demo', purpose: 'demo', allowedOrigins: ['http://localhost:35173'] }));
    await store.insertToken(token(issuerId, { id: 'tok_preview', purpose: 'preview', allowedOrigins: ['http://localhost:8787'] }));
    await store.insertToken(token(issuerId, { id: 'tok_server', allowedOrigins: [] }));
    const ids = async (filter: Parameters<Store['listTokenPage']>[1]) => {
      const page = await store.listTokenPage(KB_ID, filter, { limit: 100, now });
      expect(page.total).toBe(page.tokens.length);
      return page.tokens.map((listed) => listed.id).sort();
    };

    // Act and Assert
    expect(await ids({ status: 'active' })).toEqual(['tok_active', 'tok_demo', 'tok_preview', 'tok_server']);
    expect(await ids({ status: 'expired' })).toEqual(['tok_expired']);
    expect(await ids({ status: 'revoked' })).toEqual(['tok_revoked', 'tok_revoked_expired']);
    expect(await ids({ origin: 'localhost' })).toEqual(['tok_active', 'tok_demo', 'tok_preview', 'tok_revoked']);
    expect(await ids({ origin: 'http://localhost:35173' })).toEqual(['tok_demo', 'tok_revoked']);
    expect(await ids({ origin: 'shop.example' })).toEqual(['tok_expired']);
    expect(await ids({ origin: 'https://nowhere.example.com' })).toEqual([]);
    expect(await ids({ purpose: 'demo' })).toEqual(['tok_demo']);
    expect(await ids({ status: 'active', origin: ':35173' })).toEqual(['tok_demo']);
    expect(await ids({ status: 'active', origin: 'localhost', purpose: 'embed' })).toEqual(['tok_active']);
  });

  test('getToken: the token of this knowledge base by id; another knowledge base\'s or an unknown id: undefined', async () => {
    // Arrange
    const { store, issuerId } = await storeWithIssuer();
    const mine = token(issuerId, { id: 'tok_mine' });
    await store.insertToken(mine);
    await store.insertToken(token(issuerId, { id: 'tok_theirs', kbId: 'other' }));

    // Act
    const found = await Promise.all([store.getToken(KB_ID, 'tok_mine'), store.getToken(KB_ID, 'tok_theirs'), store.getToken(KB_ID, 'tok_none')]);

    // Assert
    expect(found).toEqual([mine, undefined, undefined]);
  });
});

describe('TokenRepository deleteExpiredTokens', () => {
  test('expired preview and demo tokens of the knowledge base deleted; embed tokens, unexpired ones and other knowledge bases\' kept', async () => {
    // Arrange
    const { store, issuerId } = await storeWithIssuer();
    const expired = START - MINUTE;
    await store.insertToken(token(issuerId, { id: 'tok_preview_old', purpose: 'preview', expiresAt: expired }));
    await store.insertToken(token(issuerId, { id: 'tok_demo_old', purpose: 'demo', expiresAt: START }));
    await store.insertToken(token(issuerId, { id: 'tok_demo_revoked_old', purpose: 'demo', expiresAt: expired, revokedAt: expired - MINUTE }));
    await store.insertToken(token(issuerId, { id: 'tok_demo_current', purpose: 'demo' }));
    await store.insertToken(token(issuerId, { id: 'tok_embed_old', expiresAt: expired }));
    await store.insertToken(token(issuerId, { id: 'tok_other_preview_old', purpose: 'preview', kbId: 'other', expiresAt: expired }));

    // Act
    const deleted = await store.deleteExpiredTokens(KB_ID, ['preview', 'demo', 'embed'], START);

    // Assert
    expect(deleted).toBe(3);
    expect((await store.listTokens(KB_ID)).map((listed) => listed.id).sort()).toEqual(['tok_demo_current', 'tok_embed_old']);
    expect((await store.listTokens('other')).map((listed) => listed.id)).toEqual(['tok_other_preview_old']);
  });
});

describe.runIf(testBackend() === 'embedded')('SqliteStore migration 14 (purpose demo)', () => {
  test('a database of migration 13 with tokens: upgraded at open, its tokens kept as they were, a demo token then stored', async () => {
    // Arrange
    const folder = await mkdtemp(join(tmpdir(), 'kb-sqlite-migration-test-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'kb.sqlite');
    const old = new BetterSqlite3(path);
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const migration of SQLITE_MIGRATIONS.filter((candidate) => candidate.version <= 13)) {
      old.exec(migration.sql);
      old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, START);
    }
    old.prepare("INSERT INTO users (id, email, name, created_at) VALUES ('usr_old', 'old@example.com', 'Old', ?)").run(START);
    old.prepare("INSERT INTO knowledge_bases (id, name, created_at) VALUES ('kb', 'KB', ?)").run(START);
    const insert = old.prepare(
      `INSERT INTO tokens (id, kb_id, issuer_id, token_hash, allowed_origins, scope, created_at, expires_at, revoked_at, last_used_at, purpose)
       VALUES (?, 'kb', 'usr_old', ?, '["https://docs.example.com"]', '["public"]', ?, ?, ?, ?, ?)`,
    );
    insert.run('tok_embed', 'e'.repeat(64), START, START + 60 * MINUTE, START + MINUTE, START + 2 * MINUTE, 'embed');
    insert.run('tok_preview', 'f'.repeat(64), START + MINUTE, START + 11 * MINUTE, null, null, 'preview');
    expect(() => insert.run('tok_demo_early', 'd'.repeat(64), START, START + 1, null, null, 'demo')).toThrow(/CHECK/);
    old.close();

    // Act
    const store = openSqliteStore({ path, now: () => START });
    onTestFinished(() => store.close());
    await store.insertToken(token('usr_old', { id: 'tok_demo', purpose: 'demo', kbId: 'kb', createdAt: START + 2 * MINUTE }));

    // Assert
    expect(await store.listTokens('kb')).toEqual([
      {
        id: 'tok_embed',
        kbId: 'kb',
        issuerId: 'usr_old',
        tokenHash: 'e'.repeat(64),
        allowedOrigins: ['https://docs.example.com'],
        scope: ['public'],
        purpose: 'embed',
        createdAt: START,
        expiresAt: START + 60 * MINUTE,
        revokedAt: START + MINUTE,
        lastUsedAt: START + 2 * MINUTE,
      },
      expect.objectContaining({ id: 'tok_preview', purpose: 'preview' }),
      expect.objectContaining({ id: 'tok_demo', purpose: 'demo' }),
    ]);
    await expect(store.insertToken(token('usr_old', { id: 'tok_odd', kbId: 'kb', purpose: 'odd' as TokenRecord['purpose'] }))).rejects.toThrow();
  });
});

describe.runIf(testBackend() === 'postgres')('PostgresStore migration 8 (purpose demo)', () => {
  test('a schema of migration 7 with a preview token: upgraded at open, the token kept, a demo token then stored', async () => {
    // Arrange
    const schema = `t_${randomBytes(6).toString('hex')}`;
    let store: Store | undefined;
    onTestFinished(async () => {
      await store?.close();
      await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });
    const before = POSTGRES_MIGRATIONS.filter((migration) => migration.version <= 7);
    await adminQuery(`CREATE SCHEMA ${schema}`);
    // SET LOCAL: the admin connection is shared by the whole run; its search path must not change.
    await adminQuery(`BEGIN; SET LOCAL search_path TO ${schema}; ${before.map((migration) => migration.sql).join('\n')}
      CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL);
      INSERT INTO schema_migrations SELECT unnest(ARRAY[${before.map((migration) => migration.version).join(', ')}]), 0;
      INSERT INTO users (id, email, name, created_at) VALUES ('usr_old', 'old@example.com', 'Old', 0);
      INSERT INTO knowledge_bases (id, name, created_at) VALUES ('kb', 'KB', 0);
      INSERT INTO tokens (id, kb_id, issuer_id, token_hash, allowed_origins, scope, purpose, created_at, expires_at)
        VALUES ('tok_preview', 'kb', 'usr_old', '${'f'.repeat(64)}', ARRAY['http://localhost:8787'], ARRAY['public'], 'preview', ${START}, ${START + 10 * MINUTE});
      COMMIT;`);

    // Act
    store = openPostgresStore({ url: testDatabaseUrl(), schema, maxConnections: 2 });
    await store.insertToken(token('usr_old', { id: 'tok_demo', purpose: 'demo', kbId: 'kb', createdAt: START + MINUTE }));

    // Assert
    expect((await store.listTokens('kb')).map((listed) => [listed.id, listed.purpose])).toEqual([
      ['tok_preview', 'preview'],
      ['tok_demo', 'demo'],
    ]);
    await expect(store.insertToken(token('usr_old', { id: 'tok_odd', kbId: 'kb', purpose: 'odd' as TokenRecord['purpose'] }))).rejects.toThrow();
  });
});
