import type { IndexedPage } from '../index/index-data.ts';
import { deleteSegmentUnits, writeSegments, type DocumentIndexEntry, type IndexedChunk } from '../index/index-segments.ts';
import type { IndexablePassage } from '../passages/passages.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import { ConflictError } from '../../errors.ts';
import { lockKnowledgeBase } from '../workspace/knowledge-base-checks.ts';
import { adjustStats, documentId, missingDocument, type DocumentStorage } from './document-statements.ts';

/**
 * Re-indexing a stored document when the analysis changed
 * (`IndexRepository.listStaleDocuments`, `readIndexableDocument`,
 * `reindexDocument`; retrieval/reindex.ts runs them): its passages stay,
 * their field lengths, the document's sums and its postings are re-made.
 */

/**
 * Writes a document's field-length sums and analysis version and the
 * knowledge base's statistics, its passages holding their field lengths;
 * returns the document's index entry, for the caller to write its
 * postings with those of the other documents of the transaction
 * (store/index/index-segments.ts, one segment per transaction).
 */
async function writeIndex(
  transaction: SqlExecutor,
  kbId: string,
  id: number,
  analysisVersion: string,
  passages: readonly IndexedChunk[],
  page: IndexedPage,
): Promise<DocumentIndexEntry> {
  await transaction.run(
    `UPDATE documents SET page_title_length = ?, page_description_length = ?, page_lead_length = ?, page_headings_length = ?,
       page_body_length = ?, page_path_length = ? WHERE id = ?`,
    [...page.lengths, id],
  );
  const sums = [0, 0, 0, 0];
  for (const { index } of passages) index.lengths.forEach((length, field) => (sums[field] = sums[field]! + length));
  const counts = (await transaction.get<{ previous: number; count: number }>(
    'SELECT chunk_count AS previous, (SELECT COUNT(*) FROM chunks WHERE document_id = ?) AS count FROM documents WHERE id = ?',
    [id, id],
  ))!;
  await transaction.run(
    `UPDATE documents SET chunk_count = ?, title_length_sum = ?, description_length_sum = ?, heading_length_sum = ?, body_length_sum = ?,
       analysis_version = ? WHERE id = ?`,
    [counts.count, ...sums, analysisVersion, id],
  );
  await adjustStats(transaction, kbId, counts.count - counts.previous);
  return { documentId: id, passages, page };
}

/** `IndexRepository.listStaleDocuments`: documents indexed with another analysis, or before analyses were versioned. */
export function listStaleDocuments(sql: SqlExecutor, analysisVersion: string): Promise<{ kbId: string; docId: string }[]> {
  return sql.all<{ kbId: string; docId: string }>(
    `SELECT kb_id AS "kbId", doc_id AS "docId" FROM documents
     WHERE analysis_version IS NULL OR analysis_version <> ? ORDER BY kb_id, doc_id`,
    [analysisVersion],
  );
}

/** `IndexRepository.readIndexableDocument`: a document's title, description and passages, read in one snapshot. */
export function readIndexableDocument(
  sql: SqlExecutor,
  kbId: string,
  docId: string,
): Promise<{ title: string; description?: string; passages: IndexablePassage[] } | undefined> {
  const { dialect } = sql;
  // One snapshot: the document and its passages as of one moment.
  return sql.transaction(async (transaction) => {
    const document = await transaction.get<{ id: number; title: string; description: string | null }>(
      'SELECT id, title, description FROM documents WHERE kb_id = ? AND doc_id = ?',
      [kbId, docId],
    );
    if (!document) return undefined;
    const rows = await transaction.all<{ chunkId: number; headingPath: unknown; text: string }>(
      'SELECT id AS "chunkId", heading_path AS "headingPath", text FROM chunks WHERE document_id = ? ORDER BY ordinal',
      [document.id],
    );
    const passages = rows.map((row) => ({ chunkId: row.chunkId, headingPath: dialect.readList(row.headingPath), text: row.text }));
    return { title: document.title, ...(document.description === null ? {} : { description: document.description }), passages };
  }, { readOnly: true });
}

/**
 * `IndexRepository.reindexDocument`: replaces the index of a stored
 * document's passages and records the analysis that made it.
 *
 * @throws NotFoundError when the document is not stored
 * @throws ConflictError when `passages` are not exactly its passages
 */
export function reindexDocument(
  storage: DocumentStorage,
  kbId: string,
  docId: string,
  analysisVersion: string,
  passages: readonly IndexedChunk[],
  page: IndexedPage,
): Promise<void> {
  return storage.sql.transaction(async (transaction) => {
    await lockKnowledgeBase(transaction, kbId);
    const id = await documentId(transaction, kbId, docId);
    if (id === undefined) throw missingDocument(kbId, docId);
    const own = (await transaction.all<{ id: number }>('SELECT id FROM chunks WHERE document_id = ?', [id])).map((row) => row.id);
    const given = new Set(passages.map((passage) => passage.chunkId));
    if (own.length !== given.size || own.some((chunkId) => !given.has(chunkId))) {
      throw new ConflictError(`The passages of "${docId}" changed while it was re-indexed`);
    }
    await deleteSegmentUnits(transaction, kbId, id);
    await storage.bulk.updateChunkLengths(transaction, passages);
    await writeSegments(transaction, kbId, [await writeIndex(transaction, kbId, id, analysisVersion, passages, page)]);
  });
}
