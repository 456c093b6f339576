import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import type { KnowledgeBaseIndex, ReachStatistics } from '../index/index-data.ts';
import { sharedRepositories, type SharedRepositories } from '../shared-repositories.ts';
import { sqliteBulkWrites } from './sqlite-bulk-writes.ts';
import { prepareIndexReads, type SqliteIndexReads } from './sqlite-index.ts';
import { SQLITE_MIGRATIONS } from './sqlite-schema.ts';
import { nestedTransaction, SQLITE_DIALECT, type SqlExecutor, type TransactionOptions } from '../sql-executor.ts';
import type { Store } from '../store.ts';
import type { Reach, ScoredPassage, StoredPassage } from '../passages/passages.ts';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../../errors.ts';
/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file path; its folder is created when missing. */
  path: string;
  /** Clock in epoch milliseconds; injectable for tests. */
  now?: () => number;
}

/**
 * Opens (creating when needed) the embedded store: SQLite through
 * better-sqlite3 in WAL mode, so the CLI and the answer workers can read
 * while another connection writes. Calls are synchronous underneath: open
 * one store per thread.
 * Migrations are applied in a transaction at open.
 *
 * @throws StoreUnavailableError when the file cannot be opened
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  let database: Database;
  try {
    mkdirSync(dirname(options.path), { recursive: true });
    database = new BetterSqlite3(options.path);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    migrate(database);
  } catch (error) {
    throw new StoreUnavailableError(`Cannot open the database at "${options.path}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  return new SqliteStore(database, options);
}

function migrate(database: Database): void {
  database.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set(
    database.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all().map((row) => row.version),
  );
  for (const migration of SQLITE_MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    database.transaction(() => {
      database.exec(migration.sql);
      database.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, Date.now());
    }).immediate();
  }
}

/** The repositories written once for both backends over the SQL executor, taken as they are. */
interface SqliteStore extends SharedRepositories {}

/**
 * The embedded store: the repositories written once for both backends over
 * an executor on this connection, and the index reads prepared on it
 * (sqlite-index.ts). better-sqlite3 runs each statement synchronously; a
 * transaction's work is asynchronous, so while one is open the connection is
 * held: every other call waits for it to end, instead of running inside it.
 */
class SqliteStore implements Store {
  readonly #database: Database;
  readonly #index: SqliteIndexReads;
  readonly #statements = new Map<string, Statement>();
  /** Settles when the open transaction ends; undefined while none is open. */
  #held: Promise<void> | undefined;
  /** The executor handed to a transaction's work: its statements run on the held connection. */
  readonly #inTransaction: SqlExecutor;

  constructor(database: Database, options: SqliteStoreOptions) {
    this.#database = database;
    this.#index = prepareIndexReads(database);
    const now = options.now ?? Date.now;
    const executor = (call: <T>(work: () => T) => Promise<T>): SqlExecutor => ({
      dialect: SQLITE_DIALECT,
      all: <Row>(text: string, params: readonly unknown[] = []) => call(() => this.#prepare(text).all(...params) as Row[]),
      get: <Row>(text: string, params: readonly unknown[] = []) => call(() => this.#prepare(text).get(...params) as Row | undefined),
      run: (text: string, params: readonly unknown[] = []) => call(() => this.#prepare(text).run(...params).changes),
      transaction: (work, transactionOptions) => this.#transaction(work, transactionOptions),
    });
    const sql = executor((work) => this.#call(work));
    const inTransaction: SqlExecutor = { ...executor((work) => this.#direct(work)), transaction: (work) => nestedTransaction(inTransaction, work) };
    this.#inTransaction = inTransaction;
    Object.assign(this, sharedRepositories(sql, sqliteBulkWrites((text) => this.#prepare(text), (work) => this.#direct(work)), now));
  }

  /** Prepares a statement once per connection and reuses it. */
  #prepare(sql: string): Statement<unknown[]> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement as Statement<unknown[]>;
  }

  /** Runs a synchronous database call now, translating driver failures into store errors. */
  #direct<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(translateError(error));
    }
  }

  /** Runs a synchronous database call once no transaction holds the connection. */
  #call<T>(work: () => T): Promise<T> {
    return this.#held === undefined ? this.#direct(work) : this.#held.then(() => this.#call(work));
  }

  /**
   * Runs `work` in one transaction, holding the connection until it ends: a
   * write transaction (`BEGIN IMMEDIATE`: the database's write lock is taken
   * at once, waiting up to the busy timeout for another process), or a
   * deferred one that only reads.
   */
  async #transaction<T>(work: (transaction: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    while (this.#held !== undefined) await this.#held;
    let release!: () => void;
    this.#held = new Promise((resolve) => (release = resolve));
    try {
      await this.#direct(() => this.#database.exec(options.readOnly ? 'BEGIN DEFERRED' : 'BEGIN IMMEDIATE'));
      const result = await work(this.#inTransaction);
      await this.#direct(() => this.#database.exec('COMMIT'));
      return result;
    } catch (error) {
      if (this.#database.open && this.#database.inTransaction) this.#database.exec('ROLLBACK');
      throw error;
    } finally {
      this.#held = undefined;
      release();
    }
  }

  reachStatistics(reach: Reach): Promise<ReachStatistics> {
    return this.#call(() => this.#index.reachStatistics(reach));
  }

  readIndex(kbId: string, maxPostings: number): Promise<KnowledgeBaseIndex | undefined> {
    return this.#call(() => this.#index.readIndex(kbId, maxPostings));
  }

  readTermIndex(kbId: string, terms: readonly string[]): Promise<KnowledgeBaseIndex> {
    return this.#call(() => this.#index.readTermIndex(kbId, terms));
  }

  passagesById(kbId: string, chunkIds: readonly number[]): Promise<StoredPassage[]> {
    return this.#call(() => this.#index.passagesById(kbId, chunkIds));
  }

  passagesOf(reach: Reach, docId: string, heading?: string): Promise<ScoredPassage[]> {
    return this.#call(() => this.#index.passagesOf(reach, docId, heading));
  }

  countPassages(reach: Reach, docId: string): Promise<number> {
    return this.#call(() => this.#index.countPassages(reach, docId));
  }

  refreshPlannerStatistics(): Promise<void> {
    return this.#call(() => {
      this.#database.pragma('optimize');
    });
  }

  ping(): Promise<void> {
    return this.#call(() => {
      this.#prepare('SELECT 1').get();
    });
  }

  async close(): Promise<void> {
    if (this.#database.open) this.#database.close();
  }
}

function translateError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  if (error instanceof NotFoundError || error instanceof ConflictError || error instanceof StoreUnavailableError) {
    return error;
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT_UNIQUE')) {
    return new ConflictError(error.message, { cause: error });
  }
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new ConflictError(error.message, { cause: error });
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_CANTOPEN' || /connection is not open|database is closed/i.test(error.message)) {
    return new StoreUnavailableError(error.message, { cause: error });
  }
  return error;
}
