import { randomBytes } from 'node:crypto';

/**
 * The kinds of ingest job the console starts: a website import
 * (import-jobs.ts) and an upload of files (upload-jobs.ts).
 */
export type IngestJobKind = 'import' | 'upload';

/** The prefix of each kind's job ids (`imp_` and 16 hex digits, `upl_` and 16 hex digits). */
const ID_PREFIXES: Record<IngestJobKind, string> = { import: 'imp', upload: 'upl' };

/** What every ingest job has, whatever its kind. */
export interface IngestJob {
  /** The kind's prefix, `_` and 16 hex digits. */
  id: string;
  kbId: string;
  /** User id of who started it. */
  startedBy: string;
  /** `succeeded` once its work ran to its end, `failed` when the work threw. */
  status: 'running' | 'succeeded' | 'failed';
  /** Epoch milliseconds. */
  startedAt: number;
  finishedAt?: number;
  /** Why it failed: the work's error message, a sentence for a person. */
  error?: string;
}

/** What {@link IngestJobs} needs. */
export interface IngestJobsOptions {
  now: () => number;
  /** Jobs listed per knowledge base and kind, newest first, running ones always (default 20). */
  keepPerKnowledgeBase?: number;
}

/** Told when a job of any kind starts and when it ends (the service's metrics). */
export interface IngestJobListener {
  started?: (job: IngestJob, kind: IngestJobKind) => void;
  ended?: (job: IngestJob, kind: IngestJobKind) => void;
}

/** Told when a job of one kind starts and when it ends. */
export interface JobListener<Job extends IngestJob> {
  started?: (job: Job) => void;
  ended?: (job: Job) => void;
}

/**
 * Ingest jobs of this process, of every kind: started by a request, they run
 * after its response (the console polls them), report their progress, and
 * stay listed once finished (the newest per knowledge base and kind), so the
 * person who started one - or anyone of the knowledge base - sees how it
 * went. One registry holds every kind, so that `/metrics` counts them all
 * ({@link subscribe}) and a shutdown waits for them all ({@link idle}).
 *
 * Jobs are not persisted: a restart forgets the list. A job's work writes a
 * document per transaction, so a job interrupted by a restart leaves each
 * document as it was or as ingested, and running it again is idempotent.
 */
export class IngestJobs {
  readonly #options: IngestJobsOptions;
  readonly #running = new Set<Promise<void>>();
  readonly #listeners: IngestJobListener[] = [];

  constructor(options: IngestJobsOptions) {
    this.#options = options;
  }

  /**
   * The jobs of one kind: started, listed and found through what this
   * returns, run and counted here. Call it once per kind: each call keeps a
   * list of its own.
   */
  ofKind<Job extends IngestJob>(kind: IngestJobKind): JobsOfKind<Job> {
    return new JobsOfKind<Job>(kind, {
      now: this.#options.now,
      keep: this.#options.keepPerKnowledgeBase ?? 20,
      run: (job, work, listeners) => this.#run(kind, job, work, listeners),
    });
  }

  /** Tells `listener` of every job of any kind started from now on, and of its end. */
  subscribe(listener: IngestJobListener): void {
    this.#listeners.push(listener);
  }

  /** Jobs of every kind running now, in every knowledge base. */
  get running(): number {
    return this.#running.size;
  }

  /** Resolves once every job of any kind started so far has ended (shutdown, tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.#running]);
  }

  #run<Job extends IngestJob>(kind: IngestJobKind, job: Job, work: () => Promise<void>, listeners: readonly JobListener<Job>[]): Promise<void> {
    for (const listener of listeners) listener.started?.(job);
    for (const listener of this.#listeners) listener.started?.(job, kind);
    const run = (async () => {
      // The work starts after the request that started it has its answer.
      await Promise.resolve();
      try {
        await work();
        job.status = 'succeeded';
      } catch (error) {
        job.error = (error as Error).message;
        job.status = 'failed';
      }
      job.finishedAt = this.#options.now();
      for (const listener of listeners) listener.ended?.(job);
      for (const listener of this.#listeners) listener.ended?.(job, kind);
    })();
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
    return run;
  }
}

/** The fields of a job of kind `Job` its starter gives; the registry sets the rest. */
export type JobFields<Job extends IngestJob> = Omit<Job, keyof IngestJob> & Pick<IngestJob, 'kbId' | 'startedBy'>;

/** What {@link JobsOfKind} gets from its registry. */
interface KindContext<Job extends IngestJob> {
  now: () => number;
  keep: number;
  /** Runs the job's work; resolves when the job has ended. */
  run: (job: Job, work: () => Promise<void>, listeners: readonly JobListener<Job>[]) => Promise<void>;
}

/** The jobs of one kind in an {@link IngestJobs} registry (made by `ofKind`), per knowledge base. */
export class JobsOfKind<Job extends IngestJob> {
  readonly kind: IngestJobKind;
  readonly #context: KindContext<Job>;
  /** Per knowledge base, oldest first. */
  readonly #jobs = new Map<string, Job[]>();
  readonly #listeners: JobListener<Job>[] = [];
  readonly #running = new Set<Promise<void>>();

  constructor(kind: IngestJobKind, context: KindContext<Job>) {
    this.kind = kind;
    this.#context = context;
  }

  /**
   * Lists a new job, running, and starts `work` at once, after this returns;
   * the oldest finished jobs of the knowledge base make room for it.
   *
   * @param work does the job, updating its fields (progress, outcome) as it goes; its error fails the job
   * @returns the job, running
   */
  start(fields: JobFields<Job>, work: (job: Job) => Promise<void>): Job {
    // The starter's fields and the registry's make a whole Job (JobFields is Job without the registry's).
    const job = { ...fields, id: `${ID_PREFIXES[this.kind]}_${randomBytes(8).toString('hex')}`, status: 'running', startedAt: this.#context.now() } as Job;
    const listed = [...(this.#jobs.get(job.kbId) ?? []), job];
    while (listed.length > this.#context.keep) {
      const oldest = listed.findIndex((candidate) => candidate.status !== 'running');
      if (oldest < 0) break;
      listed.splice(oldest, 1);
    }
    this.#jobs.set(job.kbId, listed);
    const run = this.#context.run(job, () => work(job), this.#listeners);
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
    return job;
  }

  /** Tells `listener` of every job of this kind started from now on, and of its end. */
  subscribe(listener: JobListener<Job>): void {
    this.#listeners.push(listener);
  }

  /** The jobs of a knowledge base, newest first. */
  list(kbId: string): Job[] {
    return [...(this.#jobs.get(kbId) ?? [])].reverse();
  }

  get(kbId: string, id: string): Job | undefined {
    return this.#jobs.get(kbId)?.find((job) => job.id === id);
  }

  /** Jobs of this kind running now, in every knowledge base. */
  get running(): number {
    return this.#running.size;
  }

  /** Resolves once every job of this kind started so far has ended. */
  async idle(): Promise<void> {
    await Promise.all([...this.#running]);
  }
}
