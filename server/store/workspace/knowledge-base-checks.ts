import type { SqlExecutor } from '../sql-executor.ts';
import { NotFoundError } from '../../errors.ts';

/**
 * The knowledge-base checks the shared repositories make before they write
 * under a knowledge base (workspace, documents, feedback, curated answers).
 */

/** @throws NotFoundError when the knowledge base does not exist */
export async function requireKnowledgeBase(sql: SqlExecutor, kbId: string): Promise<void> {
  if ((await sql.get('SELECT 1 AS found FROM knowledge_bases WHERE id = ?', [kbId])) === undefined) {
    throw new NotFoundError(`Knowledge base "${kbId}" does not exist`);
  }
}

/**
 * Locks a knowledge base's statistics row until the transaction ends (in
 * PostgreSQL; SQLite's writers take turns anyway), so that writers of one
 * knowledge base take turns and its counts stay exact.
 *
 * @param transaction the open transaction's executor
 * @returns whether the knowledge base exists
 * @throws NotFoundError when it does not and `required` (the default)
 */
export async function lockKnowledgeBase(transaction: SqlExecutor, kbId: string, required = true): Promise<boolean> {
  const found = (await transaction.get(`SELECT 1 AS found FROM index_stats WHERE kb_id = ?${transaction.dialect.forUpdate}`, [kbId])) !== undefined;
  if (!found && required) throw new NotFoundError(`Knowledge base "${kbId}" does not exist`);
  return found;
}
