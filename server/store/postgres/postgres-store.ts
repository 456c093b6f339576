import pg, { type CustomTypesConfig, type Pool, type PoolClient, type QueryResultRow } from 'pg';
import type { KnowledgeBaseIndex, ReachStatistics } from '../index/index-data.ts';
import { POSTGRES_BULK_WRITES } from './postgres-bulk-writes.ts';
import { translatePostgresError } from './postgres-errors.ts';
import { countPostgresPassages, readPostgresIndex, readPostgresPassagesById, readPostgresPassagesOf, readPostgresTermIndex, readReachStatistics, type Queryable } from './postgres-index.ts';
import { migratePostgres } from './postgres-migrate.ts';
import { sharedRepositories, type SharedRepositories } from '../shared-repositories.ts';
import { nestedTransaction, numberedPlaceholders, POSTGRES_DIALECT, type SqlExecutor } from '../sql-executor.ts';
import type { Store } from '../store.ts';
import type { Reach, ScoredPassage, StoredPassage } from '../passages/passages.ts';
import { StoreUnavailableError } from '../../errors.ts';

/** Connection pool settings of the PostgreSQL store (docs/operations.md "PostgreSQL"). */
export interface PostgresPoolSettings {
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Longest wait for a connection, milliseconds (default 5,000): then the call fails as unavailable. */
  connectionTimeoutMs?: number;
  /** An idle connection is closed after this many milliseconds (default 30,000). */
  idleTimeoutMs?: number;
  /** `statement_timeout` of every connection, milliseconds (default 5,000; 0 = none). */
  statementTimeoutMs?: number;
  /**
   * Longest wait for a query's reply, measured by this process, milliseconds
   * (default 5,000; 0 = none): then the query fails as unavailable and its
   * connection is dropped. `statement_timeout` cannot do this: it is enforced
   * by the server, and a database that accepts connections but never answers
   * (a hung server, a black-holed network path) never saw the query.
   */
  queryTimeoutMs?: number;
}

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions extends PostgresPoolSettings {
  /** `postgres://user:password@host:port/database?...` (libpq URL, as `DATABASE_URL`). */
  url: string;
  /**
   * Schema holding the tables (the connections' `search_path`), created when
   * missing; default: the database's default search path (`public`).
   * Lowercase letters, digits and `_` only.
   */
  schema?: string;
  /** Clock in epoch milliseconds (record times); injectable for tests. */
  now?: () => number;
  /** `application_name` shown in `pg_stat_activity` (default `kb-widget`). */
  applicationName?: string;
}

/** Pool defaults: one server process, a handful of concurrent questions, nothing waits long. */
export const POSTGRES_POOL_DEFAULTS: Required<PostgresPoolSettings> = {
  maxConnections: 10,
  connectionTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  statementTimeoutMs: 5_000,
  queryTimeoutMs: 5_000,
};

/** Unquoted identifiers only: the same name in `search_path` and in `CREATE SCHEMA`. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Type parsers of the store's connections: `bigint` (ids, epoch-millisecond
 * times, counts) as a JS number, every value the store keeps being below
 * 2^53; every other type as node-postgres parses it.
 */
export const POSTGRES_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

/**
 * Opens the PostgreSQL store: a `pg.Pool` (limits in {@link PostgresPoolSettings},
 * `statement_timeout` set on each connection, `application_name`), whose
 * schema is migrated lazily, on the first call, behind one promise
 * (postgres-migrate.ts; a failed attempt is retried by the next call, so a
 * server started before its database recovers by itself). Opening is
 * synchronous and never fails for an unreachable database: calls do, with
 * StoreUnavailableError.
 *
 * @throws Error for a malformed `schema` name
 */
export function openPostgresStore(options: PostgresStoreOptions): Store {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`Schema name "${options.schema}" is not allowed: use lowercase letters, digits and _ only`);
  }
  const statementTimeoutMs = options.statementTimeoutMs ?? POSTGRES_POOL_DEFAULTS.statementTimeoutMs;
  const queryTimeoutMs = options.queryTimeoutMs ?? POSTGRES_POOL_DEFAULTS.queryTimeoutMs;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? POSTGRES_POOL_DEFAULTS.maxConnections,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? POSTGRES_POOL_DEFAULTS.connectionTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs ?? POSTGRES_POOL_DEFAULTS.idleTimeoutMs,
    statement_timeout: statementTimeoutMs,
    // node-postgres rejects a query with "Query read timeout" after this; the
    // failed connection is then released with its error, so the pool drops it.
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
    // A transaction left open by a stuck process must not hold its locks for long.
    idle_in_transaction_session_timeout: Math.max(statementTimeoutMs * 2, 10_000),
    application_name: options.applicationName ?? 'kb-widget',
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
    types: POSTGRES_TYPES,
    keepAlive: true,
    // A command line process exits once its work is done, idle connections or not.
    allowExitOnIdle: true,
  });
  // An idle connection the server drops (restart, pg_terminate_backend) is
  // reported here and removed from the pool; without a listener the process would crash.
  pool.on('error', () => undefined);
  return new PostgresStore(pool, options);
}

/** The repositories written once for both backends over the SQL executor, taken as they are. */
interface PostgresStore extends SharedRepositories {}

class PostgresStore implements Store {
  readonly #pool: Pool;
  readonly #now: () => number;
  readonly #schema: string | undefined;
  #migrated: Promise<void> | undefined;
  #closed = false;

  constructor(pool: Pool, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#now = options.now ?? Date.now;
    this.#schema = options.schema;
    // Start migrating now; a failure here is reported by the first call instead.
    this.#ready().catch(() => undefined);
    const now = options.now ?? Date.now;
    const sql: SqlExecutor = {
      ...queries((work) => this.#call(work)),
      transaction: (work, transactionOptions) =>
        this.#transaction((client) => {
          const inTransaction: SqlExecutor = {
            ...queries(async (query) => {
              try {
                return await query(client);
              } catch (error) {
                throw translatePostgresError(error);
              }
            }),
            transaction: (nested) => nestedTransaction(inTransaction, nested),
          };
          return work(inTransaction);
        }, { snapshot: transactionOptions?.readOnly === true }),
    };
    Object.assign(this, sharedRepositories(sql, POSTGRES_BULK_WRITES, now));
  }

  /** Resolves once the schema is migrated; a failed attempt is forgotten so the next call tries again. */
  #ready(): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError('The store is closed'));
    this.#migrated ??= migratePostgres(this.#pool, {
      ...(this.#schema === undefined ? {} : { schema: this.#schema }),
    }).then(
      () => undefined,
      (error: unknown) => {
        this.#migrated = undefined;
        throw translatePostgresError(error);
      },
    );
    return this.#migrated;
  }

  /** Runs `work` on the pool (one statement at a time, autocommit), translating failures. */
  async #call<T>(work: (database: Queryable) => Promise<T>): Promise<T> {
    try {
      await this.#ready();
      return await work(this.#pool);
    } catch (error) {
      throw this.#closed ? new StoreUnavailableError('The store is closed', { cause: error }) : translatePostgresError(error);
    }
  }

  /**
   * Runs `work` in one transaction on one connection: COMMIT when it
   * resolves, ROLLBACK when it throws (the previous state stays intact). A
   * connection that failed is discarded, not returned to the pool.
   *
   * @param options.snapshot a `REPEATABLE READ READ ONLY` transaction: every
   *   query of `work` sees one snapshot, taken at its first query, and none writes
   */
  async #transaction<T>(work: (client: PoolClient) => Promise<T>, options: { snapshot?: boolean } = {}): Promise<T> {
    return this.#call(async () => {
      const client = await this.#pool.connect();
      // A checked-out client whose connection drops emits 'error' besides
      // failing its query; the pool listens only while it is idle, so
      // without this listener the process would crash on a database restart.
      const ignoreDrop = () => undefined;
      client.on('error', ignoreDrop);
      let failed: Error | undefined;
      try {
        await client.query(options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        failed = error instanceof Error ? error : new Error(String(error));
        // A connection that failed as unavailable (dropped, or silent past the
        // query timeout) is discarded below: the server rolls back a
        // transaction whose connection ends, and a ROLLBACK sent on it would
        // only wait out another timeout.
        if (!(translatePostgresError(failed) instanceof StoreUnavailableError)) await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.off('error', ignoreDrop);
        client.release(failed !== undefined && translatePostgresError(failed) instanceof StoreUnavailableError ? failed : undefined);
      }
    });
  }

  reachStatistics(reach: Reach): Promise<ReachStatistics> {
    return this.#call((database) => readReachStatistics(database, reach));
  }

  readIndex(kbId: string, maxPostings: number): Promise<KnowledgeBaseIndex | undefined> {
    return this.#transaction((client) => readPostgresIndex(client, kbId, maxPostings), { snapshot: true });
  }

  readTermIndex(kbId: string, terms: readonly string[]): Promise<KnowledgeBaseIndex> {
    return this.#transaction((client) => readPostgresTermIndex(client, kbId, terms), { snapshot: true });
  }

  passagesById(kbId: string, chunkIds: readonly number[]): Promise<StoredPassage[]> {
    return this.#call((database) => readPostgresPassagesById(database, kbId, chunkIds));
  }

  passagesOf(reach: Reach, docId: string, heading?: string): Promise<ScoredPassage[]> {
    return this.#call((database) => readPostgresPassagesOf(database, reach, docId, heading));
  }

  countPassages(reach: Reach, docId: string): Promise<number> {
    return this.#call((database) => countPostgresPassages(database, reach, docId));
  }

  refreshPlannerStatistics(): Promise<void> {
    return this.#call(async (database) => {
      await database.query('ANALYZE documents, chunks, index_segments, segment_terms, segment_deletions');
    });
  }

  ping(): Promise<void> {
    return this.#call(async (database) => {
      await database.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

/**
 * The statements of an executor, run through `call` on a connection it
 * provides (the pool, or a transaction's client), `?` placeholders numbered.
 */
function queries(call: <T>(query: (database: Queryable) => Promise<T>) => Promise<T>): Omit<SqlExecutor, 'transaction'> {
  const all = <Row>(text: string, params: readonly unknown[] = []) =>
    call(async (database) => (await database.query<Row & QueryResultRow>(numberedPlaceholders(text), [...params])).rows as Row[]);
  return {
    dialect: POSTGRES_DIALECT,
    all,
    get: async <Row>(text: string, params?: readonly unknown[]) => (await all<Row>(text, params))[0],
    run: (text: string, params: readonly unknown[] = []) =>
      call(async (database) => (await database.query(numberedPlaceholders(text), [...params])).rowCount ?? 0),
  };
}
