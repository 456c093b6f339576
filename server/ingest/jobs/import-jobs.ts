import { IngestJobs, type IngestJobsOptions, type JobsOfKind } from './ingest-jobs.ts';
import type { SiteIngestReport } from '../web/ingest-site.ts';

/** Where a job is: fetching pages (no total known yet), then indexing them one by one. */
export type ImportPhase = 'crawling' | 'indexing';

/** A website import running on the server (the console's "Import from a website"). */
export interface ImportJob {
  /** `imp_` and 16 hex digits. */
  id: string;
  kbId: string;
  /** What is imported, as the person gave it: pages (and what they link to) or one sitemap. */
  seed: { kind: 'pages' | 'sitemap'; urls: string[] };
  /** User id of who started it (for a scheduled re-sync, who set up its source). */
  startedBy: string;
  /** The re-synced source this import syncs (server/ingest/jobs/import-sources.ts); absent for a one-off import. */
  sourceId?: string;
  status: 'running' | 'succeeded' | 'failed';
  startedAt: number;
  finishedAt?: number;
  progress: { phase: ImportPhase; done: number; total?: number; url?: string };
  /** What the import did, once it succeeded. */
  report?: SiteIngestReport;
  /** Why it failed: a sentence for a person (a refused address, an unreachable site). */
  error?: string;
}

/** Reports a job's progress (the work's `onProgress`). */
export type ImportProgress = (progress: { done: number; total: number; url: string }) => void;

/** What {@link ImportJobs} needs (its registry's options: the clock, how many jobs stay listed). */
export type ImportJobsOptions = IngestJobsOptions;

/** Told when a job starts and when it ends (the service's metrics). */
export interface ImportJobListener {
  started?: (job: ImportJob) => void;
  ended?: (job: ImportJob) => void;
}

/** An import of the same pages is already running in the knowledge base. */
export class ImportRunningError extends Error {
  override name = 'ImportRunningError';
}

/**
 * Website imports as jobs of this process: started by a request, they run
 * after its response (the console polls them), report their progress, and
 * stay listed once finished (the newest per knowledge base), so the person
 * who started one - or anyone of the knowledge base - sees how it went.
 * An import only ever writes through `ingestSite`, a page per transaction,
 * so a failed job leaves each page as it was or as imported.
 *
 * Imports are the `import` kind of an {@link IngestJobs} registry
 * ({@link registry}), which uploads share (upload-jobs.ts): the registry
 * counts and awaits the jobs of every kind (`/metrics`, shutdown), while
 * `running` and `idle()` here are the imports'.
 *
 * Jobs are not persisted: a restart forgets the list, and an import
 * interrupted by it is simply started again (re-importing is idempotent:
 * unchanged pages stay unchanged).
 */
export class ImportJobs {
  /** Where the imports run and are counted, shared with the other kinds of ingest job. */
  readonly registry: IngestJobs;
  readonly #jobs: JobsOfKind<ImportJob>;

  constructor(options: ImportJobsOptions) {
    this.registry = new IngestJobs(options);
    this.#jobs = this.registry.ofKind<ImportJob>('import');
  }

  /**
   * Starts an import; `work` runs at once, after this returns.
   *
   * @param work the import, reporting progress; its report ends the job, its error fails it
   * @returns the job, running
   * @throws ImportRunningError when an import of the same seed runs in the knowledge base
   */
  start(input: Pick<ImportJob, 'kbId' | 'seed' | 'startedBy' | 'sourceId'>, work: (onProgress: ImportProgress) => Promise<SiteIngestReport>): ImportJob {
    if (this.isRunning(input.kbId, input.seed)) {
      throw new ImportRunningError(`An import of ${input.seed.urls.join(', ')} is already running in this knowledge base`);
    }
    return this.#jobs.start({ ...input, progress: { phase: 'crawling', done: 0 } }, async (job) => {
      job.report = await work(({ done, total, url }) => {
        job.progress = { phase: 'indexing', done, total, url };
      });
    });
  }

  /** Whether an import of the same seed (kind and URLs) runs in the knowledge base now. */
  isRunning(kbId: string, seed: ImportJob['seed']): boolean {
    const seedKey = JSON.stringify(seed);
    return this.#jobs.list(kbId).some((job) => job.status === 'running' && JSON.stringify(job.seed) === seedKey);
  }

  /** Tells `listener` of every import started from now on, and of its end. */
  subscribe(listener: ImportJobListener): void {
    this.#jobs.subscribe(listener);
  }

  /** The imports of a knowledge base, newest first. */
  list(kbId: string): ImportJob[] {
    return this.#jobs.list(kbId);
  }

  get(kbId: string, id: string): ImportJob | undefined {
    return this.#jobs.get(kbId, id);
  }

  /** Imports running now, in every knowledge base. */
  get running(): number {
    return this.#jobs.running;
  }

  /** Resolves once every import started so far has ended (`registry.idle()` waits for every kind). */
  async idle(): Promise<void> {
    await this.#jobs.idle();
  }
}
