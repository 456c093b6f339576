import type { Database, Statement } from 'better-sqlite3';
import type { IndexColumns, KnowledgeBaseIndex, ReachStatistics } from '../index/index-data.ts';
import { PAGE_LENGTH_COLUMNS, toReachStatistics, type ReachStatisticsRow, PASSAGE_COLUMNS, toPassage, type PassageRow } from '../index/index-rows.ts';
import { deletedUnits, SEGMENT_KINDS, type SegmentKind } from '../index/index-segments.ts';
import { SegmentColumnsBuilder, type TermRow } from '../index/segment-columns.ts';
import { reachFilter } from '../passages/reach-filter.ts';
import { SQLITE_DIALECT } from '../sql-executor.ts';
import type { Reach, ScoredPassage, StoredPassage } from '../passages/passages.ts';

/**
 * The embedded store's reads of the lexical index (store/index/index-data.ts) and
 * of passages, as SQL over the `postings`, `chunks` and `documents` tables.
 * Nothing here scores: retrieval/ does, the same way for every backend.
 */

/** The documents of the reach (store/passages/reach-filter.ts), with the named parameters of {@link SqliteReachParameters}. */
export const SQLITE_REACH_FILTER = reachFilter(SQLITE_DIALECT, { kbId: '@kbId', visibilities: '@visibilities', userId: '@userId' });

/** Named parameters of {@link SQLITE_REACH_FILTER}: `@kbId`, `@userId` and `@visibilities` (a JSON array). */
export type SqliteReachParameters = { kbId: string; userId: string; visibilities: string };

/** The values of {@link SQLITE_REACH_FILTER}'s parameters for one reach. */
export function sqliteReachParameters(reach: Reach): SqliteReachParameters {
  return { kbId: reach.kbId, userId: reach.userId, visibilities: JSON.stringify(reach.visibilities) };
}

/** A passage row as the SQLite queries select it: its heading path as JSON text. */
type SqlitePassageRow = PassageRow<string>;


/** Turns a selected passage row into a {@link StoredPassage}. */
function toSqlitePassage(kbId: string, row: SqlitePassageRow): StoredPassage {
  return toPassage(kbId, row, JSON.parse(row.headingPath) as string[]);
}

/** Their sums as `page0` .. `page5`. */
const PAGE_LENGTH_SUMS = PAGE_LENGTH_COLUMNS.map((column, field) => `COALESCE(SUM(d.${column}), 0) AS page${field}`).join(', ');

/**
 * Passages, pages and their field length sums inside the reach, beside the whole
 * knowledge base's passage count (equal counts: the reach covers every
 * passage) and its index version.
 */
const REACH_STATISTICS_SQL = `
SELECT COALESCE(SUM(d.chunk_count), 0) AS passages,
       COALESCE(SUM(d.title_length_sum), 0) AS title, COALESCE(SUM(d.description_length_sum), 0) AS description,
       COALESCE(SUM(d.heading_length_sum), 0) AS heading, COALESCE(SUM(d.body_length_sum), 0) AS body,
       COUNT(*) FILTER (WHERE d.chunk_count > 0) AS pages,
       ${PAGE_LENGTH_SUMS},
       (SELECT chunk_count FROM index_stats WHERE kb_id = @kbId) AS knowledgeBasePassages,
       (SELECT version FROM index_stats WHERE kb_id = @kbId) AS version
FROM documents d WHERE ${SQLITE_REACH_FILTER}
`;

/** The documents inside the reach (storage ids). */
const READABLE_DOCUMENTS_SQL = `SELECT d.id FROM documents d WHERE ${SQLITE_REACH_FILTER}`;

/** The reach's statistics, beside the whole knowledge base's passage count. */
interface SqliteReachStatisticsRow extends ReachStatisticsRow {
  knowledgeBasePassages: number | null;
}

/** The index reads of one connection, with statements prepared once. */
export interface SqliteIndexReads {
  reachStatistics(reach: Reach): ReachStatistics;
  /** @returns undefined when the knowledge base has more than `maxPostings` postings */
  readIndex(kbId: string, maxPostings: number): KnowledgeBaseIndex | undefined;
  readTermIndex(kbId: string, terms: readonly string[]): KnowledgeBaseIndex;
  passagesById(kbId: string, chunkIds: readonly number[]): StoredPassage[];
  /** A document's passages inside the reach, in order, those under `heading` only when given; unscored (0). */
  passagesOf(reach: Reach, docId: string, heading?: string): ScoredPassage[];
  /** How many of a document's passages are inside the reach. */
  countPassages(reach: Reach, docId: string): number;
}

/**
 * Prepares the index reads on a connection. Each read runs in one read
 * transaction (better-sqlite3's `transaction`, deferred), so its parts come
 * from one snapshot while other connections write.
 *
 * @param database an open better-sqlite3 connection (read-only is enough)
 */
export function prepareIndexReads(database: Database): SqliteIndexReads {
  const statistics: Statement<SqliteReachParameters, SqliteReachStatisticsRow> = database.prepare(REACH_STATISTICS_SQL);
  const readableDocuments = database.prepare<SqliteReachParameters, number>(READABLE_DOCUMENTS_SQL).pluck();
  const version = database.prepare<[string], number>('SELECT version FROM index_stats WHERE kb_id = ?').pluck();
  const postingCount = database.prepare<[string], number>('SELECT COALESCE(SUM(postings), 0) FROM index_segments WHERE kb_id = ?').pluck();
  const deletions = database.prepare<[string, number], [number, number]>('SELECT segment_id, unit_id FROM segment_deletions WHERE kb_id = ? AND kind = ?').raw();
  const allTermRows = database
    .prepare<[string, number], TermRow>('SELECT term, segment_id, postings FROM segment_terms WHERE kb_id = ? AND kind = ? ORDER BY term, segment_id')
    .raw();
  const termRows = database
    .prepare<[string, number, string], TermRow>(
      `SELECT term, segment_id, postings FROM segment_terms WHERE kb_id = ? AND kind = ? AND term IN (SELECT value FROM json_each(?))
       ORDER BY term, segment_id`,
    )
    .raw();
  const passages = database.prepare<[string], SqlitePassageRow>(
    `SELECT c.id AS "chunkId", ${PASSAGE_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.id IN (SELECT value FROM json_each(?))`,
  );

  const passagesOfDocument = database.prepare<Record<string, unknown>, SqlitePassageRow>(
    `SELECT c.id AS "chunkId", ${PASSAGE_COLUMNS}
     FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE d.doc_id = @docId AND ${SQLITE_REACH_FILTER}
       AND (@heading IS NULL OR EXISTS (SELECT 1 FROM json_each(c.heading_path) h WHERE h.value = @heading))
     ORDER BY c.ordinal`,
  );
  const passageCount = database
    .prepare<Record<string, unknown>, number>(
      `SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.doc_id = @docId AND ${SQLITE_REACH_FILTER}`,
    )
    .pluck();

  const reachStatistics = database.transaction((reach: Reach): ReachStatistics => {
    const parameters = sqliteReachParameters(reach);
    const row = statistics.get(parameters);
    const coversAll = (row?.passages ?? 0) === (row?.knowledgeBasePassages ?? 0);
    return toReachStatistics(row, coversAll ? undefined : readableDocuments.all(parameters));
  });
  /** One kind of unit's columns from its term rows, deleted units left out. */
  const columnsOf = (at: number, kbId: string, { kind, fieldCount }: SegmentKind, rows: Iterable<TermRow>): IndexColumns => {
    const builder = new SegmentColumnsBuilder(at, fieldCount, deletedUnits(deletions.all(kbId, kind)));
    builder.add(rows);
    return builder.finish();
  };
  const readIndex = database.transaction((kbId: string, maxPostings: number): KnowledgeBaseIndex | undefined => {
    if (postingCount.get(kbId)! > maxPostings) return undefined;
    const at = version.get(kbId) ?? 0;
    return {
      passages: columnsOf(at, kbId, SEGMENT_KINDS.passages, allTermRows.all(kbId, SEGMENT_KINDS.passages.kind)),
      pages: columnsOf(at, kbId, SEGMENT_KINDS.pages, allTermRows.all(kbId, SEGMENT_KINDS.pages.kind)),
    };
  });
  const readTermIndex = database.transaction((kbId: string, terms: readonly string[]): KnowledgeBaseIndex => {
    const at = version.get(kbId) ?? 0;
    const list = JSON.stringify(terms);
    return {
      passages: columnsOf(at, kbId, SEGMENT_KINDS.passages, termRows.all(kbId, SEGMENT_KINDS.passages.kind, list)),
      pages: columnsOf(at, kbId, SEGMENT_KINDS.pages, termRows.all(kbId, SEGMENT_KINDS.pages.kind, list)),
    };
  });
  return {
    reachStatistics: (reach) => reachStatistics(reach),
    readIndex: (kbId, maxPostings) => readIndex(kbId, maxPostings),
    readTermIndex: (kbId, terms) => readTermIndex(kbId, terms),
    passagesById: (kbId, chunkIds) =>
      chunkIds.length === 0 ? [] : passages.all(JSON.stringify(chunkIds)).map((row) => toSqlitePassage(kbId, row)),
    passagesOf: (reach, docId, heading) =>
      passagesOfDocument
        .all({ docId, heading: heading ?? null, ...sqliteReachParameters(reach) })
        .map((row) => ({ ...toSqlitePassage(reach.kbId, row), score: 0 })),
    countPassages: (reach, docId) => passageCount.get({ docId, ...sqliteReachParameters(reach) }) ?? 0,
  };
}
