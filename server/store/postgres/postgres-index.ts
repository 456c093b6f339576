import type { QueryResultRow } from 'pg';
import type { IndexColumns, KnowledgeBaseIndex, ReachStatistics } from '../index/index-data.ts';
import { PAGE_LENGTH_COLUMNS, toReachStatistics, type ReachStatisticsRow, PASSAGE_COLUMNS, toPassage, type PassageRow } from '../index/index-rows.ts';
import { deletedUnits, SEGMENT_KINDS, type SegmentKind } from '../index/index-segments.ts';
import { SegmentColumnsBuilder, type TermRow } from '../index/segment-columns.ts';
import { reachFilter } from '../passages/reach-filter.ts';
import { POSTGRES_DIALECT } from '../sql-executor.ts';
import type { Reach, ScoredPassage, StoredPassage } from '../passages/passages.ts';

/**
 * The PostgreSQL store's reads of the lexical index (store/index/index-data.ts),
 * from its segments (store/index/index-segments.ts), and of passages. Nothing here
 * scores: retrieval/ does, the same way for every backend.
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
 * The documents of the reach (store/passages/reach-filter.ts): `$1` the knowledge base, `$2`
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
 * Term rows (a term's packed postings in one segment) read per statement of a
 * whole-index read: each statement stays far inside the statement timeout
 * however large the knowledge base.
 */
const TERM_ROWS_PER_PAGE = 2_000;

/**
 * The whole index of a knowledge base, its passages' and its pages', from
 * its segments (store/index/index-segments.ts). Call on a client inside a
 * `REPEATABLE READ` transaction, so its reads see one snapshot. Terms come
 * in byte order (the `"C"` collation of the column).
 *
 * @param pageSize term rows read per statement
 * @returns undefined when it has more than `maxPostings` postings, both kinds together
 */
export async function readPostgresIndex(
  client: ArrayQueryable,
  kbId: string,
  maxPostings: number,
  pageSize = TERM_ROWS_PER_PAGE,
): Promise<KnowledgeBaseIndex | undefined> {
  const count = (
    await client.query<{ count: number }>('SELECT COALESCE(SUM(postings), 0)::bigint AS count FROM index_segments WHERE kb_id = $1', [kbId])
  ).rows[0];
  if ((count?.count ?? 0) > maxPostings) return undefined;
  const version = await readVersion(client, kbId);
  const read = async ({ kind, fieldCount }: SegmentKind): Promise<IndexColumns> => {
    const builder = new SegmentColumnsBuilder(version, fieldCount, await readDeletions(client, kbId, kind));
    let after: [term: string, segmentId: number] = ['', -1];
    for (;;) {
      const page = await client.query<unknown[]>({
        text: `SELECT term, segment_id, postings FROM segment_terms
               WHERE kb_id = $1 AND kind = $2 AND (term, segment_id) > ($3, $4) ORDER BY term, segment_id LIMIT $5`,
        values: [kbId, kind, ...after, pageSize],
        rowMode: 'array',
      });
      const rows = page.rows as unknown as TermRow[];
      builder.add(rows);
      if (rows.length < pageSize) return builder.finish();
      const last = rows.at(-1)!;
      after = [last[0], last[1]];
    }
  };
  return { passages: await read(SEGMENT_KINDS.passages), pages: await read(SEGMENT_KINDS.pages) };
}

/** The postings of `terms` and the lengths of the units they name; inside a `REPEATABLE READ` transaction like {@link readPostgresIndex}. */
export async function readPostgresTermIndex(client: ArrayQueryable, kbId: string, terms: readonly string[]): Promise<KnowledgeBaseIndex> {
  const version = await readVersion(client, kbId);
  const read = async ({ kind, fieldCount }: SegmentKind): Promise<IndexColumns> => {
    const builder = new SegmentColumnsBuilder(version, fieldCount, await readDeletions(client, kbId, kind));
    const { rows } = await client.query<unknown[]>({
      text: 'SELECT term, segment_id, postings FROM segment_terms WHERE kb_id = $1 AND kind = $2 AND term = ANY($3::text[]) ORDER BY term, segment_id',
      values: [kbId, kind, [...terms]],
      rowMode: 'array',
    });
    builder.add(rows as unknown as TermRow[]);
    return builder.finish();
  };
  return { passages: await read(SEGMENT_KINDS.passages), pages: await read(SEGMENT_KINDS.pages) };
}

/** Segment id -> the units deleted from it, for one kind of unit of a knowledge base. */
async function readDeletions(client: ArrayQueryable, kbId: string, kind: number): Promise<Map<number, Set<number>>> {
  const { rows } = await client.query<[number, number]>({
    text: 'SELECT segment_id, unit_id FROM segment_deletions WHERE kb_id = $1 AND kind = $2',
    values: [kbId, kind],
    rowMode: 'array',
  });
  return deletedUnits(rows);
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
