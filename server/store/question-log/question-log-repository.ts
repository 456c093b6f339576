import type { SqlExecutor } from '../sql-executor.ts';
import type { QuestionLogEntry, QuestionLogRecord, QuestionLogRepository } from './question-log.ts';

/**
 * The question log (docs/operations.md "Question log"), written once for both backends over a
 * {@link SqlExecutor}: entries arrive in batches from the writer that keeps
 * them off the request path (question-log/question-log-writer.ts), are listed
 * newest first a page at a time (keyset pagination on creation time, then
 * id), gain the feedback that arrives for them, and are pruned by age.
 */
export function questionLogRepository(sql: SqlExecutor): QuestionLogRepository {
  return {
    async addQuestionLogEntries(entries) {
      if (entries.length === 0) return;
      await sql.transaction(async (transaction) => {
        // An entry of a knowledge base removed since it was asked is dropped, not an error for the whole batch.
        const kbIds = [...new Set(entries.map((entry) => entry.kbId))];
        const existing = new Set(
          (await transaction.all<{ id: string }>(`SELECT id FROM knowledge_bases WHERE ${transaction.dialect.memberOf('id')}`, [transaction.dialect.writeList(kbIds)])).map(
            (row) => row.id,
          ),
        );
        const kept = entries.filter((entry) => existing.has(entry.kbId));
        // Many rows a statement: one round trip for a batch on PostgreSQL.
        for (let start = 0; start < kept.length; start += ROWS_PER_INSERT) {
          const rows = kept.slice(start, start + ROWS_PER_INSERT);
          await transaction.run(
            `INSERT INTO question_log (kb_id, created_at, question, provenance, cited_doc_ids, latency_ms, channel) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
            rows.flatMap((entry) => [entry.kbId, entry.createdAt, entry.question, entry.provenance, JSON.stringify(entry.citedDocIds), Math.round(entry.latencyMs), entry.channel]),
          );
        }
      });
    },
    async listQuestionLog(kbId, page) {
      const before = page.before;
      const rows = await sql.all<QuestionLogRow>(
        `SELECT id, created_at, question, provenance, cited_doc_ids, latency_ms, channel, rating, rating_reason, problem_reports
         FROM question_log
         WHERE kb_id = ? AND created_at >= CAST(? AS BIGINT)
           AND (CAST(? AS BIGINT) IS NULL OR created_at < CAST(? AS BIGINT) OR (created_at = CAST(? AS BIGINT) AND id < CAST(? AS BIGINT)))
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        [kbId, page.since ?? 0, ...Array<number | null>(3).fill(before?.createdAt ?? null), before?.id ?? null, page.limit],
      );
      return rows.map((row) => toRecord(kbId, row));
    },
    async recordQuestionFeedback(kbId, question, at, withinMs, feedback) {
      const entry = await sql.get<{ id: number }>(
        `SELECT id FROM question_log
         WHERE kb_id = ? AND question = ? AND created_at >= CAST(? AS BIGINT) AND created_at <= CAST(? AS BIGINT)
         ORDER BY created_at DESC, id DESC LIMIT 1`,
        [kbId, question, at - withinMs, at],
      );
      if (entry === undefined) return false;
      if (feedback.kind === 'rating') {
        await sql.run('UPDATE question_log SET rating = ?, rating_reason = ? WHERE id = ?', [feedback.rating, feedback.reason ?? null, entry.id]);
      } else {
        await sql.run('UPDATE question_log SET problem_reports = problem_reports + 1 WHERE id = ?', [entry.id]);
      }
      return true;
    },
    pruneQuestionLog(before) {
      return sql.run('DELETE FROM question_log WHERE created_at < CAST(? AS BIGINT)', [before]);
    },
    async questionLogDays(kbId, since) {
      // Integer division of integers in both backends: whole days since the epoch, in UTC.
      const rows = await sql.all<{ day: number | string; questions: number | string; abstained: number | string }>(
        `SELECT created_at / 86400000 AS day, COUNT(*) AS questions, SUM(CASE WHEN provenance = 'abstained' THEN 1 ELSE 0 END) AS abstained
         FROM question_log WHERE kb_id = ? AND created_at >= CAST(? AS BIGINT)
         GROUP BY created_at / 86400000 ORDER BY day`,
        [kbId, since],
      );
      return rows.map((row) => ({ day: Number(row.day), questions: Number(row.questions), abstained: Number(row.abstained) }));
    },
  };
}

/** Rows of one INSERT: 7 parameters each, far below either backend's limit on parameters. */
const ROWS_PER_INSERT = 500;

/** A `question_log` row as both backends select it. */
interface QuestionLogRow {
  id: number | string;
  created_at: number | string;
  question: string;
  provenance: QuestionLogEntry['provenance'];
  cited_doc_ids: string;
  latency_ms: number;
  channel: QuestionLogEntry['channel'];
  rating: 'up' | 'down' | null;
  rating_reason: string | null;
  problem_reports: number;
}

function toRecord(kbId: string, row: QuestionLogRow): QuestionLogRecord {
  return {
    id: Number(row.id),
    kbId,
    createdAt: Number(row.created_at),
    question: row.question,
    provenance: row.provenance,
    citedDocIds: JSON.parse(row.cited_doc_ids) as string[],
    latencyMs: row.latency_ms,
    channel: row.channel,
    ...(row.rating === null ? {} : { rating: row.rating }),
    ...(row.rating_reason === null ? {} : { ratingReason: row.rating_reason }),
    problemReports: row.problem_reports,
  };
}
