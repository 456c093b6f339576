import { writeSegments, type DocumentIndexEntry } from '../index/index-segments.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import { StoreUnavailableError } from '../../errors.ts';
import { lockKnowledgeBase } from '../workspace/knowledge-base-checks.ts';
import { adjustStats, deleteDocument, insertReaders, type DocumentStorage } from './document-statements.ts';
import type { NewDocumentRow } from './document-rows.ts';
import type { BatchPutOutcome, DocumentInput, PutOutcome } from './documents.ts';

/**
 * The document repository's creating and replacing writes
 * (`DocumentRepository.putDocument`, `DocumentRepository.putDocuments`):
 * unchanged documents are left alone, changed ones replaced, new ones
 * inserted with their readers and passages; the postings of all of them
 * are written together, one index segment per transaction
 * (store/index/index-segments.ts).
 */

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

/** The row of a new document: its input with its field-length sums, the time and the dialect's boolean. */
function newRow(storage: DocumentStorage, input: DocumentInput): NewDocumentRow {
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
    quotable: storage.sql.dialect.writeBoolean(input.quotable),
    contentHash: input.contentHash,
    sourceRoot: input.sourceRoot ?? null,
    updatedAt: storage.now(),
    chunkCount: input.chunks.length,
    lengthSums,
    pageLengths: input.page.lengths,
    analysisVersion: input.analysisVersion,
  };
}

/**
 * Inserts new documents (none of them stored) with their readers and
 * passages, and adds their passages to their knowledge bases'
 * statistics; returns their index entries, in order, for the caller to
 * write their postings (store/index/index-segments.ts, one segment per transaction).
 * A few statements for the lot, whatever their number.
 */
async function insertDocuments(storage: DocumentStorage, transaction: SqlExecutor, inputs: readonly DocumentInput[]): Promise<DocumentIndexEntry[]> {
  if (inputs.length === 0) return [];
  const { bulk } = storage;
  const ids = await bulk.insertDocuments(transaction, inputs.map((input) => newRow(storage, input)));
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
}

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
async function writeDocuments(storage: DocumentStorage, transaction: SqlExecutor, inputs: readonly DocumentInput[]): Promise<WrittenDocument[]> {
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
  const entries = await insertDocuments(storage, transaction, inserted);
  let next = 0;
  return written.map((document) => (document.outcome === 'unchanged' ? document : { ...document, entry: entries[next++]! }));
}

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
async function putBatch(
  storage: DocumentStorage,
  transaction: SqlExecutor,
  inputs: readonly DocumentInput[],
): Promise<{ outcomes: PutOutcome[]; entries: Map<string, DocumentIndexEntry[]> } | undefined> {
  if (new Set(inputs.map((input) => documentKey(input.kbId, input.docId))).size !== inputs.length) return undefined;
  try {
    const written = await transaction.transaction((nested) => writeDocuments(storage, nested, inputs));
    const entries = new Map<string, DocumentIndexEntry[]>();
    for (const [kbId, documents] of groupBy(written, (document) => document.kbId)) {
      entries.set(kbId, documents.flatMap((document) => (document.entry ? [document.entry] : [])));
    }
    return { outcomes: written.map((document) => document.outcome), entries };
  } catch (error) {
    if (error instanceof StoreUnavailableError || !(error instanceof Error)) throw error;
    return undefined;
  }
}

/** `DocumentRepository.putDocument`: one document and its postings, in one transaction. */
export function putDocument(storage: DocumentStorage, input: DocumentInput): Promise<PutOutcome> {
  return storage.sql.transaction(async (transaction) => {
    await lockKnowledgeBase(transaction, input.kbId);
    const [{ outcome, entry }] = (await writeDocuments(storage, transaction, [input])) as [WrittenDocument];
    if (entry) await writeSegments(transaction, input.kbId, [entry]);
    return outcome;
  });
}

/**
 * `DocumentRepository.putDocuments`: a batch in one transaction, all
 * at once ({@link putBatch}) or, when that fails, one by one, so that only
 * a failing document fails; the database itself failing ends the batch.
 */
export function putDocuments(storage: DocumentStorage, inputs: readonly DocumentInput[]): Promise<BatchPutOutcome[]> {
  return storage.sql.transaction(async (transaction) => {
    // Locked in a fixed order, so that two batches over the same knowledge bases cannot deadlock.
    for (const kbId of [...new Set(inputs.map((input) => input.kbId))].sort()) await lockKnowledgeBase(transaction, kbId);
    const batch = await putBatch(storage, transaction, inputs);
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
        const [{ outcome, entry, replaced }] = (await transaction.transaction((nested) => writeDocuments(storage, nested, [input]))) as [WrittenDocument];
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
}
