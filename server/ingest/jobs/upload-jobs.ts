import type { PutOutcome } from '../../store/store.ts';
import type { IngestJob, IngestJobs, JobListener, JobsOfKind } from './ingest-jobs.ts';

/** What became of one uploaded file: stored (`created`, `updated`, `unchanged`) or `failed`, which changed nothing. */
export interface UploadFileResult {
  docId: string;
  outcome: PutOutcome | 'failed';
  /** Why it failed: a sentence for a person (not its format, a document of that id the uploader cannot read). */
  reason?: string;
  /** The stored document's passages, once stored. */
  passages?: number;
}

/** An upload of files from the console running on the server: its files indexed one by one. */
export interface UploadJob extends IngestJob {
  /** The files, as their document ids, in the order given. */
  files: string[];
  /** Files with an outcome (`done`) of all (`total`); `docId`: the file being indexed now, or the last one. */
  progress: { done: number; total: number; docId?: string };
  /** Each file's outcome, as they end: those refused before the job started first, then in the order indexed. */
  results: UploadFileResult[];
}

/** How an upload's work reports: a file it starts to index, a file's outcome. */
export interface UploadReporter {
  indexing(docId: string): void;
  ended(result: UploadFileResult): void;
}

/** Uploads running at once in one knowledge base, at most; each holds its files (up to 25 MiB of JSON) in memory until it ends. */
export const MAX_RUNNING_UPLOADS = 4;

/** As many uploads as {@link MAX_RUNNING_UPLOADS} are already running in the knowledge base. */
export class UploadsBusyError extends Error {
  override name = 'UploadsBusyError';
}

/**
 * Uploads of files as jobs of this process (the console's Documents tab):
 * started by a request that carries the files, they run after its response,
 * so closing the page does not stop them; the console polls a job for its
 * progress and each file's outcome. They are the `upload` kind of an
 * {@link IngestJobs} registry, shared with website imports (import-jobs.ts):
 * `/metrics` counts them and a shutdown waits for them (`registry.idle()`)
 * like imports. The
 * work writes through `ingestSource`, a file per transaction, so a file
 * that fails leaves the knowledge base as it was for that file.
 */
export class UploadJobs {
  readonly #jobs: JobsOfKind<UploadJob>;

  /** @param registry the ingest jobs' registry (`ImportJobs.registry`, to share its counts and its shutdown) */
  constructor(registry: IngestJobs) {
    this.#jobs = registry.ofKind<UploadJob>('upload');
  }

  /**
   * Starts an upload; `work` runs at once, after this returns.
   *
   * @param input.files every file's document id, in order
   * @param input.refused outcomes known before it starts (files refused up front), counted as done
   * @param work indexes the other files, reporting each; its error fails the job (the results so far stay)
   * @returns the job, running
   * @throws UploadsBusyError when {@link MAX_RUNNING_UPLOADS} uploads run in the knowledge base
   */
  start(input: Pick<UploadJob, 'kbId' | 'startedBy' | 'files'> & { refused?: readonly UploadFileResult[] }, work: (report: UploadReporter) => Promise<void>): UploadJob {
    const running = this.#jobs.list(input.kbId).filter((job) => job.status === 'running').length;
    if (running >= MAX_RUNNING_UPLOADS) {
      throw new UploadsBusyError(`${running} uploads are already running in this knowledge base; start this one when one of them has ended`);
    }
    const results = [...(input.refused ?? [])];
    const fields = { kbId: input.kbId, startedBy: input.startedBy, files: [...input.files], progress: { done: results.length, total: input.files.length }, results };
    return this.#jobs.start(fields, (job) =>
      work({
        indexing: (docId) => {
          job.progress = { ...job.progress, docId };
        },
        ended: (result) => {
          job.results.push(result);
          job.progress = { done: job.results.length, total: job.files.length, docId: result.docId };
        },
      }),
    );
  }

  /** Tells `listener` of every upload started from now on, and of its end. */
  subscribe(listener: JobListener<UploadJob>): void {
    this.#jobs.subscribe(listener);
  }

  /** The uploads of a knowledge base, newest first. */
  list(kbId: string): UploadJob[] {
    return this.#jobs.list(kbId);
  }

  get(kbId: string, id: string): UploadJob | undefined {
    return this.#jobs.get(kbId, id);
  }
}
