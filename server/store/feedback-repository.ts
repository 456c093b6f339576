import { requireKnowledgeBase } from './workspace/knowledge-base-checks.ts';
import { reachFilter, reachParameters } from './passages/reach-filter.ts';
import type { SqlExecutor } from './sql-executor.ts';
import { FEEDBACK_COLUMNS, feedbackRecords, type FeedbackPassageRow, type FeedbackRow } from './store-records.ts';
import type { FeedbackRepository } from './store.ts';

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
