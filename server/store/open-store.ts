import { join } from 'node:path';
import { openPostgresStore, type PostgresPoolSettings } from './postgres/postgres-store.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/** File name of the embedded database inside the data folder. */
export const DATABASE_FILE = 'kb.sqlite';

/**
 * Where a store lives, as plain data: enough for another thread (an answer
 * worker) to open its own connection to the same store.
 * - `sqlite`: the embedded database file (the default, `KB_DATA_DIR`);
 * - `postgres`: a PostgreSQL database (`DATABASE_URL`), optionally one schema
 *   of it, with the pool settings of postgres/postgres-store.ts.
 */
export type StoreLocation =
  | { kind: 'sqlite'; path: string }
  | ({ kind: 'postgres'; url: string; schema?: string } & PostgresPoolSettings);

/** @returns the location of the embedded store in a data folder */
export function embeddedStoreLocation(dataDir: string): StoreLocation {
  return { kind: 'sqlite', path: join(dataDir, DATABASE_FILE) };
}

/**
 * Opens a connection to the store at `location` (for PostgreSQL, a pool whose
 * schema is migrated on first use: opening never waits for the database).
 *
 * @param now clock in epoch milliseconds (for record times); injectable for tests
 * @throws StoreUnavailableError when an embedded database cannot be opened
 */
export function openStore(location: StoreLocation, now?: () => number): Store {
  switch (location.kind) {
    case 'sqlite':
      return openSqliteStore(now ? { path: location.path, now } : { path: location.path });
    case 'postgres': {
      const { kind: _kind, ...options } = location;
      return openPostgresStore(now ? { ...options, now } : options);
    }
  }
}

/** Human-readable location for start-up messages, without the URL's password. */
export function describeStoreLocation(location: StoreLocation): string {
  if (location.kind === 'sqlite') return location.path;
  let shown: string;
  try {
    const url = new URL(location.url);
    if (url.password !== '') url.password = '***';
    shown = url.toString();
  } catch {
    shown = 'PostgreSQL (DATABASE_URL)';
  }
  return location.schema === undefined ? shown : `${shown} (schema ${location.schema})`;
}
