/**
 * What a repository written once for both backends needs of a database
 * (server/store/shared-repositories.ts): statements with `?` placeholders,
 * run one at a time, their failures already translated into the store's
 * errors. The SQLite store runs them through better-sqlite3, the PostgreSQL
 * store on its pool (placeholders numbered `$1`, `$2`, ... there); only
 * what the two dialects spell differently is asked of {@link SqlDialect}.
 */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** The rows of a query. */
  all<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The first row of a query, or undefined. */
  get<Row>(sql: string, params?: readonly unknown[]): Promise<Row | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** The spellings that differ between SQLite and PostgreSQL. */
export interface SqlDialect {
  /** The larger of two values: `MAX(a, b)` in SQLite, `GREATEST(a, b)` in PostgreSQL. */
  greatest(left: string, right: string): string;
  /** A list of strings as a column value: JSON text in SQLite, an array (`text[]`) in PostgreSQL. */
  writeList(values: readonly string[]): unknown;
  /** A list column's value as the strings it holds. */
  readList(value: unknown): string[];
}

export const SQLITE_DIALECT: SqlDialect = {
  greatest: (left, right) => `MAX(${left}, ${right})`,
  writeList: (values) => JSON.stringify(values),
  readList: (value) => JSON.parse(String(value)) as string[],
};
export const POSTGRES_DIALECT: SqlDialect = {
  greatest: (left, right) => `GREATEST(${left}, ${right})`,
  writeList: (values) => [...values],
  readList: (value) => value as string[],
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
