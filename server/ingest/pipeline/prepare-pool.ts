import { Piscina } from 'piscina';
import { prepareSource, type PrepareResult, type PrepareTask, type PrepareWireResult } from './prepare-worker.ts';
import { fromWire } from '../../store/index/packed-index.ts';
import { workerModule } from '../../worker-module.ts';

/**
 * Where bulk ingest prepares documents (parse, chunk, analyze: CPU only):
 * on worker threads when there are enough documents to repay starting them,
 * else on the calling thread. Either way the same results.
 */
export interface DocumentPreparer {
  /**
   * @returns the prepared document, or why it was skipped or rejected
   * @throws Error for a failure that is not the source's (a bug), with its message
   */
  prepare(task: PrepareTask): Promise<PrepareResult>;
  /** Stops the worker threads, if any. */
  close(): Promise<void>;
}

/**
 * Documents from which an ingest prepares them on worker threads: starting a
 * thread (loading the parser and analyzer modules) costs about as much as
 * preparing this many typical pages on the calling thread.
 */
export const PARALLEL_PREPARE_MIN_DOCUMENTS = 64;

/**
 * Tasks handed to a worker before it finishes the first (it runs them one
 * at a time): half of the files an ingest prepares ahead (ingest-files.ts
 * PREPARE_AHEAD), so that with two workers every file in flight is already
 * in a worker's queue, and no worker waits for the next while the calling
 * thread writes a batch. At 32, each of two workers waited about 0.75 s in
 * all during the Kubernetes docs' ingest (4.3-4.7 s; now 4.05-4.1 s; 16
 * copies of the Node.js docs 10.1-10.7 s, now 9.5-10.0 s).
 */
const QUEUED_PER_WORKER = 160;

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './prepare-worker.ts' : './prepare-worker.js', import.meta.url);

/**
 * @param documents how many documents the ingest will prepare
 * @param threads worker threads when it uses them (>= 1)
 */
export function createDocumentPreparer(documents: number, threads: number): DocumentPreparer {
  if (documents < PARALLEL_PREPARE_MIN_DOCUMENTS) {
    return { prepare: (task) => prepareSource(task), close: () => Promise.resolve() };
  }
  // A TypeScript checkout's workers load one bundled module, not each module through tsx (server/worker-module.ts).
  const worker = workerModule(WORKER_URL);
  const pool = new Piscina<PrepareTask, PrepareWireResult>({
    filename: worker.url.href,
    minThreads: threads,
    maxThreads: threads,
    // Each worker holds a queue of its own: the thread that writes batches
    // blocks while it writes, and could not hand out tasks meanwhile.
    concurrentTasksPerWorker: QUEUED_PER_WORKER,
    recordTiming: false,
    execArgv: worker.execArgv,
  });
  return {
    // The index comes back flattened (store/index/packed-index.ts) and is wrapped, not rebuilt, here.
    prepare: async (task) => {
      const result = await pool.run(task);
      return result.kind === 'prepared' ? { kind: 'prepared', input: fromWire(result.input) } : result;
    },
    close: () => pool.destroy(),
  };
}
