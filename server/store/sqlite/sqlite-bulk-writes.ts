import type { Statement } from 'better-sqlite3';
import { NEW_DOCUMENT_COLUMNS, type DocumentBulkWrites } from '../documents/document-rows.ts';

/**
 * The embedded store's many-row writes of a document (store/documents/document-repository.ts):
 * one prepared statement run per row, synchronously, on the connection whose
 * transaction is open (the executor handed in is that transaction's, so the
 * rows land in it).
 *
 * @param prepare the connection's prepared statement for a SQL text (cached)
 * @param call runs a synchronous database call, its failure translated into the store's errors
 */
/** The insert of one new document's row. */
const NEW_DOCUMENT_INSERT = `INSERT INTO documents (${NEW_DOCUMENT_COLUMNS.map((column) => column.name).join(', ')})
  VALUES (${NEW_DOCUMENT_COLUMNS.map(() => '?').join(', ')})`;

export function sqliteBulkWrites(
  prepare: (sql: string) => Statement<unknown[]>,
  call: <T>(work: () => T) => Promise<T>,
): DocumentBulkWrites {
  return {
    insertDocuments: (_transaction, rows) =>
      call(() => {
        const insert = prepare(NEW_DOCUMENT_INSERT);
        return rows.map((row) => Number(insert.run(...NEW_DOCUMENT_COLUMNS.map((column) => column.of(row))).lastInsertRowid));
      }),
    insertChunks: (_transaction, documents) =>
      call(() => {
        const insert = prepare(
          `INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, anchor, text, title_length, description_length, heading_length, body_length)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        return documents.map(({ kbId, documentId, chunks }) =>
          chunks.map((chunk, ordinal) =>
            Number(
              insert.run(documentId, kbId, ordinal, JSON.stringify(chunk.headingPath), chunk.anchor ?? null, chunk.text, ...chunk.index.lengths)
                .lastInsertRowid,
            ),
          ),
        );
      }),
    updateChunkLengths: (_transaction, passages) =>
      call(() => {
        const update = prepare('UPDATE chunks SET title_length = ?, description_length = ?, heading_length = ?, body_length = ? WHERE id = ?');
        for (const { chunkId, index } of passages) update.run(...index.lengths, chunkId);
      }),
    setDocumentUrls: (_transaction, kbId, urls) =>
      call(() => {
        const update = prepare('UPDATE documents SET url = ? WHERE kb_id = ? AND doc_id = ?');
        for (const entry of urls) update.run(entry.url ?? null, kbId, entry.docId);
      }),
  };
}
