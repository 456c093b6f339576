import type { SqlExecutor } from '../sql-executor.ts';
import { bumpContentVersion } from '../documents/content-version.ts';
import { lockKnowledgeBase } from '../workspace/knowledge-base-checks.ts';
import type { CuratedAnswer, CuratedAnswerRepository, FaqPair } from './curated-answers.ts';

/**
 * A knowledge base's curated answers (question and answer pairs with their
 * sources, kept as JSON text), written once for both backends over a
 * {@link SqlExecutor}: replaced as a whole (`kb faq import`) or one pair at a
 * time (the console's Curated answers tab), listed in order (a pair added
 * later comes after the others). Every write bumps the knowledge base's
 * content version, so no cached answer outlives the pair it came from.
 */
export function curatedAnswerRepository(sql: SqlExecutor): CuratedAnswerRepository {
  /** Runs a write to one knowledge base's pairs: writers take turns, and the content version moves with it. */
  function write<T>(kbId: string, work: (transaction: SqlExecutor) => Promise<T>): Promise<T> {
    return sql.transaction(async (transaction) => {
      await lockKnowledgeBase(transaction, kbId);
      const result = await work(transaction);
      await bumpContentVersion(transaction, kbId);
      return result;
    });
  }

  return {
    replaceFaq(kbId, pairs) {
      return write(kbId, async (transaction) => {
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
      const rows = await sql.all<{ id: number | string; question: string; answer: string; sources: string }>(
        'SELECT id, question, answer, sources FROM faq_pairs WHERE kb_id = ? ORDER BY ordinal, id',
        [kbId],
      );
      return rows.map(toCuratedAnswer);
    },
    addFaqPair(kbId, pair) {
      return write(kbId, async (transaction) => {
        const row = await transaction.get<{ id: number | string }>(
          `INSERT INTO faq_pairs (kb_id, ordinal, question, answer, sources)
           VALUES (?, (SELECT COALESCE(MAX(ordinal) + 1, 0) FROM faq_pairs WHERE kb_id = ?), ?, ?, ?) RETURNING id`,
          [kbId, kbId, pair.question, pair.answer, JSON.stringify(pair.sources)],
        );
        return { ...pair, id: Number(row?.id) };
      });
    },
    updateFaqPair(kbId, id, pair) {
      return write(kbId, async (transaction) => {
        const changed = await transaction.run('UPDATE faq_pairs SET question = ?, answer = ?, sources = ? WHERE kb_id = ? AND id = ?', [
          pair.question,
          pair.answer,
          JSON.stringify(pair.sources),
          kbId,
          id,
        ]);
        return changed > 0;
      });
    },
    removeFaqPair(kbId, id) {
      return write(kbId, async (transaction) => (await transaction.run('DELETE FROM faq_pairs WHERE kb_id = ? AND id = ?', [kbId, id])) > 0);
    },
  };
}

function toCuratedAnswer(row: { id: number | string; question: string; answer: string; sources: string }): CuratedAnswer {
  return { id: Number(row.id), question: row.question, answer: row.answer, sources: JSON.parse(row.sources) as FaqPair['sources'] };
}
