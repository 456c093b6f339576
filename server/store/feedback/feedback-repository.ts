import { reachFilter, reachParameters } from '../passages/reach-filter.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import { requireKnowledgeBase } from '../workspace/knowledge-base-checks.ts';
import type { FeedbackInput, FeedbackRecord, FeedbackRepository } from './feedback.ts';

/** A `feedback` row as both backends select it ({@link FEEDBACK_COLUMNS}). */
interface FeedbackRow {
  id: number;
  kind: FeedbackInput['kind'];
  created_at: number;
  question: string;
  provenance: FeedbackInput['provenance'];
  rating: 'up' | 'down' | null;
  reason: string | null;
  comment: string | null;
}

/** The columns of a {@link FeedbackRow}. */
const FEEDBACK_COLUMNS = 'id, kind, created_at, question, provenance, rating, reason, comment';

/** A `feedback_passages` row with its document's title when the document is inside the reader's reach, else null. */
interface FeedbackPassageRow {
  feedback_id: number;
  doc_id: string;
  chunk_id: number;
  version: string;
  title: string | null;
}

/**
 * Feedback records from their rows, in the order of `rows`; optional
 * fields omitted when their column is null.
 *
 * @param passageRows the passages of those records, each record's in order
 */
function feedbackRecords(kbId: string, rows: readonly FeedbackRow[], passageRows: readonly FeedbackPassageRow[]): FeedbackRecord[] {
  const passages = new Map<number, FeedbackRecord['passages']>(rows.map((row) => [row.id, []]));
  for (const row of passageRows) {
    passages.get(row.feedback_id)?.push({
      docId: row.doc_id,
      chunkId: row.chunk_id,
      version: row.version,
      ...(row.title === null ? {} : { title: row.title }),
    });
  }
  return rows.map((row) => ({
    id: row.id,
    kbId,
    kind: row.kind,
    createdAt: row.created_at,
    question: row.question,
    provenance: row.provenance,
    ...(row.rating === null ? {} : { rating: row.rating }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.comment === null ? {} : { comment: row.comment }),
    passages: passages.get(row.id)!,
  }));
}

/**
 * Visitors' feedback and problem reports, with the passages they were
 * about, written once for both backends over a {@link SqlExecutor}. A record
 * and its passages are written in one transaction; records are listed
 * newest first, a page at a time (keyset pagination on creation time, then
 * id), each passage titled only when its document is inside the reader's
 * reach.
 */
export function feedbackRepository(sql: SqlExecutor): FeedbackRepository {
  return {
    addFeedback(input) {
      return sql.transaction(async (transaction) => {
        await requireKnowledgeBase(transaction, input.kbId);
        const { id } = (await transaction.get<{ id: number }>(
          `INSERT INTO feedback (kb_id, kind, created_at, question, provenance, rating, reason, comment)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [input.kbId, input.kind, input.createdAt, input.question, input.provenance, input.rating ?? null, input.reason ?? null, input.comment ?? null],
        ))!;
        for (const [ordinal, passage] of input.passages.entries()) {
          await transaction.run('INSERT INTO feedback_passages (feedback_id, ordinal, doc_id, chunk_id, version) VALUES (?, ?, ?, ?, ?)', [
            id,
            ordinal,
            passage.docId,
            passage.chunkId,
            passage.version,
          ]);
        }
        return id;
      });
    },
    async listFeedback(reach, page) {
      const rows = await sql.all<FeedbackRow>(
        `SELECT ${FEEDBACK_COLUMNS} FROM feedback
         WHERE kb_id = ? AND (CAST(? AS BIGINT) IS NULL OR created_at < CAST(? AS BIGINT)
                              OR (created_at = CAST(? AS BIGINT) AND id < CAST(? AS BIGINT)))
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        [reach.kbId, ...Array<number | null>(3).fill(page.before?.createdAt ?? null), page.before?.id ?? null, page.limit],
      );
      if (rows.length === 0) return [];
      const passages = await sql.all<FeedbackPassageRow>(
        `SELECT p.feedback_id, p.doc_id, p.chunk_id, p.version,
                (SELECT d.title FROM documents d WHERE d.doc_id = p.doc_id AND ${reachFilter(sql.dialect)}) AS title
         FROM feedback_passages p WHERE ${sql.dialect.memberOf('p.feedback_id')}
         ORDER BY p.feedback_id, p.ordinal`,
        [...reachParameters(sql.dialect, reach), sql.dialect.writeList(rows.map((row) => row.id))],
      );
      return feedbackRecords(reach.kbId, rows, passages);
    },
  };
}
