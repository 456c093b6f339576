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
    insertDocuments: (_transaction, rows) =>
      call(() => {
        const insert = prepare(
          `INSERT INTO documents (kb_id, doc_id, title, description, url, route_url, route_slug, visibility, quotable, content_hash,
                                  source_root, updated_at, chunk_count, title_length_sum, description_length_sum, heading_length_sum,
                                  body_length_sum, page_title_length, page_description_length, page_lead_length, page_headings_length,
                                  page_body_length, page_path_length, analysis_version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        return rows.map((row) =>
          Number(
            insert.run(
              row.kbId,
              row.docId,
              row.title,
              row.description,
              row.url,
              row.routeUrl,
              row.routeSlug,
              row.visibility,
              row.quotable ? 1 : 0,
              row.contentHash,
              row.sourceRoot,
              row.updatedAt,
              row.chunkCount,
              ...row.lengthSums,
              ...row.pageLengths,
              row.analysisVersion,
            ).lastInsertRowid,
          ),
        );
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
