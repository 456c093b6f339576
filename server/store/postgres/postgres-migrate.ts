import type { Pool } from 'pg';
import { POSTGRES_MIGRATIONS } from './postgres-schema.ts';

/**
 * Key of the transaction-level advisory lock that serializes migrations, per
 * schema (`hashtextextended` of a fixed prefix and the schema's name, `$1`),
 * so replicas starting at once on one database migrate one after the other
 * and separate schemas (tests) never wait for each other.
 */
const LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended('kb-widget schema_migrations ' || $1::text, 0))";

/** Options of {@link migratePostgres}. */
export interface MigrateOptions {
  /** Schema the pool's `search_path` points at, created when missing; default: the connection's `current_schema()`. */
  schema?: string;
  /** Clock for `applied_at`, epoch milliseconds. */
  now?: () => number;
}

/**
 * Applies the pending {@link POSTGRES_MIGRATIONS} in one transaction, holding
 * `pg_advisory_xact_lock` from before `schema_migrations` is read until the
 * commit: a second replica blocks on the lock, then finds every version
 * recorded and does nothing. PostgreSQL's DDL is transactional, so a failed
 * migration leaves the schema as it was. The `statement_timeout` of the
 * pool's connections is lifted for this transaction only.
 *
 * @returns the versions applied now (empty when the schema was up to date)
 * @throws the driver's error when the database cannot be reached or a migration fails
 */
export async function migratePostgres(pool: Pool, options: MigrateOptions = {}): Promise<number[]> {
  const now = options.now ?? Date.now;
  const client = await pool.connect();
  // A dropped connection also emits 'error' on the checked-out client: not a crash.
  const ignoreDrop = () => undefined;
  client.on('error', ignoreDrop);
  let failed: unknown;
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL statement_timeout = 0');
    const schema =
      options.schema ?? (await client.query<{ schema: string | null }>('SELECT current_schema() AS schema')).rows[0]?.schema ?? 'public';
    await client.query(LOCK_SQL, [schema]);
    // Only when missing: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the database even when the schema exists.
    if (options.schema !== undefined && (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema])).rowCount === 0) {
      await client.query(`CREATE SCHEMA ${quoteIdentifier(options.schema)}`);
    }
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const pending = POSTGRES_MIGRATIONS.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [migration.version, now()]);
    }
    await client.query('COMMIT');
    return pending.map((migration) => migration.version);
  } catch (error) {
    failed = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    // A connection that failed mid-transaction is not reused.
    client.off('error', ignoreDrop);
    client.release(failed instanceof Error ? failed : undefined);
  }
}

/** Double-quotes an SQL identifier (https://www.postgresql.org/docs/15/sql-syntax-lexical.html). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
