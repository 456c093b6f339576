import type { SqlExecutor } from './sql-executor.ts';
import { bumpContentVersion } from './content-version.ts';
import { lockKnowledgeBase } from './knowledge-base-checks.ts';
import type { CuratedAnswerRepository, FaqPair } from './store.ts';

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
        // Replacements of one knowledge base take turns.
        await lockKnowledgeBase(transaction, kbId);
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
        await bumpContentVersion(transaction, kbId);
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
