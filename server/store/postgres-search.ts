import type { ClientBase, QueryResultRow } from 'pg';
import type { Reach, ScoredPassage, SearchQuery, SearchResult } from './store.ts';
import { averageWeightedLength, BM25_B, BM25_K1, HEADING_WEIGHT, inverseDocumentFrequency } from './bm25.ts';
import type { AsyncPostingsReader, PostingsCache, TermCount } from './postings-cache.ts';
import { inRankOrder, rankPostings, readableSlots } from './postings-scoring.ts';
import { passageSiteFields, type PassageSiteColumns } from './store-records.ts';

/** What the search needs of a connection: a `pg.Pool` or a checked-out `pg.PoolClient`. */
export interface Queryable {
  query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/**
 * The documents of the reach, the rule of every passage query of the store
 * (sqlite-search.ts's `SQLITE_REACH_FILTER`): `$1` the knowledge base, `$2`
 * the reachable visibilities (`text[]`), `$3` the user who must be a listed
 * reader of `restricted` documents. Queries using it take these three
 * parameters first.
 */
export const POSTGRES_REACH_FILTER = `d.kb_id = $1
  AND d.visibility = ANY($2::text[])
  AND (d.visibility <> 'restricted'
       OR EXISTS (SELECT 1 FROM document_readers r WHERE r.document_id = d.id AND r.user_id = $3))`;

/** The values of {@link POSTGRES_REACH_FILTER}'s parameters `$1` to `$3` for one reach, in order. */
export function postgresReachParameters(reach: Reach): [kbId: string, visibilities: string[], userId: string] {
  return [reach.kbId, [...reach.visibilities], reach.userId];
}

/**
 * BM25 top-k in PostgreSQL over the `postings` table: sqlite-search.ts's
 * `SQLITE_SEARCH_SQL` translated one to one (store/bm25.ts for the formula;
 * IDF per term and the average passage length computed in TypeScript and
 * passed in as `$5`/`$6` and `$7`). Only postings of documents inside the
 * reach are scored (`$4` partial; skipped when the reach covers every
 * passage), then scored passages are kept only when their document is inside
 * the reach (DESIGN.md "Storage": score and sort the candidates once, in a
 * materialized subquery, then walk them best first through the reach check
 * until `LIMIT` rows passed). The shape does not depend on table statistics:
 * with none (a fresh database, autovacuum off) the planner otherwise chose to
 * recompute the scores once per document (60 ms instead of 3 ms on the demo
 * corpus).
 *
 * Scores to the last bit: each term's contribution is computed in
 * `double precision` with the same operations in the same order as SQLite's,
 * and returned per passage in term order (`parts`); the caller adds them up
 * as SQLite's `sum()` does ({@link sqliteSum}) and orders by that score, then
 * chunk id. PostgreSQL's own `SUM` (another order, no error compensation) only
 * pre-selects: the `$8` best passages by it, plus every passage within a
 * relative `$12` of the last of them, so the final top-k is among the rows.
 */
export const POSTGRES_SEARCH_SQL = `
WITH weights AS (SELECT w.term, w.idf, w.position FROM unnest($5::text[], $6::float8[]) WITH ORDINALITY AS w(term, idf, position)),
readable AS MATERIALIZED (SELECT d.id FROM documents d WHERE $4::boolean AND ${POSTGRES_REACH_FILTER}),
scored AS MATERIALIZED (
  SELECT t.chunk_id, SUM(t.part) AS score, array_agg(t.part ORDER BY t.position) AS parts
  FROM (
    SELECT p.chunk_id, w.position,
           w.idf * (p.tf_body + $11::float8 * p.tf_heading) * ($9::float8 + 1)
             / ((p.tf_body + $11::float8 * p.tf_heading)
                + $9::float8 * (1 - $10::float8 + $10::float8 * (p.body_length + $11::float8 * p.heading_length) / $7::float8)) AS part
    FROM weights w JOIN postings p ON p.kb_id = $1 AND p.term = w.term
    WHERE (NOT $4::boolean OR p.document_id IN (SELECT id FROM readable))
  ) t
  GROUP BY t.chunk_id
),
ranked AS MATERIALIZED (
  SELECT s.chunk_id, s.score, s.parts, c.heading_path, c.anchor, c.text, d.doc_id, d.title, d.description, d.url, d.quotable, d.content_hash
  FROM (SELECT chunk_id, score, parts FROM scored ORDER BY score DESC, chunk_id ASC) s
  JOIN LATERAL (SELECT * FROM chunks c WHERE c.id = s.chunk_id) c ON true
  JOIN LATERAL (SELECT * FROM documents d WHERE d.id = c.document_id AND ${POSTGRES_REACH_FILTER}) d ON true
  ORDER BY s.score DESC, s.chunk_id ASC
  LIMIT $8
),
boundary AS (SELECT min(score) * (1 - $12::float8) AS score FROM ranked)
SELECT r.chunk_id AS "chunkId", r.parts AS parts, r.heading_path AS "headingPath", r.anchor AS anchor, r.text AS text,
       r.doc_id AS "docId", r.title AS title, r.description AS description, r.url AS url, r.quotable AS quotable,
       r.content_hash AS "contentHash"
FROM ranked r
UNION ALL
SELECT s.chunk_id, s.parts, c.heading_path, c.anchor, c.text, d.doc_id, d.title, d.description, d.url, d.quotable, d.content_hash
FROM scored s
JOIN chunks c ON c.id = s.chunk_id
JOIN documents d ON d.id = c.document_id
WHERE s.score >= (SELECT score FROM boundary)
  AND s.chunk_id NOT IN (SELECT chunk_id FROM ranked)
  AND ${POSTGRES_REACH_FILTER}
`;

/**
 * Relative margin of the pre-selection by PostgreSQL's `SUM`: far above the
 * difference any summation order makes to a sum of at most
 * `MAX_QUERY_TERMS` positive doubles (about 32 x 2^-53 of the sum).
 */
const PRESELECTION_MARGIN = 1e-9;

/**
 * Adds up floating-point numbers exactly as SQLite's `sum()` does over
 * doubles: Kahan-Babuska-Neumaier compensated summation, the running sum
 * plus the accumulated error at the end (sqlite3.c `kahanBabuskaNeumaierStep`
 * and `sumFinalize`, SQLite 3.43 and later; the same arithmetic as
 * store/postings-scoring.ts).
 *
 * @param parts the addends, in the order SQLite adds them
 */
export function sqliteSum(parts: readonly number[]): number {
  let sum = 0;
  let error = 0;
  for (const part of parts) {
    const next = sum + part;
    error += Math.abs(sum) > Math.abs(part) ? sum - next + part : part - next + sum;
    sum = next;
  }
  return sum + error;
}

/**
 * Common table expressions of the statistics queries: `inside`, the
 * documents of the reach (`$1` to `$3`, {@link POSTGRES_REACH_FILTER}), and
 * `scope`, one row: passages and length sums inside the reach (BM25's N and
 * avgdl, within the reach), the knowledge base's index version
 * (`index_stats.version`, null when it does not exist) and whether the reach
 * leaves passages of the knowledge base out (`partial`: its passage count
 * differs from the knowledge base's, so postings must be filtered by
 * document). sqlite-search.ts's reach statistics query.
 */
const POSTGRES_SCOPE_CTES = `
inside AS MATERIALIZED (
  SELECT d.id, d.chunk_count, d.body_length_sum, d.heading_length_sum FROM documents d WHERE ${POSTGRES_REACH_FILTER}
),
totals AS (
  SELECT COALESCE(SUM(i.chunk_count), 0)::bigint AS n, COALESCE(SUM(i.body_length_sum), 0)::bigint AS body_length,
         COALESCE(SUM(i.heading_length_sum), 0)::bigint AS heading_length,
         (SELECT chunk_count FROM index_stats WHERE kb_id = $1) AS knowledge_base_count,
         (SELECT version FROM index_stats WHERE kb_id = $1) AS version
  FROM inside i
),
scope AS (SELECT t.*, t.n IS DISTINCT FROM t.knowledge_base_count AS partial FROM totals t)`;

/**
 * The statistics of a search, in one round trip: the reach's
 * ({@link POSTGRES_SCOPE_CTES}) and each query term's document frequency
 * within the reach (`$4`, one row per term in query order; one row with a
 * null term when there are none). sqlite-search.ts's reach and term
 * statistics queries, joined.
 */
const POSTGRES_STATISTICS_SQL = `
WITH ${POSTGRES_SCOPE_CTES}
SELECT s.n AS n, s.body_length AS "bodyLength", s.heading_length AS "headingLength", s.partial AS partial, q.term AS term,
       (SELECT COUNT(*) FROM postings p
        WHERE p.kb_id = $1 AND p.term = q.term AND (NOT s.partial OR p.document_id IN (SELECT id FROM inside))) AS df
FROM scope s
LEFT JOIN unnest($4::text[]) WITH ORDINALITY AS q(term, position) ON true
ORDER BY q.position
`;

interface StatisticsRow {
  n: number;
  bodyLength: number;
  headingLength: number;
  partial: boolean;
  term: string | null;
  df: number;
}

/** A passage row of {@link POSTGRES_SEARCH_SQL}: its per-term contributions instead of a score. */
interface SearchRow extends Omit<PostgresPassageRow, 'score'> {
  parts: number[];
}

/**
 * The columns of a {@link PostgresPassageRow} but its id and score, from
 * chunks `c` and documents `d` (sqlite-search.ts's `PASSAGE_COLUMNS`).
 */
export const POSTGRES_PASSAGE_COLUMNS = `c.heading_path AS "headingPath", c.anchor AS anchor, c.text AS text, d.doc_id AS "docId",
       d.title AS title, d.description AS description, d.url AS url, d.quotable AS quotable, d.content_hash AS "contentHash"`;

/** A passage row as the PostgreSQL queries select it (columns aliased to these names, {@link POSTGRES_PASSAGE_COLUMNS}). */
export interface PostgresPassageRow extends PassageSiteColumns {
  chunkId: number;
  score: number;
  headingPath: string[];
  text: string;
  docId: string;
  title: string;
  quotable: boolean;
  contentHash: string;
}

/** Turns a selected passage row into a {@link ScoredPassage}. */
export function toPostgresPassage(kbId: string, row: PostgresPassageRow): ScoredPassage {
  return {
    chunkId: row.chunkId,
    kbId,
    docId: row.docId,
    title: row.title,
    ...passageSiteFields(row),
    headingPath: row.headingPath,
    text: row.text,
    quotable: row.quotable,
    contentHash: row.contentHash,
    score: row.score,
  };
}

/** The result of a search whose reach holds no passage: nothing found, every df 0. */
function emptyReachResult(distinctTerms: readonly string[]): SearchResult {
  return { passages: [], passageCount: 0, documentFrequencies: Object.fromEntries(distinctTerms.map((term) => [term, 0])) };
}

/**
 * Runs a BM25 search (the same steps as sqlite-search.ts's all-SQL search)
 * in two round trips: statistics within the reach
 * ({@link POSTGRES_STATISTICS_SQL}), IDF per term, then
 * {@link POSTGRES_SEARCH_SQL}, the passages' scores added up as SQLite does
 * ({@link sqliteSum}).
 *
 * @param database a pool or client whose `bigint` columns parse to numbers (postgres-store.ts)
 */
export async function searchPostgres(database: Queryable, query: SearchQuery): Promise<SearchResult> {
  const reach = postgresReachParameters(query.reach);
  const distinct = [...new Set(query.terms)];
  const statistics = (await database.query<StatisticsRow>(POSTGRES_STATISTICS_SQL, [...reach, distinct])).rows;
  const stats = statistics[0];
  const count = stats?.n ?? 0;
  if (count === 0) return emptyReachResult(distinct);
  const documentFrequencies: Record<string, number> = {};
  const result: SearchResult = { passages: [], passageCount: count, documentFrequencies };
  const partial = stats?.partial ?? true;
  // Built exactly as the SQLite search builds its @weights object: its key
  // order (integer-like terms first) is the order contributions are added in.
  const weights: Record<string, number> = {};
  for (const row of statistics) {
    if (row.term === null) continue;
    documentFrequencies[row.term] = row.df;
    if (row.df > 0) weights[row.term] = inverseDocumentFrequency(count, row.df);
  }
  const terms = Object.keys(weights);
  if (terms.length === 0) return result;
  const candidates = await database.query<SearchRow>(POSTGRES_SEARCH_SQL, [
    ...reach,
    partial,
    terms,
    Object.values(weights),
    averageWeightedLength(count, stats?.bodyLength ?? 0, stats?.headingLength ?? 0),
    query.topK < 0 ? null : query.topK,
    BM25_K1,
    BM25_B,
    HEADING_WEIGHT,
    PRESELECTION_MARGIN,
  ]);
  const scored = candidates.rows.map(({ parts, ...row }) => toPostgresPassage(query.reach.kbId, { ...row, score: sqliteSum(parts) }));
  scored.sort((left, right) => right.score - left.score || left.chunkId - right.chunkId);
  result.passages = query.topK < 0 ? scored : scored.slice(0, query.topK);
  return result;
}

/**
 * The reach statistics of a search over cached postings, in one round trip:
 * {@link POSTGRES_SCOPE_CTES}'s row, with the ids of the documents inside
 * the reach when it is partial (to filter the postings by).
 */
const POSTGRES_SCOPE_SQL = `
WITH ${POSTGRES_SCOPE_CTES}
SELECT s.n AS n, s.body_length AS "bodyLength", s.heading_length AS "headingLength", s.version AS version,
       CASE WHEN s.partial THEN (SELECT COALESCE(array_agg(i.id), '{}') FROM inside i) END AS readable
FROM scope s
`;

interface ScopeRow {
  n: number;
  bodyLength: number;
  headingLength: number;
  version: number | null;
  /** `bigint[]`: node-postgres parses its elements to strings. */
  readable: (string | number)[] | null;
}

/**
 * A knowledge base's terms and posting counts for the postings cache.
 * Both this and {@link POSTGRES_POSTINGS_SQL} order by `term COLLATE "C"`
 * (byte order, the collation of the column and of the primary key), so the
 * counts lay out exactly the ranges the postings fill.
 */
const POSTGRES_TERM_COUNTS_SQL = `SELECT term, COUNT(*)::integer AS count FROM postings WHERE kb_id = $1
GROUP BY term ORDER BY term COLLATE "C"`;

/**
 * Every posting of a knowledge base, in primary-key order, weighted as
 * {@link POSTGRES_SEARCH_SQL} weighs them (`$2` the heading weight).
 */
const POSTGRES_POSTINGS_SQL = `SELECT chunk_id, document_id, tf_body + $2::float8 * tf_heading, body_length + $2::float8 * heading_length
FROM postings WHERE kb_id = $1 ORDER BY term COLLATE "C", chunk_id`;

/** The passage rows of chosen chunks (`$1`, ids), in any order (the caller orders them). */
const POSTGRES_PASSAGES_BY_ID_SQL = `
SELECT c.id AS "chunkId", ${POSTGRES_PASSAGE_COLUMNS}
FROM chunks c JOIN documents d ON d.id = c.document_id
WHERE c.id = ANY($1::bigint[])
`;

/**
 * Reads a knowledge base's postings for the postings cache
 * (store/postings-cache.ts): its term counts, then all its postings, each in
 * one query. Call its methods on a client inside a `REPEATABLE READ`
 * transaction, so both reads see one snapshot.
 *
 * @param client a client whose `bigint` columns parse to numbers (postgres-store.ts)
 */
export function postgresPostingsReader(client: ClientBase): AsyncPostingsReader {
  return {
    termCounts: async (kbId) => (await client.query<TermCount>(POSTGRES_TERM_COUNTS_SQL, [kbId])).rows,
    postings: async (kbId) => {
      const config = { text: POSTGRES_POSTINGS_SQL, values: [kbId, HEADING_WEIGHT], rowMode: 'array' as const };
      return (await client.query<[number, number, number, number]>(config)).rows;
    },
  };
}

/**
 * Runs a BM25 search over the knowledge base's postings cached in memory
 * (store/postings-cache.ts, scored by store/postings-scoring.ts), giving
 * exactly what {@link searchPostgres} gives (passages, order, scores to the
 * last bit, document frequencies, passage count): the reach statistics and
 * index version ({@link POSTGRES_SCOPE_SQL}), the postings (read at the
 * first search and after the index version changed), then the chosen
 * passages' rows ({@link POSTGRES_PASSAGES_BY_ID_SQL}); those two are
 * named prepared statements, parsed once per connection. Falls back to
 * {@link searchPostgres} when `cache` declines (over its memory cap, the
 * index changed less than the quiet period ago, another search is reading
 * it).
 *
 * @param client a client inside a `REPEATABLE READ` transaction (one
 *   snapshot for the version, statistics, postings and rows), whose
 *   `bigint` columns parse to numbers (postgres-store.ts)
 * @param cache the store's postings cache (one per store, so per answer worker thread)
 * @throws what the client throws (the caller translates it, postgres-errors.ts), or
 *   Error when the postings and rows disagree (not one snapshot)
 */
export async function searchPostgresCached(client: ClientBase, query: SearchQuery, cache: PostingsCache): Promise<SearchResult> {
  const { kbId } = query.reach;
  const scope = (
    await client.query<ScopeRow>({
      name: 'kb-widget-search-scope',
      text: POSTGRES_SCOPE_SQL,
      values: postgresReachParameters(query.reach),
    })
  ).rows[0];
  const count = scope?.n ?? 0;
  const distinct = [...new Set(query.terms)];
  if (count === 0) return emptyReachResult(distinct);
  const averageLength = averageWeightedLength(count, scope?.bodyLength ?? 0, scope?.headingLength ?? 0);
  // Passages without length (where SQL divides by zero): the SQL path decides.
  const postings =
    averageLength > 0 && typeof scope?.version === 'number'
      ? await cache.postingsAtAsync(kbId, scope.version, postgresPostingsReader(client))
      : undefined;
  if (!postings) return searchPostgres(client, query);
  const readable = scope?.readable ? readableSlots(postings, scope.readable.map(Number)) : undefined;
  const { documentFrequencies, ranked } = rankPostings(postings, distinct, count, readable, averageLength, query.topK);
  const result: SearchResult = { passages: [], passageCount: count, documentFrequencies };
  if (ranked.chunkIds.length === 0) return result;
  const rows = await client.query<Omit<PostgresPassageRow, 'score'>>({
    name: 'kb-widget-search-passages',
    text: POSTGRES_PASSAGES_BY_ID_SQL,
    values: [ranked.chunkIds],
  });
  result.passages = inRankOrder(kbId, ranked, rows.rows).map((row) => toPostgresPassage(kbId, row));
  return result;
}
