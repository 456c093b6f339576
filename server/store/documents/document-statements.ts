import { deleteSegmentUnits } from '../index/index-segments.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import { NotFoundError } from '../../errors.ts';
import type { DocumentBulkWrites } from './document-rows.ts';

/**
 * The statements the document repository's writes share: a document's
 * storage id, its readers, its removal, and the knowledge base's
 * statistics they change. Each runs in the caller's transaction.
 */

/** What the document repository's functions work over: the executor, the backend's many-row writes and the clock. */
export interface DocumentStorage {
  sql: SqlExecutor;
  bulk: DocumentBulkWrites;
  /** The clock, epoch milliseconds (`updatedAt`). */
  now: () => number;
}

/** A document's storage id, or undefined when it is not stored; `lock` is the dialect's row-lock suffix, if any. */
export async function documentId(transaction: SqlExecutor, kbId: string, docId: string, lock = ''): Promise<number | undefined> {
  return (await transaction.get<{ id: number }>(`SELECT id FROM documents WHERE kb_id = ? AND doc_id = ?${lock}`, [kbId, docId]))?.id;
}

/** The error of a write to a document that is not stored. */
export function missingDocument(kbId: string, docId: string): NotFoundError {
  return new NotFoundError(`Document "${docId}" does not exist in knowledge base "${kbId}"`);
}

/** Adds a change of a knowledge base's passage count to its statistics and bumps its index and content versions (content-version.ts). */
export async function adjustStats(transaction: SqlExecutor, kbId: string, chunks: number): Promise<void> {
  await transaction.run(
    'UPDATE index_stats SET chunk_count = chunk_count + ?, version = version + 1, content_version = content_version + 1 WHERE kb_id = ?',
    [chunks, kbId],
  );
}

/** Stores a document's readers, each once. */
export async function insertReaders(transaction: SqlExecutor, id: number, readers: readonly string[]): Promise<void> {
  for (const userId of new Set(readers)) await transaction.run('INSERT INTO document_readers (document_id, user_id) VALUES (?, ?)', [id, userId]);
}

/** Deletes a stored document, its passages and its index units, and takes its passages off the knowledge base's statistics. */
export async function deleteDocument(transaction: SqlExecutor, kbId: string, id: number): Promise<void> {
  const totals = await transaction.get<{ count: number }>('SELECT chunk_count AS count FROM documents WHERE id = ?', [id]);
  await deleteSegmentUnits(transaction, kbId, id);
  await transaction.run('DELETE FROM documents WHERE id = ?', [id]);
  if (totals) await adjustStats(transaction, kbId, -totals.count);
}
