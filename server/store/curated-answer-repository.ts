import type { SqlExecutor } from './sql-executor.ts';
import { NotFoundError, type CuratedAnswerRepository, type FaqPair } from './store.ts';

/**
 * A knowledge base's curated answers (question and answer pairs with their
 * sources, kept as JSON text), written once for both backends over a
 * {@link SqlExecutor}: replaced as a whole in one transaction, listed in the
 * order given.
 */
export function curatedAnswerRepository(sql: SqlExecutor): CuratedAnswerRepository {
  return {
    replaceFaq(kbId, pairs) {
      return sql.transaction(async (transaction) => {
        // The knowledge base's statistics row, locked: replacements of one knowledge base take turns.
        if ((await transaction.get(`SELECT 1 AS found FROM index_stats WHERE kb_id = ?${sql.dialect.forUpdate}`, [kbId])) === undefined) {
          throw new NotFoundError(`Knowledge base "${kbId}" does not exist`);
        }
        await transaction.run('DELETE FROM faq_pairs WHERE kb_id = ?', [kbId]);
        for (const [ordinal, pair] of pairs.entries()) {
          await transaction.run('INSERT INTO faq_pairs (kb_id, ordinal, question, answer, sources) VALUES (?, ?, ?, ?, ?)', [
            kbId,
            ordinal,
            pair.question,
            pair.answer,
            JSON.stringify(pair.sources),
          ]);
        }
      });
    },
    async listFaq(kbId) {
      const rows = await sql.all<{ question: string; answer: string; sources: string }>(
        'SELECT question, answer, sources FROM faq_pairs WHERE kb_id = ? ORDER BY ordinal',
        [kbId],
      );
      return rows.map((row) => ({ question: row.question, answer: row.answer, sources: JSON.parse(row.sources) as FaqPair['sources'] }));
    },
  };
}
