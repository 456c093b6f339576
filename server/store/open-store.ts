import { join } from 'node:path';
import { openSqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

/** File name of the embedded database inside the data folder. */
export const DATABASE_FILE = 'kb.sqlite';

/**
 * Where a store lives, as plain data: enough for another thread (an answer
 * worker) to open its own connection to the same store. A PostgreSQL
 * location selected by `DATABASE_URL` joins this union in a later release.
 */
export type StoreLocation = { kind: 'sqlite'; path: string };

/** @returns the location of the embedded store in a data folder */
export function embeddedStoreLocation(dataDir: string): StoreLocation {
  return { kind: 'sqlite', path: join(dataDir, DATABASE_FILE) };
}

/**
 * Opens a connection to the store at `location`.
 *
 * @param now clock in epoch milliseconds (for record times); injectable for tests
 * @throws StoreUnavailableError when it cannot be opened
 */
export function openStore(location: StoreLocation, now?: () => number): Store {
  return openSqliteStore(now ? { path: location.path, now } : { path: location.path });
}
