import { StoreUnavailableError } from '../errors.ts';

/**
 * What a repository written once for both backends needs of a database
 * (workspace/workspace-repository.ts, documents/document-repository.ts, ...): statements with
 * `?` placeholders, their failures already translated into the store's
 * errors, and transactions. The SQLite store runs them through
 * better-sqlite3, the PostgreSQL store on its pool (placeholders numbered
 * `$1`, `$2`, ... there); only what the two dialects spell differently is
 * asked of {@link SqlDialect}.
 */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** The rows of a query. */
  all<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The first row of a query, or undefined. */
  get<Row>(sql: string, params?: readonly unknown[]): Promise<Row | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Runs `work` in one transaction, its statements on the executor it is
   * handed: committed when `work` resolves, rolled back when it throws (the
   * previous state stays intact), the error passed on. On a transaction's
   * own executor this opens a savepoint instead ({@link nestedTransaction}):
   * only the nested work is rolled back.
   *
   * Inside `work`, use only the executor handed to it: on the embedded store
   * other calls wait for the transaction to end.
   *
   * @param options.readOnly reads only, all from one snapshot: PostgreSQL's
   *   `REPEATABLE READ READ ONLY`; SQLite's deferred transaction, which takes
   *   no write lock
   */
  transaction<T>(work: (transaction: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** Options of {@link SqlExecutor.transaction}. */
export interface TransactionOptions {
  readOnly?: boolean;
}

/** The spellings that differ between SQLite and PostgreSQL. */
export interface SqlDialect {
  /** The larger of two values: `MAX(a, b)` in SQLite, `GREATEST(a, b)` in PostgreSQL. */
  greatest(left: string, right: string): string;
  /** A list as a parameter or column value: JSON text in SQLite, an array (`text[]`, `bigint[]`) in PostgreSQL. */
  writeList(values: readonly (string | number)[]): unknown;
  /** A list column's (or {@link aggregateList}'s) value as the strings it holds; null is the empty list. */
  readList(value: unknown): string[];
  /** A boolean as a parameter: 0 or 1 in SQLite, a boolean in PostgreSQL. */
  writeBoolean(value: boolean): unknown;
  /** `column` is one of the values of a {@link writeList} parameter, `?` unless another placeholder is given. */
  memberOf(column: string, placeholder?: string): string;
  /** The values of `expression` over a group as one {@link readList} value. */
  aggregateList(expression: string): string;
  /** Some element of the text-list column `column` contains the text parameter `?` (case-sensitive, no wildcards). */
  listElementContains(column: string): string;
  /** Appended to a `SELECT` that locks the rows it reads until the transaction ends (`FOR UPDATE`); nothing in SQLite, whose writers take turns. */
  readonly forUpdate: string;
}

export const SQLITE_DIALECT: SqlDialect = {
  greatest: (left, right) => `MAX(${left}, ${right})`,
  writeList: (values) => JSON.stringify(values),
  readList: (value) => (value === null || value === undefined ? [] : (JSON.parse(String(value)) as string[])),
  writeBoolean: (value) => (value ? 1 : 0),
  memberOf: (column, placeholder = '?') => `${column} IN (SELECT value FROM json_each(${placeholder}))`,
  aggregateList: (expression) => `json_group_array(${expression})`,
  listElementContains: (column) => `EXISTS (SELECT 1 FROM json_each(${column}) WHERE instr(json_each.value, ?) > 0)`,
  forUpdate: '',
};
export const POSTGRES_DIALECT: SqlDialect = {
  greatest: (left, right) => `GREATEST(${left}, ${right})`,
  writeList: (values) => [...values],
  readList: (value) => (value === null || value === undefined ? [] : (value as string[])),
  writeBoolean: (value) => value,
  memberOf: (column, placeholder = '?') => `${column} = ANY(${placeholder})`,
  aggregateList: (expression) => `array_agg(${expression})`,
  listElementContains: (column) => `EXISTS (SELECT 1 FROM unnest(${column}) AS element WHERE strpos(element, ?) > 0)`,
  forUpdate: ' FOR UPDATE',
};

/**
 * A statement with `?` placeholders in PostgreSQL's numbered form: the n-th
 * `?` becomes `$n`. (No statement of the shared repositories holds a `?`
 * inside a string literal.)
 */
export function numberedPlaceholders(sql: string): string {
  let position = 0;
  return sql.replace(/\?/g, () => `$${(position += 1)}`);
}

/**
 * A transaction nested in an open one, as a savepoint (the same SQL in both
 * dialects): released when `work` resolves; rolled back to, then released,
 * when it throws, unless the database itself failed (then the whole
 * transaction is lost anyway). The error is passed on.
 *
 * @param transaction the open transaction's executor
 */
export async function nestedTransaction<T>(transaction: SqlExecutor, work: (transaction: SqlExecutor) => Promise<T>): Promise<T> {
  await transaction.run('SAVEPOINT nested');
  try {
    const result = await work(transaction);
    await transaction.run('RELEASE SAVEPOINT nested');
    return result;
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) {
      await transaction.run('ROLLBACK TO SAVEPOINT nested');
      await transaction.run('RELEASE SAVEPOINT nested');
    }
    throw error;
  }
}
