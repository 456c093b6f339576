import { bumpContentVersion } from './content-version.ts';
import type { IndexedPage } from './index-data.ts';
import { deleteSegmentUnits, writeSegments, type DocumentIndexEntry, type IndexedChunk } from './index-segments.ts';
import { lockKnowledgeBase } from './knowledge-base-checks.ts';
import { nestedTransaction, type SqlExecutor } from './sql-executor.ts';
import { documentRecord, type DocumentRowBase } from './store-records.ts';
import {
  ConflictError,
  NotFoundError,
  StoreUnavailableError,
  type BatchPutOutcome,
  type ChunkInput,
  type DocumentInput,
  type DocumentRepository,
  type IndexRepository,
  type PutOutcome,
} from './store.ts';

/**
 * The writes of a document's many rows, which each backend makes its own
 * fastest way (SQLite: one prepared statement run per row; PostgreSQL: one
 * statement over unnested arrays per batch). Each runs in the transaction
 * of `transaction`, the executor the document repository hands it.
 */
export interface DocumentBulkWrites {
  /**
   * Inserts a document's passages with their field lengths, in order.
   *
   * @returns the new passages' chunk ids, in the order of `chunks`
   */
  insertChunks(transaction: SqlExecutor, kbId: string, documentId: number, chunks: readonly ChunkInput[]): Promise<number[]>;
  /** Sets the field lengths of existing passages (a re-index). */
  updateChunkLengths(transaction: SqlExecutor, passages: readonly IndexedChunk[]): Promise<void>;
  /** Sets the URLs of documents of a knowledge base; a missing document is passed over, an absent URL clears it. */
  setDocumentUrls(transaction: SqlExecutor, kbId: string, urls: readonly { docId: string; url?: string }[]): Promise<void>;
}

/** A `documents` row as {@link DOCUMENT_COLUMNS} selects it. */
interface DocumentRow extends DocumentRowBase {
  quotable: unknown;
  readers: unknown;
}

/** The columns of a {@link DocumentRow}, over documents `d`, its readers aggregated by the dialect. */
function documentColumns(sql: SqlExecutor): string {
  return `d.kb_id, d.doc_id, d.title, d.description, d.url, d.route_url, d.route_slug, d.visibility, d.quotable,
    d.content_hash, d.source_root, d.updated_at, d.chunk_count,
    (SELECT ${sql.dialect.aggregateList('r.user_id')} FROM document_readers r WHERE r.document_id = d.id) AS readers`;
}

/** The repository {@link documentRepository} builds: documents, and the index writes that go with them. */
export type DocumentWrites = DocumentRepository & Pick<IndexRepository, 'listStaleDocuments' | 'readIndexableDocument' | 'reindexDocument'>;

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
 * @param now the clock, epoch milliseconds (`updatedAt`)
 */
export function documentRepository(sql: SqlExecutor, bulk: DocumentBulkWrites, now: () => number): DocumentWrites {
  const { dialect } = sql;

  const documentId = async (transaction: SqlExecutor, kbId: string, docId: string, lock = ''): Promise<number | undefined> =>
    (await transaction.get<{ id: number }>(`SELECT id FROM documents WHERE kb_id = ? AND doc_id = ?${lock}`, [kbId, docId]))?.id;

  const missingDocument = (kbId: string, docId: string) => new NotFoundError(`Document "${docId}" does not exist in knowledge base "${kbId}"`);

  /** Adds a change of a knowledge base's passage count to its statistics and bumps its index and content versions (store/content-version.ts). */
  const adjustStats = (transaction: SqlExecutor, kbId: string, chunks: number) =>
    transaction.run(
      'UPDATE index_stats SET chunk_count = chunk_count + ?, version = version + 1, content_version = content_version + 1 WHERE kb_id = ?',
      [chunks, kbId],
    );

  const insertReaders = async (transaction: SqlExecutor, id: number, readers: readonly string[]) => {
    for (const userId of new Set(readers)) await transaction.run('INSERT INTO document_readers (document_id, user_id) VALUES (?, ?)', [id, userId]);
  };

  /**
   * Writes a document's field-length sums and analysis version and the
   * knowledge base's statistics, its passages holding their field lengths;
   * returns the document's index entry, for the caller to write its
   * postings with those of the other documents of the transaction
   * (index-segments.ts, one segment per transaction).
   */
  const writeIndex = async (
    transaction: SqlExecutor,
    kbId: string,
    id: number,
    analysisVersion: string,
    passages: readonly IndexedChunk[],
    page: IndexedPage,
  ): Promise<DocumentIndexEntry> => {
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
  };

  const insertDocument = async (transaction: SqlExecutor, input: DocumentInput): Promise<DocumentIndexEntry> => {
    const { id } = (await transaction.get<{ id: number }>(
      `INSERT INTO documents (kb_id, doc_id, title, description, url, route_url, route_slug, visibility, quotable, content_hash,
                              source_root, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      [
        input.kbId,
        input.docId,
        input.title,
        input.description ?? null,
        input.url ?? null,
        input.route?.url ?? null,
        input.route?.slug ?? null,
        input.visibility,
        dialect.writeBoolean(input.quotable),
        input.contentHash,
        input.sourceRoot ?? null,
        now(),
      ],
    ))!;
    await insertReaders(transaction, id, input.readers);
    const chunkIds = await bulk.insertChunks(transaction, input.kbId, id, input.chunks);
    const passages = input.chunks.map((chunk, position) => ({ chunkId: chunkIds[position]!, index: chunk.index }));
    return writeIndex(transaction, input.kbId, id, input.analysisVersion, passages, input.page);
  };

  const deleteDocument = async (transaction: SqlExecutor, kbId: string, id: number): Promise<void> => {
    const totals = await transaction.get<{ count: number }>('SELECT chunk_count AS count FROM documents WHERE id = ?', [id]);
    await deleteSegmentUnits(transaction, kbId, id);
    await transaction.run('DELETE FROM documents WHERE id = ?', [id]);
    if (totals) await adjustStats(transaction, kbId, -totals.count);
  };

  /**
   * Creates or replaces one document, in the caller's transaction, its
   * knowledge base locked; its postings are left for the caller to write.
   *
   * @returns the outcome, the new document's index entry, and the storage id of the document it replaced
   */
  const putOne = async (
    transaction: SqlExecutor,
    input: DocumentInput,
  ): Promise<{ outcome: PutOutcome; entry?: DocumentIndexEntry; replaced?: number }> => {
    const existing = await transaction.get<{ id: number; content_hash: string }>('SELECT id, content_hash FROM documents WHERE kb_id = ? AND doc_id = ?', [
      input.kbId,
      input.docId,
    ]);
    if (existing?.content_hash === input.contentHash) return { outcome: 'unchanged' };
    if (existing) await deleteDocument(transaction, input.kbId, existing.id);
    const entry = await insertDocument(transaction, input);
    return existing ? { outcome: 'updated', entry, replaced: existing.id } : { outcome: 'created', entry };
  };

  const toDocument = (row: DocumentRow) => documentRecord(row, { readers: dialect.readList(row.readers), quotable: Boolean(row.quotable) });

  return {
    putDocument(input) {
      return sql.transaction(async (transaction) => {
        await lockKnowledgeBase(transaction, input.kbId);
        const { outcome, entry } = await putOne(transaction, input);
        if (entry) await writeSegments(transaction, input.kbId, [entry]);
        return outcome;
      });
    },
    putDocuments(inputs) {
      return sql.transaction(async (transaction) => {
        // Locked in a fixed order, so that two batches over the same knowledge bases cannot deadlock.
        for (const kbId of [...new Set(inputs.map((input) => input.kbId))].sort()) await lockKnowledgeBase(transaction, kbId);
        const outcomes: BatchPutOutcome[] = [];
        // The index entries of the documents written, by knowledge base and document: written together at the end.
        const pending = new Map<string, Map<number, DocumentIndexEntry>>();
        for (const input of inputs) {
          try {
            // A document that fails is rolled back alone.
            const { outcome, entry, replaced } = await transaction.transaction((nested) => putOne(nested, input));
            const entries = pending.get(input.kbId) ?? new Map<number, DocumentIndexEntry>();
            pending.set(input.kbId, entries);
            // A document written twice in one batch: its first version's postings are never written.
            if (replaced !== undefined) entries.delete(replaced);
            if (entry) entries.set(entry.documentId, entry);
            outcomes.push({ outcome });
          } catch (error) {
            // The database itself failing ends the batch: nothing of it is committed.
            if (error instanceof StoreUnavailableError || !(error instanceof Error)) throw error;
            outcomes.push({ error });
          }
        }
        for (const [kbId, entries] of pending) await writeSegments(transaction, kbId, [...entries.values()]);
        return outcomes;
      });
    },
    async getDocument(kbId, docId) {
      const row = await sql.get<DocumentRow>(`SELECT ${documentColumns(sql)} FROM documents d WHERE d.kb_id = ? AND d.doc_id = ?`, [kbId, docId]);
      return row && toDocument(row);
    },
    async listDocuments(kbId) {
      return (await sql.all<DocumentRow>(`SELECT ${documentColumns(sql)} FROM documents d WHERE d.kb_id = ? ORDER BY d.doc_id`, [kbId])).map(toDocument);
    },
    setDocumentAccess(kbId, docId, access) {
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
    },
    setDocumentUrls(kbId, urls) {
      if (urls.length === 0) return Promise.resolve();
      return sql.transaction(async (transaction) => {
        // The knowledge base's row first, as every writer of its documents takes it (no lock-order deadlock with an ingest).
        await bumpContentVersion(transaction, kbId);
        await bulk.setDocumentUrls(transaction, kbId, urls);
      });
    },
    removeDocument(kbId, docId) {
      return sql.transaction(async (transaction) => {
        if (!(await lockKnowledgeBase(transaction, kbId, false))) return false;
        const id = await documentId(transaction, kbId, docId);
        if (id === undefined) return false;
        await deleteDocument(transaction, kbId, id);
        return true;
      });
    },

    listStaleDocuments(analysisVersion) {
      return sql.all<{ kbId: string; docId: string }>(
        `SELECT kb_id AS "kbId", doc_id AS "docId" FROM documents
         WHERE analysis_version IS NULL OR analysis_version <> ? ORDER BY kb_id, doc_id`,
        [analysisVersion],
      );
    },
    readIndexableDocument(kbId, docId) {
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
    },
    reindexDocument(kbId, docId, analysisVersion, passages, page) {
      return sql.transaction(async (transaction) => {
        await lockKnowledgeBase(transaction, kbId);
        const id = await documentId(transaction, kbId, docId);
        if (id === undefined) throw missingDocument(kbId, docId);
        const own = (await transaction.all<{ id: number }>('SELECT id FROM chunks WHERE document_id = ?', [id])).map((row) => row.id);
        const given = new Set(passages.map((passage) => passage.chunkId));
        if (own.length !== given.size || own.some((chunkId) => !given.has(chunkId))) {
          throw new ConflictError(`The passages of "${docId}" changed while it was re-indexed`);
        }
        await deleteSegmentUnits(transaction, kbId, id);
        await bulk.updateChunkLengths(transaction, passages);
        await writeSegments(transaction, kbId, [await writeIndex(transaction, kbId, id, analysisVersion, passages, page)]);
      });
    },
  };
}
