import { prepareDocument, SourceRejectedError, SourceSkippedError, withExtractedText, type SourceDocument } from './ingest-source.ts';
import { toWire, type DocumentInputWire } from '../../store/index/packed-index.ts';
import type { DocumentInput, KnowledgeBase } from '../../store/store.ts';

/**
 * Worker-thread entry of bulk ingest (ingest/pipeline/prepare-pool.ts): extracts a
 * PDF's text, parses, chunks and analyzes one document (`prepareDocument`) off the thread that
 * writes to the store, so that preparing the next documents and writing the
 * previous batch run at the same time.
 */

/** One document to prepare. */
export interface PrepareTask {
  source: SourceDocument;
  site: KnowledgeBase;
  /** The source's content hash, as the ingest computed it to find unchanged files. */
  contentHash: string;
}

/**
 * What became of it. Errors cross the thread boundary as their kind and
 * message (a structured clone keeps neither class nor prototype).
 */
export type PrepareResult =
  | { kind: 'prepared'; input: DocumentInput }
  | { kind: 'skipped' | 'rejected'; reason: string };

/** A {@link PrepareResult} as a worker sends it back: the document's index flattened (store/index/packed-index.ts). */
export type PrepareWireResult = Exclude<PrepareResult, { kind: 'prepared' }> | { kind: 'prepared'; input: DocumentInputWire };

/** The worker's entry: prepares the document and flattens its index for the trip back. */
export default async function prepare(task: PrepareTask): Promise<PrepareWireResult> {
  const result = await prepareSource(task);
  return result.kind === 'prepared' ? { kind: 'prepared', input: toWire(result.input) } : result;
}

/** Prepares one document on the calling thread. */
export async function prepareSource(task: PrepareTask): Promise<PrepareResult> {
  try {
    return { kind: 'prepared', input: prepareDocument(await withExtractedText(task.source), task.site, task.contentHash) };
  } catch (error) {
    if (error instanceof SourceSkippedError) return { kind: 'skipped', reason: error.message };
    if (error instanceof SourceRejectedError) return { kind: 'rejected', reason: error.message };
    throw error;
  }
}
