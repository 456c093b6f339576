import type { IndexedPage } from '../index/index-data.ts';
import { deleteSegmentUnits, writeSegments, type DocumentIndexEntry, type IndexedChunk } from '../index/index-segments.ts';
import { nestedTransaction, type SqlExecutor } from '../sql-executor.ts';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../../errors.ts';
import type { IndexRepository } from '../passages/passages.ts';
import { lockKnowledgeBase } from '../workspace/knowledge-base-checks.ts';
import { bumpContentVersion } from './content-version.ts';
import { documentColumns, documentRecord, type DocumentBulkWrites, type DocumentRow, type NewDocumentRow } from './document-rows.ts';
import type { BatchPutOutcome, ChunkInput, DocumentInput, DocumentRepository, PutOutcome } from './documents.ts';

/** Items by a key of theirs, each group in the items' order (Map.groupBy, which Node.js 20 lacks). */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** What became of one document of a write: its outcome, and when written its index entry and the id of the document it replaced. */
interface WrittenDocument {
  outcome: PutOutcome;
  kbId: string;
  entry?: DocumentIndexEntry;
  replaced?: number;
}

/** A document's key across knowledge bases. */
function documentKey(kbId: string, docId: string): string {
  return `${kbId}\n${docId}`;
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

  /** Adds a change of a knowledge base's passage count to its statistics and bumps its index and content versions (content-version.ts). */
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
   * (store/index/index-segments.ts, one segment per transaction).
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

  const newRow = (input: DocumentInput): NewDocumentRow => {
    const lengthSums = [0, 0, 0, 0];
    for (const { index } of input.chunks) index.lengths.forEach((length, field) => (lengthSums[field] = lengthSums[field]! + length));
    return {
      kbId: input.kbId,
      docId: input.docId,
      title: input.title,
      description: input.description ?? null,
      url: input.url ?? null,
      routeUrl: input.route?.url ?? null,
      routeSlug: input.route?.slug ?? null,
      visibility: input.visibility,
      quotable: dialect.writeBoolean(input.quotable),
      contentHash: input.contentHash,
      sourceRoot: input.sourceRoot ?? null,
      updatedAt: now(),
      chunkCount: input.chunks.length,
      lengthSums,
      pageLengths: input.page.lengths,
      analysisVersion: input.analysisVersion,
    };
  };

  /**
   * Inserts new documents (none of them stored) with their readers and
   * passages, and adds their passages to their knowledge bases'
   * statistics; returns their index entries, in order, for the caller to
   * write their postings (store/index/index-segments.ts, one segment per transaction).
   * A few statements for the lot, whatever their number.
   */
  const insertDocuments = async (transaction: SqlExecutor, inputs: readonly DocumentInput[]): Promise<DocumentIndexEntry[]> => {
    if (inputs.length === 0) return [];
    const ids = await bulk.insertDocuments(transaction, inputs.map(newRow));
    for (const [position, input] of inputs.entries()) await insertReaders(transaction, ids[position]!, input.readers);
    const chunkIds = await bulk.insertChunks(
      transaction,
      inputs.map((input, position) => ({ kbId: input.kbId, documentId: ids[position]!, chunks: input.chunks })),
    );
    const added = new Map<string, number>();
    for (const input of inputs) added.set(input.kbId, (added.get(input.kbId) ?? 0) + input.chunks.length);
    for (const [kbId, chunks] of added) await adjustStats(transaction, kbId, chunks);
    return inputs.map((input, position) => ({
      documentId: ids[position]!,
      passages: input.chunks.map((chunk, ordinal) => ({ chunkId: chunkIds[position]![ordinal]!, index: chunk.index })),
      page: input.page,
    }));
  };

  const deleteDocument = async (transaction: SqlExecutor, kbId: string, id: number): Promise<void> => {
    const totals = await transaction.get<{ count: number }>('SELECT chunk_count AS count FROM documents WHERE id = ?', [id]);
    await deleteSegmentUnits(transaction, kbId, id);
    await transaction.run('DELETE FROM documents WHERE id = ?', [id]);
    if (totals) await adjustStats(transaction, kbId, -totals.count);
  };

  /**
   * Creates or replaces documents whose ids are distinct, in the caller's
   * transaction, their knowledge bases locked; their postings are left for
   * the caller to write. The stored versions are read at once and the new
   * ones inserted together, so a batch costs a few statements, not a few
   * per document.
   *
   * @returns for each document, in order, its outcome and knowledge base,
   *   and when written its index entry and the storage id of the document it replaced
   */
  const writeDocuments = async (transaction: SqlExecutor, inputs: readonly DocumentInput[]): Promise<WrittenDocument[]> => {
    const stored = new Map<string, { id: number; contentHash: string }>();
    for (const [kbId, documents] of groupBy(inputs, (input) => input.kbId)) {
      const rows = await transaction.all<{ id: number; doc_id: string; content_hash: string }>(
        `SELECT id, doc_id, content_hash FROM documents WHERE kb_id = ? AND doc_id IN (${documents.map(() => '?').join(', ')})`,
        [kbId, ...documents.map((input) => input.docId)],
      );
      for (const row of rows) stored.set(documentKey(kbId, row.doc_id), { id: row.id, contentHash: row.content_hash });
    }
    const written: WrittenDocument[] = [];
    const inserted: DocumentInput[] = [];
    for (const input of inputs) {
      const existing = stored.get(documentKey(input.kbId, input.docId));
      if (existing?.contentHash === input.contentHash) {
        written.push({ outcome: 'unchanged', kbId: input.kbId });
        continue;
      }
      if (existing) await deleteDocument(transaction, input.kbId, existing.id);
      written.push(existing ? { outcome: 'updated', kbId: input.kbId, replaced: existing.id } : { outcome: 'created', kbId: input.kbId });
      inserted.push(input);
    }
    const entries = await insertDocuments(transaction, inserted);
    let next = 0;
    return written.map((document) => (document.outcome === 'unchanged' ? document : { ...document, entry: entries[next++]! }));
  };

  /**
   * Writes a batch of documents in one nested transaction
   * ({@link writeDocuments}): the common case of a bulk ingest.
   *
   * @returns each document's outcome and the index entries of those
   *   written, by knowledge base; undefined, with nothing written, when a
   *   document repeats another's id in the batch or one of them fails (the
   *   caller then writes them one by one, so that only the failing one fails)
   * @throws StoreUnavailableError when the database fails
   */
  const putBatch = async (
    transaction: SqlExecutor,
    inputs: readonly DocumentInput[],
  ): Promise<{ outcomes: PutOutcome[]; entries: Map<string, DocumentIndexEntry[]> } | undefined> => {
    if (new Set(inputs.map((input) => documentKey(input.kbId, input.docId))).size !== inputs.length) return undefined;
    try {
      const written = await transaction.transaction((nested) => writeDocuments(nested, inputs));
      const entries = new Map<string, DocumentIndexEntry[]>();
      for (const [kbId, documents] of groupBy(written, (document) => document.kbId)) {
        entries.set(kbId, documents.flatMap((document) => (document.entry ? [document.entry] : [])));
      }
      return { outcomes: written.map((document) => document.outcome), entries };
    } catch (error) {
      if (error instanceof StoreUnavailableError || !(error instanceof Error)) throw error;
      return undefined;
    }
  };

  const toDocument = (row: DocumentRow) => documentRecord(row, { readers: dialect.readList(row.readers), quotable: Boolean(row.quotable) });

  return {
    putDocument(input) {
      return sql.transaction(async (transaction) => {
        await lockKnowledgeBase(transaction, input.kbId);
        const [{ outcome, entry }] = (await writeDocuments(transaction, [input])) as [WrittenDocument];
        if (entry) await writeSegments(transaction, input.kbId, [entry]);
        return outcome;
      });
    },
    putDocuments(inputs) {
      return sql.transaction(async (transaction) => {
        // Locked in a fixed order, so that two batches over the same knowledge bases cannot deadlock.
        for (const kbId of [...new Set(inputs.map((input) => input.kbId))].sort()) await lockKnowledgeBase(transaction, kbId);
        const batch = await putBatch(transaction, inputs);
        if (batch !== undefined) {
          for (const [kbId, entries] of batch.entries) await writeSegments(transaction, kbId, entries);
          return batch.outcomes.map((outcome) => ({ outcome }));
        }
        const outcomes: BatchPutOutcome[] = [];
        // The index entries of the documents written, by knowledge base and document: written together at the end.
        const pending = new Map<string, Map<number, DocumentIndexEntry>>();
        for (const input of inputs) {
          try {
            // A document that fails is rolled back alone.
            const [{ outcome, entry, replaced }] = (await transaction.transaction((nested) => writeDocuments(nested, [input]))) as [WrittenDocument];
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
