import type { Database, Statement } from 'better-sqlite3';
import type { ScoredPassage, SearchQuery, SearchResult } from './store.ts';
import { averageWeightedLength, BM25_B, BM25_K1, HEADING_WEIGHT, inverseDocumentFrequency } from './bm25.ts';

/**
 * BM25 top-k in SQLite over the `postings` table (store/bm25.ts for the
 * formula; the IDF of each query term and the average passage length are
 * computed once, in TypeScript, and passed in as `@weights` and `@averageLength`), with the caller's reach applied inside the query: candidates are
 * scored and sorted in a subquery, then kept only when their document's
 * visibility is in the reach and, for `restricted` documents, the reach's
 * user is a listed reader (DESIGN.md "Storage": score, sort, then `EXISTS`,
 * then `LIMIT`). Ties are broken by chunk id so the order is total.
 *
 * `CROSS JOIN` fixes SQLite's loop order (query terms outside, postings
 * inside), so only the postings of the question's terms are read; left to
 * itself the planner scanned every posting of the knowledge base.
 */
export const SQLITE_SEARCH_SQL = `
WITH weights AS (SELECT key AS term, value AS idf FROM json_each(@weights)),
scored AS (
  SELECT p.chunk_id,
         SUM(w.idf * (p.tf_body + @headingWeight * p.tf_heading) * (@k1 + 1)
             / ((p.tf_body + @headingWeight * p.tf_heading)
                + @k1 * (1 - @b + @b * (p.body_length + @headingWeight * p.heading_length) / @averageLength))) AS score
  FROM weights w CROSS JOIN postings p
  WHERE p.kb_id = @kbId AND p.term = w.term
  GROUP BY p.chunk_id
)
SELECT s.chunk_id AS chunkId, s.score AS score, c.heading_path AS headingPath, c.text AS text,
       d.doc_id AS docId, d.title AS title, d.quotable AS quotable, d.content_hash AS contentHash
FROM scored s
JOIN chunks c ON c.id = s.chunk_id
JOIN documents d ON d.id = c.document_id
WHERE d.visibility IN (SELECT value FROM json_each(@visibilities))
  AND (d.visibility <> 'restricted'
       OR EXISTS (SELECT 1 FROM document_readers r WHERE r.document_id = d.id AND r.user_id = @userId))
ORDER BY s.score DESC, s.chunk_id ASC
LIMIT @topK
`;

/** A passage row as the SQLite queries select it (columns aliased to these names). */
export interface PassageRow {
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
    headingPath: JSON.parse(row.headingPath) as string[],
    text: row.text,
    quotable: row.quotable === 1,
    contentHash: row.contentHash,
    score: row.score,
  };
}

/** Passage count and per-term document frequencies of one knowledge base. */
const SQLITE_TERM_STATS_SQL = `
SELECT q.value AS term, (SELECT COUNT(*) FROM postings p WHERE p.kb_id = @kbId AND p.term = q.value) AS df
FROM json_each(@terms) q
`;
const SQLITE_INDEX_STATS_SQL =
  'SELECT chunk_count AS n, body_length_sum AS bodyLength, heading_length_sum AS headingLength FROM index_stats WHERE kb_id = ?';

/** A prepared search bound to one connection. */
export interface PreparedSearch {
  run(query: SearchQuery): SearchResult;
}

/**
 * Prepares {@link SQLITE_SEARCH_SQL} on a connection.
 *
 * @param database an open better-sqlite3 connection (read-only is enough)
 */
export function prepareSearch(database: Database): PreparedSearch {
  const statement: Statement<Record<string, unknown>, PassageRow> = database.prepare(SQLITE_SEARCH_SQL);
  const termStats: Statement<Record<string, unknown>, { term: string; df: number }> =
    database.prepare(SQLITE_TERM_STATS_SQL);
  const indexStats: Statement<[string], { n: number; bodyLength: number; headingLength: number }> =
    database.prepare(SQLITE_INDEX_STATS_SQL);
  return {
    run(query) {
      const documentFrequencies: Record<string, number> = {};
      const stats = indexStats.get(query.reach.kbId);
      const count = stats?.n ?? 0;
      const weights: Record<string, number> = {};
      const terms = JSON.stringify([...new Set(query.terms)]);
      for (const row of termStats.all({ kbId: query.reach.kbId, terms })) {
        documentFrequencies[row.term] = row.df;
        if (row.df > 0) weights[row.term] = inverseDocumentFrequency(count, row.df);
      }
      const result: SearchResult = { passages: [], passageCount: count, documentFrequencies };
      if (Object.keys(weights).length === 0 || query.reach.visibilities.length === 0) return result;
      const rows = statement.all({
        weights: JSON.stringify(weights),
        averageLength: stats ? averageWeightedLength(stats.n, stats.bodyLength, stats.headingLength) : 1,
        kbId: query.reach.kbId,
        userId: query.reach.userId,
        visibilities: JSON.stringify(query.reach.visibilities),
        topK: query.topK,
        k1: BM25_K1,
        b: BM25_B,
        headingWeight: HEADING_WEIGHT,
      });
      result.passages = rows.map((row) => toPassage(query.reach.kbId, row));
      return result;
    },
  };
}
