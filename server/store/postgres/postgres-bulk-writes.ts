import { NEW_DOCUMENT_COLUMNS, type DocumentBulkWrites } from '../documents/document-rows.ts';
import type { SqlExecutor } from '../sql-executor.ts';

/** The values of one field of every passage's lengths, in passage order. */
function lengthColumn(passages: readonly { index: { lengths: readonly number[] } }[], field: number): number[] {
  return passages.map((passage) => passage.index.lengths[field]!);
}

const NEW_DOCUMENT_NAMES = NEW_DOCUMENT_COLUMNS.map((column) => column.name).join(', ');
/** The insert of new documents' rows: one statement over an array per column, whatever their number. */
const NEW_DOCUMENTS_INSERT = `INSERT INTO documents (${NEW_DOCUMENT_NAMES})
  SELECT ${NEW_DOCUMENT_NAMES}
  FROM unnest(${NEW_DOCUMENT_COLUMNS.map((column) => `?::${column.type}[]`).join(', ')}) WITH ORDINALITY AS d(${NEW_DOCUMENT_NAMES}, position)
  ORDER BY d.position
  RETURNING id, kb_id, doc_id`;

/**
 * The PostgreSQL store's many-row writes of a document (store/documents/document-repository.ts):
 * one statement over unnested arrays per batch, on the transaction's
 * connection, instead of a round trip per row. (Postings are written by
 * store/index/index-segments.ts, the same for both backends.)
 */
export const POSTGRES_BULK_WRITES: DocumentBulkWrites = {
  async insertDocuments(transaction, rows) {
    if (rows.length === 0) return [];
    const inserted = await transaction.all<{ id: number; kb_id: string; doc_id: string }>(
      NEW_DOCUMENTS_INSERT,
      NEW_DOCUMENT_COLUMNS.map((column) => rows.map(column.of)),
    );
    // RETURNING's order is not promised: each row is found by its (knowledge base, document id), unique in the table.
    const ids = new Map(inserted.map((row) => [`${row.kb_id}\n${row.doc_id}`, Number(row.id)]));
    return rows.map((row) => ids.get(`${row.kbId}\n${row.docId}`)!);
  },
  async insertChunks(transaction, documents) {
    const chunks = documents.flatMap(({ kbId, documentId, chunks }) => chunks.map((chunk, ordinal) => ({ kbId, documentId, ordinal, chunk })));
    if (chunks.length === 0) return documents.map(() => []);
    // Heading paths travel as JSON (a text[][] cannot be ragged) and become text[] in order.
    const rows = await transaction.all<{ id: number; document_id: number; ordinal: number }>(
      `INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, anchor, text, title_length, description_length, heading_length, body_length)
       SELECT c.document_id, c.kb_id, c.ordinal,
              ARRAY(SELECT h.value FROM jsonb_array_elements_text(c.heading_path) WITH ORDINALITY AS h(value, position) ORDER BY h.position),
              c.anchor, c.text, c.title, c.description, c.heading, c.body
       FROM unnest(?::bigint[], ?::text[], ?::int[], ?::jsonb[], ?::text[], ?::text[], ?::int[], ?::int[], ?::int[], ?::int[])
            WITH ORDINALITY AS c(document_id, kb_id, ordinal, heading_path, anchor, text, title, description, heading, body, position)
       ORDER BY c.position
       RETURNING id, document_id, ordinal`,
      [
        chunks.map((entry) => entry.documentId),
        chunks.map((entry) => entry.kbId),
        chunks.map((entry) => entry.ordinal),
        chunks.map((entry) => JSON.stringify(entry.chunk.headingPath)),
        chunks.map((entry) => entry.chunk.anchor ?? null),
        chunks.map((entry) => entry.chunk.text),
        ...[0, 1, 2, 3].map((field) => lengthColumn(chunks.map((entry) => entry.chunk), field)),
      ],
    );
    const ids = new Map(rows.map((row) => [`${row.document_id}:${row.ordinal}`, Number(row.id)]));
    return documents.map(({ documentId, chunks }) => chunks.map((_, ordinal) => ids.get(`${documentId}:${ordinal}`)!));
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
