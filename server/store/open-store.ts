import { join } from 'node:path';
import { openSqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

/** File name of the embedded database inside the data folder. */
export const DATABASE_FILE = 'kb.sqlite';

/**
 * Opens the configured store: the embedded SQLite store under `dataDir`.
 * (A PostgreSQL backend selected by `DATABASE_URL` implements the same
 * interface in a later release.)
 *
 * @param retrievalThreads worker threads for searches; 0 for short-lived tools
 */
export function openStore(options: { dataDir: string; retrievalThreads: number; now?: () => number }): Store {
  const sqliteOptions = { path: join(options.dataDir, DATABASE_FILE), retrievalThreads: options.retrievalThreads };
  return openSqliteStore(options.now ? { ...sqliteOptions, now: options.now } : sqliteOptions);
}
