import type { DocumentBulkWrites } from './document-repository.ts';
import type { SqlExecutor } from './sql-executor.ts';

/** The values of one field of every passage's lengths, in passage order. */
function lengthColumn(passages: readonly { index: { lengths: readonly number[] } }[], field: number): number[] {
  return passages.map((passage) => passage.index.lengths[field]!);
}

/**
 * The PostgreSQL store's many-row writes of a document (document-repository.ts):
 * one statement over unnested arrays per batch, on the transaction's
 * connection, instead of a round trip per row. (Postings are written by
 * index-segments.ts, the same for both backends.)
 */
export const POSTGRES_BULK_WRITES: DocumentBulkWrites = {
  async insertChunks(transaction, kbId, documentId, chunks) {
    if (chunks.length === 0) return [];
    // Heading paths travel as JSON (a text[][] cannot be ragged) and become text[] in order.
    const rows = await transaction.all<{ id: number; ordinal: number }>(
      `INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, anchor, text, title_length, description_length, heading_length, body_length)
       SELECT ?::bigint, ?, c.ordinal - 1,
              ARRAY(SELECT h.value FROM jsonb_array_elements_text(c.heading_path) WITH ORDINALITY AS h(value, position) ORDER BY h.position),
              c.anchor, c.text, c.title, c.description, c.heading, c.body
       FROM unnest(?::jsonb[], ?::text[], ?::text[], ?::int[], ?::int[], ?::int[], ?::int[])
            WITH ORDINALITY AS c(heading_path, anchor, text, title, description, heading, body, ordinal)
       ORDER BY c.ordinal
       RETURNING id, ordinal`,
      [
        documentId,
        kbId,
        chunks.map((chunk) => JSON.stringify(chunk.headingPath)),
        chunks.map((chunk) => chunk.anchor ?? null),
        chunks.map((chunk) => chunk.text),
        ...[0, 1, 2, 3].map((field) => lengthColumn(chunks, field)),
      ],
    );
    const byOrdinal = new Map(rows.map((row) => [row.ordinal, row.id]));
    return chunks.map((_, ordinal) => byOrdinal.get(ordinal)!);
  },
  async updateChunkLengths(transaction, passages) {
    if (passages.length === 0) return;
    await transaction.run(
      `UPDATE chunks c SET title_length = l.title, description_length = l.description, heading_length = l.heading, body_length = l.body
       FROM unnest(?::bigint[], ?::int[], ?::int[], ?::int[], ?::int[]) AS l(id, title, description, heading, body)
       WHERE c.id = l.id`,
      [passages.map((passage) => passage.chunkId), ...[0, 1, 2, 3].map((field) => lengthColumn(passages, field))],
    );
  },
  async setDocumentUrls(transaction: SqlExecutor, kbId, urls) {
    await transaction.run(
      `UPDATE documents d SET url = u.url FROM unnest(?::text[], ?::text[]) AS u(doc_id, url)
       WHERE d.kb_id = ? AND d.doc_id = u.doc_id`,
      [urls.map((entry) => entry.docId), urls.map((entry) => entry.url ?? null), kbId],
    );
  },
};
