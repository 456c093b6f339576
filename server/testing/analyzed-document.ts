import { analyzeChunks } from '../ingest/pipeline/analyze-chunks.ts';
import { INDEX_ANALYSIS_VERSION, indexPage } from '../retrieval/index-fields.ts';
import type { DocumentInput } from '../store/store.ts';

/**
 * A document as ingestion hands it to the store (`Store.putDocuments`):
 * its passages analyzed into chunks and its page indexed, as the ingest
 * pipeline does (ingest/pipeline/analyze-chunks.ts, retrieval/index-fields.ts),
 * public and quotable unless `options` says otherwise. Test support only:
 * for tests that put documents straight into a store without parsing files.
 *
 * @param passages each passage's heading path (from the page title down) and text, in page order
 * @param options any other field of the document (visibility, readers, route, ...); `contentHash` defaults to the document id and the passages' texts
 */
export function analyzedDocument(
  kbId: string,
  docId: string,
  title: string,
  passages: readonly { headingPath: string[]; text: string }[],
  options: Partial<DocumentInput> = {},
): DocumentInput {
  return {
    kbId,
    docId,
    title,
    visibility: 'public',
    readers: [],
    quotable: true,
    contentHash: `${docId}:${passages.map((passage) => passage.text).join('|')}`,
    analysisVersion: INDEX_ANALYSIS_VERSION,
    chunks: analyzeChunks({ title }, passages),
    page: indexPage(docId, { title }, passages),
    ...options,
  };
}
