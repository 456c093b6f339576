import { type DocumentRecord, type Store, type Visibility } from '../../store/store.ts';
import { NotFoundError } from '../../errors.ts';
import { ingestSource, SourceRejectedError } from '../pipeline/ingest-source.ts';
import type { UploadReporter } from './upload-jobs.ts';

/** One uploaded file: the document id it becomes (its extension picks the format) and its bytes. */
export interface UploadedFile {
  docId: string;
  bytes: Uint8Array;
}

/** Where uploaded files go and who may read them. */
export interface UploadIngestOptions {
  kbId: string;
  visibility: Visibility;
  /** User ids allowed to read them when `restricted`. */
  readers: readonly string[];
  quotable: boolean;
  /**
   * Whether an existing document may be replaced by a file (the console:
   * only one the uploader can read); a file whose document may not is
   * reported failed and the document left as it is. Default: any.
   */
  mayReplace?: (document: DocumentRecord) => boolean;
  /** Told of each file as it starts and as it ends. */
  report: UploadReporter;
}

/** The reason given for a file whose document exists and may not be replaced. */
export const NOT_REPLACEABLE_REASON = 'a document of this id exists that you cannot read; it is left as it is';

/**
 * Indexes uploaded files one by one, in order, each through `ingestSource`
 * in its own transaction: a file that is not its format (a `.pdf` that is
 * not a PDF, text that is not UTF-8), a draft or a file without text is
 * reported failed with the reason and leaves the knowledge base as it was
 * for that file; the others are stored. Each file is dropped from `files`
 * once indexed, so its bytes can be freed while the rest go on.
 *
 * @param files the files, consumed from the front
 * @throws NotFoundError when the knowledge base does not exist
 * @throws Error naming the file being indexed when the store fails (StoreUnavailableError's message); the files before it are stored, those after it are not indexed
 */
export async function ingestUploadedFiles(store: Store, files: UploadedFile[], options: UploadIngestOptions): Promise<void> {
  const knowledgeBase = await store.getKnowledgeBase(options.kbId);
  if (knowledgeBase === undefined) throw new NotFoundError(`Knowledge base "${options.kbId}" does not exist`);
  for (let file = files.shift(); file !== undefined; file = files.shift()) {
    const { docId } = file;
    options.report.indexing(docId);
    try {
      const existing = await store.getDocument(options.kbId, docId);
      if (existing !== undefined && options.mayReplace !== undefined && !options.mayReplace(existing)) {
        options.report.ended({ docId, outcome: 'failed', reason: NOT_REPLACEABLE_REASON });
        continue;
      }
      const outcome = await ingestSource(
        store,
        { kbId: options.kbId, docId, bytes: file.bytes, visibility: options.visibility, readers: options.readers, quotable: options.quotable },
        knowledgeBase,
      );
      const stored = await store.getDocument(options.kbId, docId);
      options.report.ended({ docId, outcome, passages: stored?.chunkCount ?? 0 });
    } catch (error) {
      // Rejected and skipped sources alike: nothing was written for this file.
      if (error instanceof SourceRejectedError) {
        options.report.ended({ docId, outcome: 'failed', reason: error.message });
        continue;
      }
      throw new Error(`${docId}: ${(error as Error).message}; the files after it were not indexed`, { cause: error });
    }
  }
}
