import type { Statement } from 'better-sqlite3';
import type { DocumentBulkWrites } from './document-repository.ts';

/**
 * The embedded store's many-row writes of a document (document-repository.ts):
 * one prepared statement run per row, synchronously, on the connection whose
 * transaction is open (the executor handed in is that transaction's, so the
 * rows land in it).
 *
 * @param prepare the connection's prepared statement for a SQL text (cached)
 * @param call runs a synchronous database call, its failure translated into the store's errors
 */
export function sqliteBulkWrites(
  prepare: (sql: string) => Statement<unknown[]>,
  call: <T>(work: () => T) => Promise<T>,
): DocumentBulkWrites {
  return {
    insertChunks: (_transaction, kbId, documentId, chunks) =>
      call(() => {
        const insert = prepare(
          `INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, anchor, text, title_length, description_length, heading_length, body_length)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        return chunks.map((chunk, ordinal) =>
          Number(
            insert.run(documentId, kbId, ordinal, JSON.stringify(chunk.headingPath), chunk.anchor ?? null, chunk.text, ...chunk.index.lengths)
              .lastInsertRowid,
          ),
        );
      }),
    updateChunkLengths: (_transaction, passages) =>
      call(() => {
        const update = prepare('UPDATE chunks SET title_length = ?, description_length = ?, heading_length = ?, body_length = ? WHERE id = ?');
        for (const { chunkId, index } of passages) update.run(...index.lengths, chunkId);
      }),
    insertIndex: (_transaction, kbId, documents) =>
      call(() => {
        const insertPage = prepare(
          `INSERT INTO page_postings (kb_id, term, document_id, tf_title, tf_description, tf_lead, tf_headings, tf_body, tf_path)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        const insertPassage = prepare(
          `INSERT INTO postings (kb_id, term, chunk_id, document_id, tf_title, tf_description, tf_heading, tf_body)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const { documentId, passages, page } of documents) {
          for (const [term, frequencies] of page.terms) insertPage.run(kbId, term, documentId, ...frequencies);
          for (const { chunkId, index } of passages) {
            for (const [term, frequencies] of index.terms) insertPassage.run(kbId, term, chunkId, documentId, ...frequencies);
          }
        }
      }),
    deleteIndex: (_transaction, _kbId, documentId) =>
      call(() => {
        prepare('DELETE FROM postings WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)').run(documentId);
        prepare('DELETE FROM page_postings WHERE document_id = ?').run(documentId);
      }),
    setDocumentUrls: (_transaction, kbId, urls) =>
      call(() => {
        const update = prepare('UPDATE documents SET url = ? WHERE kb_id = ? AND doc_id = ?');
        for (const entry of urls) update.run(entry.url ?? null, kbId, entry.docId);
      }),
  };
}
