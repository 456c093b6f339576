import type { Database, Statement } from 'better-sqlite3';
import type { Reach, ScoredPassage, SearchQuery, SearchResult } from './store.ts';
import { averageWeightedLength, BM25_B, BM25_K1, HEADING_WEIGHT, inverseDocumentFrequency } from './bm25.ts';
import { PostingsCache, type PostingRow, type PostingsCacheOptions, type PostingsReader, type TermCount } from './postings-cache.ts';
import { inRankOrder, rankPostings, readableSlots } from './postings-scoring.ts';
import { passageSiteFields, type PassageSiteColumns } from './store-records.ts';

/** The documents of the reach: the same rule as every passage query of the store. */
export const SQLITE_REACH_FILTER = `d.kb_id = @kbId
  AND d.visibility IN (SELECT value FROM json_each(@visibilities))
  AND (d.visibility <> 'restricted'
       OR EXISTS (SELECT 1 FROM document_readers r WHERE r.document_id = d.id AND r.user_id = @userId))`;

/** Named parameters of {@link SQLITE_REACH_FILTER}: `@kbId`, `@userId` and `@visibilities` (a JSON array). */
export type SqliteReachParameters = { kbId: string; userId: string; visibilities: string };

/** The values of {@link SQLITE_REACH_FILTER}'s parameters for one reach. */
export function sqliteReachParameters(reach: Reach): SqliteReachParameters {
  return { kbId: reach.kbId, userId: reach.userId, visibilities: JSON.stringify(reach.visibilities) };
}

/**
 * BM25 top-k in SQLite over the `postings` table (store/bm25.ts for the
 * formula; the IDF of each query term and the average passage length are
 * computed once, in TypeScript, and passed in as `@weights` and
 * `@averageLength`). Only postings of documents inside the reach are scored
 * (`@partial = 1`; skipped when the reach covers every passage), and the
 * scored passages are kept only when their document is inside the reach
 * (DESIGN.md "Storage": score, sort, then `EXISTS`, then `LIMIT`). Ties are
 * broken by chunk id so the order is total.
 *
 * `CROSS JOIN` fixes SQLite's loop order (query terms outside, postings
 * inside), so only the postings of the question's terms are read; left to
 * itself the planner scanned every posting of the knowledge base.
 *
 * The reference of the embedded store's search: {@link prepareSearch} scores
 * the same postings in memory and must return exactly what this returns
 * (store/postings-search.test.ts); postgres-search.ts mirrors it.
 */
/**
 * The columns of a {@link PassageRow} but its id and score, from chunks `c`
 * and documents `d`: every passage query selects these.
 */
export const PASSAGE_COLUMNS = `c.heading_path AS headingPath, c.anchor AS anchor, c.text AS text, d.doc_id AS docId,
       d.title AS title, d.description AS description, d.url AS url, d.quotable AS quotable, d.content_hash AS contentHash`;

export const SQLITE_SEARCH_SQL = `
WITH weights AS (SELECT key AS term, value AS idf FROM json_each(@weights)),
readable AS MATERIALIZED (SELECT d.id FROM documents d WHERE @partial = 1 AND ${SQLITE_REACH_FILTER}),
scored AS (
  SELECT p.chunk_id,
         SUM(w.idf * (p.tf_body + @headingWeight * p.tf_heading) * (@k1 + 1)
             / ((p.tf_body + @headingWeight * p.tf_heading)
                + @k1 * (1 - @b + @b * (p.body_length + @headingWeight * p.heading_length) / @averageLength))) AS score
  FROM weights w CROSS JOIN postings p
  WHERE p.kb_id = @kbId AND p.term = w.term AND (@partial = 0 OR p.document_id IN readable)
  GROUP BY p.chunk_id
)
SELECT s.chunk_id AS chunkId, s.score AS score, ${PASSAGE_COLUMNS}
FROM scored s
JOIN chunks c ON c.id = s.chunk_id
JOIN documents d ON d.id = c.document_id
WHERE ${SQLITE_REACH_FILTER}
ORDER BY s.score DESC, s.chunk_id ASC
LIMIT @topK
`;

/** A passage row as the SQLite queries select it (columns aliased to these names, {@link PASSAGE_COLUMNS}). */
export interface PassageRow extends PassageSiteColumns {
  chunkId: number;
  score: number;
  headingPath: string;
  text: string;
  docId: string;
  title: string;
  quotable: number;
  contentHash: string;
}

/** Turns a selected passage row into a {@link ScoredPassage}. */
export function toPassage(kbId: string, row: PassageRow): ScoredPassage {
  return {
    chunkId: row.chunkId,
    kbId,
    docId: row.docId,
    title: row.title,
    ...passageSiteFields(row),
    headingPath: JSON.parse(row.headingPath) as string[],
    text: row.text,
    quotable: row.quotable === 1,
    contentHash: row.contentHash,
    score: row.score,
  };
}

/**
 * Passages and length sums inside the reach (BM25's N and avgdl, computed
 * within the reach so that nothing a question is told depends on documents
 * it cannot reach), beside the whole knowledge base's passage count: equal
 * counts mean the reach covers every passage. Also the knowledge base's
 * index version (migration 7), which tells whether cached postings are current.
 */
const SQLITE_REACH_STATS_SQL = `
SELECT COUNT(d.id) AS documents, COALESCE(SUM(d.chunk_count), 0) AS n, COALESCE(SUM(d.body_length_sum), 0) AS bodyLength,
       COALESCE(SUM(d.heading_length_sum), 0) AS headingLength,
       (SELECT chunk_count FROM index_stats WHERE kb_id = @kbId) AS knowledgeBaseCount,
       (SELECT version FROM index_stats WHERE kb_id = @kbId) AS version
FROM documents d WHERE ${SQLITE_REACH_FILTER}
`;

/** Per-term document frequencies (passages containing the term) within the reach, or the whole KB when `@partial = 0`. */
const SQLITE_TERM_STATS_SQL = `
WITH readable AS MATERIALIZED (SELECT d.id FROM documents d WHERE @partial = 1 AND ${SQLITE_REACH_FILTER})
SELECT q.value AS term,
       (SELECT COUNT(*) FROM postings p
        WHERE p.kb_id = @kbId AND p.term = q.value AND (@partial = 0 OR p.document_id IN readable)) AS df
FROM json_each(@terms) q
`;

/** The documents inside the reach (ids), for filtering cached postings. */
const SQLITE_READABLE_DOCUMENTS_SQL = `SELECT d.id FROM documents d WHERE ${SQLITE_REACH_FILTER}`;

/** The passage rows of chosen chunks, in any order (the caller orders them). */
const SQLITE_PASSAGES_BY_ID_SQL = `
SELECT c.id AS chunkId, ${PASSAGE_COLUMNS}
FROM chunks c JOIN documents d ON d.id = c.document_id
WHERE c.id IN (SELECT value FROM json_each(@ids))
`;

/** Terms and their posting counts, in the order of the primary key (kb_id, term, chunk_id): no sort. */
const SQLITE_TERM_COUNTS_SQL = 'SELECT term, COUNT(*) AS count FROM postings WHERE kb_id = ? GROUP BY term ORDER BY term';

/** Every posting of a knowledge base in primary-key order, weighted as {@link SQLITE_SEARCH_SQL} weighs them. */
const SQLITE_POSTINGS_SQL = `SELECT chunk_id, document_id, tf_body + @headingWeight * tf_heading, body_length + @headingWeight * heading_length
FROM postings WHERE kb_id = @kbId ORDER BY term, chunk_id`;

/**
 * Reads a knowledge base's postings for the postings cache
 * (store/postings-cache.ts) row by row, with statements prepared once: call
 * its methods inside the read transaction of the search, so both reads see
 * one snapshot.
 *
 * @param database an open better-sqlite3 connection (read-only is enough)
 */
export function sqlitePostingsReader(database: Database): PostingsReader {
  const termCounts: Statement<[string], TermCount> = database.prepare(SQLITE_TERM_COUNTS_SQL);
  const postings = database.prepare<Record<string, unknown>, PostingRow>(SQLITE_POSTINGS_SQL).raw();
  return {
    termCounts: (kbId) => termCounts.iterate(kbId),
    postings: (kbId) => postings.iterate({ kbId, headingWeight: HEADING_WEIGHT }),
  };
}

interface ReachStatsRow {
  n: number;
  bodyLength: number;
  headingLength: number;
  knowledgeBaseCount: number | null;
  version: number | null;
}

/** A prepared search bound to one connection. */
export interface PreparedSearch {
  run(query: SearchQuery): SearchResult;
}

/** The SQL statements of a search, prepared once per connection. */
interface SearchStatements {
  search: Statement<Record<string, unknown>, PassageRow>;
  termStats: Statement<Record<string, unknown>, { term: string; df: number }>;
  reachStats: Statement<SqliteReachParameters, ReachStatsRow>;
}

function prepareStatements(database: Database): SearchStatements {
  return {
    search: database.prepare(SQLITE_SEARCH_SQL),
    termStats: database.prepare(SQLITE_TERM_STATS_SQL),
    reachStats: database.prepare(SQLITE_REACH_STATS_SQL),
  };
}

/** Everything in SQL once the reach statistics are known: df, IDF weights, then {@link SQLITE_SEARCH_SQL}. */
function searchWithSql(
  statements: SearchStatements,
  query: SearchQuery,
  reach: SqliteReachParameters,
  stats: ReachStatsRow | undefined,
): SearchResult {
  const count = stats?.n ?? 0;
  const documentFrequencies: Record<string, number> = {};
  const distinct = [...new Set(query.terms)];
  const result: SearchResult = { passages: [], passageCount: count, documentFrequencies };
  if (count === 0) {
    for (const term of distinct) documentFrequencies[term] = 0;
    return result;
  }
  const partial = stats?.knowledgeBaseCount === count ? 0 : 1;
  const weights: Record<string, number> = {};
  for (const row of statements.termStats.all({ ...reach, partial, terms: JSON.stringify(distinct) })) {
    documentFrequencies[row.term] = row.df;
    if (row.df > 0) weights[row.term] = inverseDocumentFrequency(count, row.df);
  }
  if (Object.keys(weights).length === 0) return result;
  const rows = statements.search.all({
    ...reach,
    partial,
    weights: JSON.stringify(weights),
    averageLength: averageWeightedLength(count, stats?.bodyLength ?? 0, stats?.headingLength ?? 0),
    topK: query.topK,
    k1: BM25_K1,
    b: BM25_B,
    headingWeight: HEADING_WEIGHT,
  });
  result.passages = rows.map((row) => toPassage(query.reach.kbId, row));
  return result;
}

/**
 * Prepares the all-SQL search on a connection: {@link SQLITE_SEARCH_SQL} and
 * its statistics queries. The reference the cached search
 * ({@link prepareSearch}) must agree with, and its fallback.
 *
 * @param database an open better-sqlite3 connection (read-only is enough)
 */
export function prepareSqlSearch(database: Database): PreparedSearch {
  const statements = prepareStatements(database);
  return {
    run(query) {
      const reach = sqliteReachParameters(query.reach);
      return searchWithSql(statements, query, reach, statements.reachStats.get(reach));
    },
  };
}

/**
 * Prepares the search of the embedded store: BM25 scored in JavaScript over
 * the knowledge base's postings held in memory (store/postings-cache.ts,
 * store/postings-scoring.ts), giving the same {@link SearchResult} as the
 * all-SQL search ({@link prepareSqlSearch}), scores bit for bit; SQL still
 * supplies the reach statistics, the readable documents (when the reach
 * does not cover every passage) and the chosen passages' rows. Falls back
 * to the all-SQL search when the knowledge base is not cached (over the
 * memory cap, or its index changed less than the quiet period ago).
 *
 * Each search runs in one read transaction, so the version check, the
 * statistics, the postings and the rows come from one snapshot: a change
 * committed by another connection (the CLI, another worker) is seen by the
 * next search.
 *
 * @param database an open better-sqlite3 connection (read-only is enough)
 * @param options the postings cache's memory cap and quiet period
 */
export function prepareSearch(database: Database, options: PostingsCacheOptions = {}): PreparedSearch & { cache: PostingsCache } {
  const statements = prepareStatements(database);
  const readableDocuments: Statement<SqliteReachParameters, number> = database.prepare<SqliteReachParameters, number>(SQLITE_READABLE_DOCUMENTS_SQL).pluck();
  const passagesById: Statement<{ ids: string }, Omit<PassageRow, 'score'>> = database.prepare(SQLITE_PASSAGES_BY_ID_SQL);
  const reader = sqlitePostingsReader(database);
  const cache = new PostingsCache(options);
  const search = database.transaction((query: SearchQuery): SearchResult => {
    const reach = sqliteReachParameters(query.reach);
    const stats = statements.reachStats.get(reach);
    const count = stats?.n ?? 0;
    const averageLength = averageWeightedLength(count, stats?.bodyLength ?? 0, stats?.headingLength ?? 0);
    // An empty reach, or passages without length (where SQL divides by zero): the SQL path decides.
    const postings =
      count > 0 && averageLength > 0 && typeof stats?.version === 'number'
        ? cache.postingsAt(query.reach.kbId, stats.version, reader)
        : undefined;
    if (!postings) return searchWithSql(statements, query, reach, stats);
    const readable = stats?.knowledgeBaseCount === count ? undefined : readableSlots(postings, readableDocuments.iterate(reach));
    const { documentFrequencies, ranked } = rankPostings(postings, [...new Set(query.terms)], count, readable, averageLength, query.topK);
    const result: SearchResult = { passages: [], passageCount: count, documentFrequencies };
    if (ranked.chunkIds.length === 0) return result;
    const rows = passagesById.all({ ids: JSON.stringify(ranked.chunkIds) });
    result.passages = inRankOrder(query.reach.kbId, ranked, rows).map((row) => toPassage(query.reach.kbId, row));
    return result;
  });
  return { cache, run: (query) => search(query) };
}
