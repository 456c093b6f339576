import type { QueryResultRow } from 'pg';
import {
  buildIndexColumns,
  IndexColumnsBuilder,
  FIELD_COUNT,
  PAGE_FIELD_COUNT,
  type ChunkLengthRow,
  type IndexColumns,
  type KnowledgeBaseIndex,
  type PostingRow,
  type ReachStatistics,
} from './index-data.ts';
import { CHUNK_LENGTH_COLUMNS, PAGE_LENGTH_COLUMNS, PAGE_LENGTH_ROW_COLUMNS, PAGE_POSTING_COLUMNS, POSTING_COLUMNS, toReachStatistics, type ReachStatisticsRow, PASSAGE_COLUMNS, toPassage, type PassageRow } from './index-rows.ts';
import { reachFilter } from './reach-filter.ts';
import { POSTGRES_DIALECT } from './sql-executor.ts';
import type { Reach, ScoredPassage, StoredPassage } from './store.ts';

/**
 * The PostgreSQL store's reads of the lexical index (store/index-data.ts)
 * and of passages: sqlite-index.ts's queries in PostgreSQL's dialect. Nothing
 * here scores: retrieval/ does, the same way for every backend.
 */

/** What the reads need of a connection: a `pg.Pool` or a checked-out `pg.PoolClient`. */
export interface Queryable {
  query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/** A connection that can also return rows as arrays (a checked-out client). */
export interface ArrayQueryable extends Queryable {
  query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
  query<Row extends unknown[]>(config: { text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: Row[] }>;
}

/**
 * The documents of the reach (reach-filter.ts): `$1` the knowledge base, `$2`
 * the reachable visibilities (`text[]`), `$3` the user who must be a listed
 * reader of `restricted` documents. Queries using it take these three
 * parameters first.
 */
export const POSTGRES_REACH_FILTER = reachFilter(POSTGRES_DIALECT, { kbId: '$1', visibilities: '$2::text[]', userId: '$3' });

/** The values of {@link POSTGRES_REACH_FILTER}'s parameters `$1` to `$3` for one reach, in order. */
export function postgresReachParameters(reach: Reach): [kbId: string, visibilities: string[], userId: string] {
  return [reach.kbId, [...reach.visibilities], reach.userId];
}

/** A passage row as the PostgreSQL queries select it: its heading path as `text[]`. */
type PostgresPassageRow = PassageRow<string[]>;

/** Turns a selected passage row into a {@link StoredPassage}. */
function toPostgresPassage(kbId: string, row: PostgresPassageRow): StoredPassage {
  return toPassage(kbId, row, row.headingPath);
}

/**
 * Passages and field length sums inside the reach, the index version, and
 * the ids of the documents inside the reach when it does not cover every
 * passage, in one round trip.
 */
const REACH_STATISTICS_SQL = `
WITH inside AS (SELECT d.id, d.chunk_count, d.title_length_sum, d.description_length_sum, d.heading_length_sum, d.body_length_sum,
                       ${PAGE_LENGTH_COLUMNS.map((column) => `d.${column}`).join(', ')}
                FROM documents d WHERE ${POSTGRES_REACH_FILTER}),
totals AS (SELECT COALESCE(SUM(chunk_count), 0)::bigint AS passages, COALESCE(SUM(title_length_sum), 0)::bigint AS title,
                  COALESCE(SUM(description_length_sum), 0)::bigint AS description, COALESCE(SUM(heading_length_sum), 0)::bigint AS heading,
                  COALESCE(SUM(body_length_sum), 0)::bigint AS body, (COUNT(*) FILTER (WHERE chunk_count > 0))::bigint AS pages,
                  ${PAGE_LENGTH_COLUMNS.map((column, field) => `COALESCE(SUM(${column}), 0)::bigint AS page${field}`).join(', ')}
           FROM inside),
stats AS (SELECT chunk_count, version FROM index_stats WHERE kb_id = $1)
SELECT t.passages, t.title, t.description, t.heading, t.body, t.pages, ${PAGE_LENGTH_COLUMNS.map((_, field) => `t.page${field}`).join(', ')}, s.version,
       CASE WHEN t.passages <> COALESCE(s.chunk_count, 0) THEN (SELECT COALESCE(array_agg(i.id), '{}') FROM inside i) END AS readable
FROM totals t LEFT JOIN stats s ON true
`;

/** The reach's statistics, with the ids of the documents inside it when it does not cover every passage. */
interface PostgresReachStatisticsRow extends ReachStatisticsRow {
  /** `bigint[]`: node-postgres parses its elements to strings. */
  readable: (string | number)[] | null;
}


/**
 * @param database a pool or client whose `bigint` columns parse to numbers (postgres-store.ts)
 */
export async function readReachStatistics(database: Queryable, reach: Reach): Promise<ReachStatistics> {
  const row = (await database.query<PostgresReachStatisticsRow>(REACH_STATISTICS_SQL, postgresReachParameters(reach))).rows[0];
  return toReachStatistics(row, row?.readable ? row.readable.map(Number) : undefined);
}

/**
 * Postings read per statement of a whole-index read: each statement stays far
 * inside the statement timeout (about 0.3 s a page at 80,000 passages on a
 * 2-core machine), however large the knowledge base.
 */
const POSTINGS_PER_PAGE = 50_000;

/**
 * The whole index of a knowledge base, its passages' and its pages'. Call
 * on a client inside a `REPEATABLE READ` transaction, so its reads see one
 * snapshot. Terms come ordered by `term COLLATE "C"` (byte order, the
 * column's collation), each term's postings together, as the columns need.
 *
 * @param pageSize postings read per statement
 * @returns undefined when it has more than `maxPostings` postings, both kinds together
 */
export async function readPostgresIndex(
  client: ArrayQueryable,
  kbId: string,
  maxPostings: number,
  pageSize = POSTINGS_PER_PAGE,
): Promise<KnowledgeBaseIndex | undefined> {
  const count = (
    await client.query<{ count: number }>(
      'SELECT (SELECT COUNT(*) FROM postings WHERE kb_id = $1) + (SELECT COUNT(*) FROM page_postings WHERE kb_id = $1) AS count',
      [kbId],
    )
  ).rows[0];
  if ((count?.count ?? 0) > maxPostings) return undefined;
  const version = await readVersion(client, kbId);
  const passages = await readPagedColumns(client, version, FIELD_COUNT, kbId, pageSize, {
    units: `SELECT ${CHUNK_LENGTH_COLUMNS} FROM chunks WHERE kb_id = $1`,
    postings: `SELECT ${POSTING_COLUMNS} FROM postings WHERE kb_id = $1 AND (term, chunk_id) > ($2, $3) ORDER BY term, chunk_id LIMIT $4`,
  });
  const pages = await readPagedColumns(client, version, PAGE_FIELD_COUNT, kbId, pageSize, {
    units: `SELECT ${PAGE_LENGTH_ROW_COLUMNS} FROM documents WHERE kb_id = $1`,
    postings: `SELECT ${PAGE_POSTING_COLUMNS} FROM page_postings WHERE kb_id = $1 AND (term, document_id) > ($2, $3) ORDER BY term, document_id LIMIT $4`,
  });
  return { passages, pages };
}

/** The postings of `terms` and the lengths of the units they name; inside a `REPEATABLE READ` transaction like {@link readPostgresIndex}. */
export async function readPostgresTermIndex(client: ArrayQueryable, kbId: string, terms: readonly string[]): Promise<KnowledgeBaseIndex> {
  const version = await readVersion(client, kbId);
  const values = [kbId, [...terms]];
  const passages = await readColumns(client, version, FIELD_COUNT, {
    postings: `SELECT ${POSTING_COLUMNS} FROM postings WHERE kb_id = $1 AND term = ANY($2::text[]) ORDER BY term COLLATE "C", chunk_id`,
    units: `SELECT ${CHUNK_LENGTH_COLUMNS} FROM chunks WHERE id IN
              (SELECT chunk_id FROM postings WHERE kb_id = $1 AND term = ANY($2::text[]))`,
    values,
  });
  const pages = await readColumns(client, version, PAGE_FIELD_COUNT, {
    postings: `SELECT ${PAGE_POSTING_COLUMNS} FROM page_postings WHERE kb_id = $1 AND term = ANY($2::text[]) ORDER BY term COLLATE "C", document_id`,
    units: `SELECT ${PAGE_LENGTH_ROW_COLUMNS} FROM documents WHERE id IN
              (SELECT document_id FROM page_postings WHERE kb_id = $1 AND term = ANY($2::text[]))`,
    values,
  });
  return { passages, pages };
}


/**
 * Reads one kind of unit's lengths, then all its postings a page at a time
 * (keyset pagination on the primary key's order: term in byte order, then
 * unit id), and builds their columns. Inside a `REPEATABLE READ`
 * transaction, every page comes from the same snapshot.
 *
 * @param sql.postings the page query: `$1` the knowledge base, `$2` and `$3` the last (term, unit id) read, `$4` the page size
 */
async function readPagedColumns(
  client: ArrayQueryable,
  version: number,
  fieldCount: number,
  kbId: string,
  pageSize: number,
  sql: { units: string; postings: string },
): Promise<IndexColumns> {
  const units = await client.query<unknown[]>({ text: sql.units, values: [kbId], rowMode: 'array' });
  const builder = new IndexColumnsBuilder(version, fieldCount, units.rows as unknown as ChunkLengthRow[]);
  let after: [term: string, unitId: number] = ['', -1];
  for (;;) {
    const page = await client.query<unknown[]>({ text: sql.postings, values: [kbId, ...after, pageSize], rowMode: 'array' });
    const rows = page.rows as unknown as PostingRow[];
    builder.add(rows);
    if (rows.length < pageSize) return builder.finish();
    const last = rows.at(-1)!;
    after = [last[0], Number(last[1])];
  }
}

/** Reads one kind of unit's lengths and postings as arrays and builds their columns. */
async function readColumns(
  client: ArrayQueryable,
  version: number,
  fieldCount: number,
  sql: { units: string; postings: string; values: unknown[] },
): Promise<IndexColumns> {
  const units = await client.query<unknown[]>({ text: sql.units, values: sql.values, rowMode: 'array' });
  const postings = await client.query<unknown[]>({ text: sql.postings, values: sql.values, rowMode: 'array' });
  return buildIndexColumns(version, fieldCount, postings.rows as unknown as PostingRow[], units.rows as unknown as ChunkLengthRow[]);
}

/** Passages by storage id, in any order; ids no longer stored are left out. */
export async function readPostgresPassagesById(database: Queryable, kbId: string, chunkIds: readonly number[]): Promise<StoredPassage[]> {
  if (chunkIds.length === 0) return [];
  const rows = await database.query<PostgresPassageRow>(
    `SELECT c.id AS "chunkId", ${PASSAGE_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.id = ANY($1::bigint[])`,
    [[...chunkIds]],
  );
  return rows.rows.map((row) => toPostgresPassage(kbId, row));
}

async function readVersion(database: Queryable, kbId: string): Promise<number> {
  return (await database.query<{ version: number }>('SELECT version FROM index_stats WHERE kb_id = $1', [kbId])).rows[0]?.version ?? 0;
}

/** A document's passages inside the reach, in order, those under `heading` only when given; unscored (0). */
export async function readPostgresPassagesOf(database: Queryable, reach: Reach, docId: string, heading?: string): Promise<ScoredPassage[]> {
  const { rows } = await database.query<PostgresPassageRow>(
    `SELECT c.id AS "chunkId", ${PASSAGE_COLUMNS}
     FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE d.doc_id = $4 AND ${POSTGRES_REACH_FILTER}
       AND ($5::text IS NULL OR $5::text = ANY(c.heading_path))
     ORDER BY c.ordinal`,
    [...postgresReachParameters(reach), docId, heading ?? null],
  );
  return rows.map((row) => ({ ...toPostgresPassage(reach.kbId, row), score: 0 }));
}

/** How many of a document's passages are inside the reach. */
export async function countPostgresPassages(database: Queryable, reach: Reach, docId: string): Promise<number> {
  const { rows } = await database.query<{ count: number }>(
    `SELECT COUNT(*)::int AS count FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE d.doc_id = $4 AND ${POSTGRES_REACH_FILTER}`,
    [...postgresReachParameters(reach), docId],
  );
  return rows[0]?.count ?? 0;
}
