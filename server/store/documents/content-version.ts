import type { SqlExecutor } from '../sql-executor.ts';
import type { ContentVersionRepository } from './documents.ts';

/**
 * A knowledge base's content version: a counter in `index_stats` bumped in
 * the same transaction as every write that can change an answer - a
 * document written or removed (its passages, index, title, URL), a
 * document's access changed, its URLs set from the site settings, its
 * curated answers replaced - and read as one value with the knowledge
 * base's creation time, so a knowledge base deleted and created again
 * under the same id never repeats a version. What holds answers (the
 * answer cache, engine/answer-cache.ts) keys them by it.
 */

/** Bumps the knowledge base's content version; call inside the write's transaction. */
export async function bumpContentVersion(transaction: SqlExecutor, kbId: string): Promise<void> {
  await transaction.run('UPDATE index_stats SET content_version = content_version + 1 WHERE kb_id = ?', [kbId]);
}

/** The read of {@link ContentVersionRepository.contentVersion}, for both backends. */
export function contentVersionRepository(sql: SqlExecutor): ContentVersionRepository {
  return {
    async contentVersion(kbId) {
      const row = await sql.get<{ created_at: number | string; content_version: number | string }>(
        'SELECT k.created_at, s.content_version FROM knowledge_bases k JOIN index_stats s ON s.kb_id = k.id WHERE k.id = ?',
        [kbId],
      );
      return row && `${row.created_at}:${row.content_version}`;
    },
  };
}
