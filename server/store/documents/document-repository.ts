import type { SqlExecutor } from '../sql-executor.ts';
import type { IndexRepository } from '../passages/passages.ts';
import { lockKnowledgeBase } from '../workspace/knowledge-base-checks.ts';
import { bumpContentVersion } from './content-version.ts';
import { listStaleDocuments, readIndexableDocument, reindexDocument } from './document-reindex.ts';
import { documentColumns, documentRecord, type DocumentBulkWrites, type DocumentRow } from './document-rows.ts';
import { deleteDocument, documentId, insertReaders, missingDocument } from './document-statements.ts';
import { putDocument, putDocuments } from './document-writes.ts';
import type { DocumentRecord, DocumentRepository } from './documents.ts';

/** The repository {@link documentRepository} builds: documents, and the index writes that go with them. */
export type DocumentWrites = DocumentRepository & Pick<IndexRepository, 'listStaleDocuments' | 'readIndexableDocument' | 'reindexDocument'>;

/** A stored row as a document record. */
function toDocument(sql: SqlExecutor, row: DocumentRow): DocumentRecord {
  return documentRecord(row, { readers: sql.dialect.readList(row.readers), quotable: Boolean(row.quotable) });
}

/** `DocumentRepository.getDocument`. */
export async function getDocument(sql: SqlExecutor, kbId: string, docId: string): Promise<DocumentRecord | undefined> {
  const row = await sql.get<DocumentRow>(`SELECT ${documentColumns(sql)} FROM documents d WHERE d.kb_id = ? AND d.doc_id = ?`, [kbId, docId]);
  return row && toDocument(sql, row);
}

/** `DocumentRepository.listDocuments`: by document id. */
export async function listDocuments(sql: SqlExecutor, kbId: string): Promise<DocumentRecord[]> {
  return (await sql.all<DocumentRow>(`SELECT ${documentColumns(sql)} FROM documents d WHERE d.kb_id = ? ORDER BY d.doc_id`, [kbId])).map((row) =>
    toDocument(sql, row),
  );
}

/**
 * `DocumentRepository.setDocumentAccess`: who may read a document, and whether it is quoted.
 *
 * @throws NotFoundError when the document is not stored
 */
export function setDocumentAccess(
  sql: SqlExecutor,
  now: () => number,
  kbId: string,
  docId: string,
  access: Parameters<DocumentRepository['setDocumentAccess']>[2],
): Promise<void> {
  const { dialect } = sql;
  return sql.transaction(async (transaction) => {
    // The knowledge base's row first, as every writer of its documents takes it (no lock-order deadlock with an ingest).
    await bumpContentVersion(transaction, kbId);
    const id = await documentId(transaction, kbId, docId, dialect.forUpdate);
    if (id === undefined) throw missingDocument(kbId, docId);
    await transaction.run('UPDATE documents SET visibility = ?, quotable = ?, updated_at = ? WHERE id = ?', [
      access.visibility,
      dialect.writeBoolean(access.quotable),
      now(),
      id,
    ]);
    await transaction.run('DELETE FROM document_readers WHERE document_id = ?', [id]);
    await insertReaders(transaction, id, access.readers);
  });
}

/** `DocumentRepository.setDocumentUrls`. */
export function setDocumentUrls(
  sql: SqlExecutor,
  bulk: DocumentBulkWrites,
  kbId: string,
  urls: readonly { docId: string; url?: string }[],
): Promise<void> {
  if (urls.length === 0) return Promise.resolve();
  return sql.transaction(async (transaction) => {
    // The knowledge base's row first, as every writer of its documents takes it (no lock-order deadlock with an ingest).
    await bumpContentVersion(transaction, kbId);
    await bulk.setDocumentUrls(transaction, kbId, urls);
  });
}

/** `DocumentRepository.removeDocument`: false when the knowledge base or the document is not stored. */
export function removeDocument(sql: SqlExecutor, kbId: string, docId: string): Promise<boolean> {
  return sql.transaction(async (transaction) => {
    if (!(await lockKnowledgeBase(transaction, kbId, false))) return false;
    const id = await documentId(transaction, kbId, docId);
    if (id === undefined) return false;
    await deleteDocument(transaction, kbId, id);
    return true;
  });
}

/**
 * Documents, their passages and their entries of the lexical index, written
 * once for both backends over a {@link SqlExecutor}; only the many-row
 * inserts are the backend's ({@link DocumentBulkWrites}). Every write runs
 * in one transaction holding its knowledge base's statistics row (locked in
 * PostgreSQL; SQLite's writers take turns anyway), so that a knowledge
 * base's writers take turns, its counts stay exact, and a failed write
 * leaves the knowledge base as it was. Every change of the postings bumps
 * the knowledge base's index version, which tells the in-memory indexes of
 * other connections (retrieval/index-cache.ts) that they are stale.
 *
 * The methods are this module's functions, the creating writes'
 * (document-writes.ts) and re-indexing's (document-reindex.ts); this
 * factory only composes them.
 *
 * @param now the clock, epoch milliseconds (`updatedAt`)
 */
export function documentRepository(sql: SqlExecutor, bulk: DocumentBulkWrites, now: () => number): DocumentWrites {
  const storage = { sql, bulk, now };
  return {
    putDocument: (input) => putDocument(storage, input),
    putDocuments: (inputs) => putDocuments(storage, inputs),
    getDocument: (kbId, docId) => getDocument(sql, kbId, docId),
    listDocuments: (kbId) => listDocuments(sql, kbId),
    setDocumentAccess: (kbId, docId, access) => setDocumentAccess(sql, now, kbId, docId, access),
    setDocumentUrls: (kbId, urls) => setDocumentUrls(sql, bulk, kbId, urls),
    removeDocument: (kbId, docId) => removeDocument(sql, kbId, docId),
    listStaleDocuments: (analysisVersion) => listStaleDocuments(sql, analysisVersion),
    readIndexableDocument: (kbId, docId) => readIndexableDocument(sql, kbId, docId),
    reindexDocument: (kbId, docId, analysisVersion, passages, page) => reindexDocument(storage, kbId, docId, analysisVersion, passages, page),
  };
}
