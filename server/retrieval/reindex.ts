import { indexPage, indexPassages, INDEX_ANALYSIS_VERSION } from './index-fields.ts';
import { type Store } from '../store/store.ts';
import { ConflictError, NotFoundError } from '../errors.ts';

/**
 * Re-making a stale index: documents whose passages were indexed by another
 * analysis than today's (`INDEX_ANALYSIS_VERSION`: the analyzer's version and
 * the index's fields) are analyzed again from their stored passages, one
 * transaction per document, so an index is never silently stale after an
 * upgrade. No source file is needed: the store keeps every passage's text,
 * heading path and its document's title and description.
 */

/** What {@link reindexStaleDocuments} did. */
export interface ReindexReport {
  /** Documents whose index was re-made. */
  reindexed: number;
  /** Documents that changed or disappeared while being re-indexed (another writer re-made them). */
  skipped: number;
}

/**
 * Re-indexes every stale document of the store.
 *
 * @param onProgress called after each document, for a progress display
 * @throws StoreUnavailableError from the store
 */
export async function reindexStaleDocuments(
  store: Pick<Store, 'listStaleDocuments' | 'readIndexableDocument' | 'reindexDocument'>,
  onProgress?: (progress: { done: number; total: number; kbId: string; docId: string }) => void,
): Promise<ReindexReport> {
  const stale = await store.listStaleDocuments(INDEX_ANALYSIS_VERSION);
  const report: ReindexReport = { reindexed: 0, skipped: 0 };
  for (const [position, { kbId, docId }] of stale.entries()) {
    const document = await store.readIndexableDocument(kbId, docId);
    if (document) {
      const fields = { title: document.title, ...(document.description === undefined ? {} : { description: document.description }) };
      const indexes = indexPassages(fields, document.passages);
      const passages = document.passages.map((passage, position) => ({ chunkId: passage.chunkId, index: indexes[position]! }));
      try {
        const page = indexPage(
          docId,
          fields,
          document.passages.map((passage, position) => ({ ...passage, index: indexes[position]! })),
        );
        await store.reindexDocument(kbId, docId, INDEX_ANALYSIS_VERSION, passages, page);
        report.reindexed += 1;
      } catch (error) {
        if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
        report.skipped += 1;
      }
    } else {
      report.skipped += 1;
    }
    onProgress?.({ done: position + 1, total: stale.length, kbId, docId });
  }
  return report;
}
