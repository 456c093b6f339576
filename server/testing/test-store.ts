import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { embeddedStoreLocation, openStore, type StoreLocation } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';

/**
 * Stores for tests, on the backend the test run selects (docs/design-decisions.md "Storage":
 * one suite, two backends): the embedded SQLite store by default, PostgreSQL
 * when `KB_TEST_BACKEND=postgres` (the `postgres` project of vite.config.ts
 * sets it and creates a database for the run,
 * server/testing/postgres-test-database.ts). Each PostgreSQL test store gets
 * a schema `t_<random>` of that database to itself, emptied when disposed
 * (and then reused by a later store of the same test file).
 */

/** The backend store-using tests run against. */
export type TestBackend = 'embedded' | 'postgres';

/** @returns `postgres` when `KB_TEST_BACKEND=postgres`, else `embedded` */
export function testBackend(): TestBackend {
  return process.env.KB_TEST_BACKEND === 'postgres' ? 'postgres' : 'embedded';
}

/** A fresh, empty store location and how to remove what it holds. */
export interface TestStoreLocation {
  location: StoreLocation;
  /**
   * Empties the PostgreSQL schema for a later test (close every store opened
   * on it first); nothing for the embedded store, whose file lives in the caller's folder.
   */
  dispose(): Promise<void>;
}

/** Connections per PostgreSQL test store: tests run several files at once on one server. */
const TEST_POOL_SIZE = 4;

let adminPool: pg.Pool | undefined;

/** URL of the run's PostgreSQL test database (`KB_TEST_DATABASE_URL` overrides what the global setup provides). */
export function testDatabaseUrl(): string {
  const url = process.env.KB_TEST_DATABASE_URL ?? inject('kbTestDatabaseUrl');
  if (!url) throw new Error('KB_TEST_BACKEND=postgres needs the postgres test project (vite.config.ts) or KB_TEST_DATABASE_URL');
  return url;
}

/**
 * Runs one statement on the run's PostgreSQL test database, outside any
 * store (creating and dropping schemas, inspecting what a store wrote).
 *
 * @returns the rows it selected
 */
export async function adminQuery<Row extends Record<string, unknown> = Record<string, unknown>>(
  sql: string,
  values: unknown[] = [],
): Promise<Row[]> {
  adminPool ??= new pg.Pool({ connectionString: testDatabaseUrl(), max: 1, allowExitOnIdle: true });
  return (await adminPool.query<Row>(sql, values)).rows;
}

/**
 * A new, empty location for a store on the selected backend.
 *
 * @param folder where the embedded database file goes (the caller removes it)
 */
export async function createTestStoreLocation(folder: string): Promise<TestStoreLocation> {
  if (testBackend() === 'embedded') return { location: embeddedStoreLocation(folder), dispose: async () => undefined };
  let schema = spareSchemas.pop();
  if (schema === undefined) {
    schema = `t_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE SCHEMA ${schema}`);
  }
  const name = schema;
  return {
    location: { kind: 'postgres', url: testDatabaseUrl(), schema: name, maxConnections: TEST_POOL_SIZE },
    dispose: async () => {
      try {
        await emptySchema(name);
        spareSchemas.push(name);
      } catch {
        await adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      }
    },
  };
}

/**
 * Schemas emptied by their test, ready for the next one of this test file's
 * process: emptying the migrated tables (a few ms) is cheaper than creating
 * and migrating a schema (about 50 ms), which counts in property tests that
 * build hundreds of fresh stores. The run's database is dropped at its end.
 */
const spareSchemas: string[] = [];

/** Deletes every row but the migration records, and restarts the identity sequences: as good as new. */
async function emptySchema(schema: string): Promise<void> {
  const tables = await adminQuery<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'",
    [schema],
  );
  const sequences = await adminQuery<{ name: string }>('SELECT sequencename AS name FROM pg_sequences WHERE schemaname = $1', [schema]);
  // One implicit transaction; every foreign key of the schema cascades or sets null, so any order works.
  await adminQuery(
    [
      "SET LOCAL lock_timeout = '2s'",
      ...tables.map((table) => `DELETE FROM ${schema}.${table.name}`),
      ...sequences.map((sequence) => `ALTER SEQUENCE ${schema}.${sequence.name} RESTART`),
    ].join(';\n'),
  );
}

/** A test's own store, removed by {@link TestStore.close}. */
export interface TestStore {
  store: Store;
  location: StoreLocation;
  /** The temporary folder (the embedded database lives in it; free for the test's files too). */
  folder: string;
  /** Opens another store (another connection or pool) on the same database, closed with this one. */
  reopen(): Store;
  /** Closes every store opened here and removes the database (schema or file). Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens a fresh, empty store on the selected backend.
 *
 * @param options.now clock for record times (default `Date.now`)
 */
export async function openTestStore(options: { now?: () => number } = {}): Promise<TestStore> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-test-store-'));
  const { location, dispose } = await createTestStoreLocation(folder);
  const opened: Store[] = [];
  const reopen = (): Store => {
    const store = openStore(location, options.now);
    opened.push(store);
    return store;
  };
  let closed = false;
  return {
    store: reopen(),
    location,
    folder,
    reopen,
    async close() {
      if (closed) return;
      closed = true;
      for (const store of opened) await store.close();
      await dispose();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
