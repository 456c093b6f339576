import { Piscina } from 'piscina';
import {
  deliverAnswer,
  type AnswerEngine,
  type AnswerEngineOptions,
  type AnswerRequest,
  type PreparedAnswer,
} from './answer-engine.ts';
import { AnswerCache } from './answer-cache.ts';
import type { AnswerEvent } from './answer-events.ts';
import type { AnswerTask } from './answer-worker.ts';
import type { ChatClient } from './generation/chat-completions-client.ts';
import { groupedReads } from '../store/grouped-calls.ts';
import type { StoreLocation } from '../store/open-store.ts';
import { type ContentVersionRepository } from '../store/store.ts';
import { StoreUnavailableError } from '../errors.ts';
import { workerModule } from '../worker-module.ts';

/**
 * The answer engine on a pool of worker threads (piscina), each with its own
 * store connection. A worker prepares the answer (`prepareAnswer`: curated
 * match, retrieval, sentence selection - the CPU and synchronous-SQLite
 * work); the main thread delivers it (`deliverAnswer`): it writes out the
 * prepared events or, with a chat model configured, streams the model's
 * answer, which is network waiting and belongs on the event loop.
 *
 * Cancellation is cooperative: when the asker goes, or the question's time
 * ({@link AnswerPoolOptions.timeoutMs}) is up, the main thread stops waiting at
 * once and raises the task's shared flag (engine/answer-worker.ts); a worker
 * skips a flagged task it has not started and stops a running one at its next
 * step. No worker is ever terminated for it: piscina's own abort (a
 * `signal` passed to `run`) terminates a running task's thread and starts a
 * new one, about 34 ms of CPU and, under tsx, file descriptors that are never
 * given back - one visitor closing sockets in a loop could exhaust them.
 */

export interface AnswerPoolOptions {
  location: StoreLocation;
  abstentionThreshold: number;
  /** Worker threads (>= 1). */
  threads: number;
  /** Questions allowed to wait for a worker; beyond it the engine reports the store unavailable (503). */
  maxQueue?: number;
  /**
   * Longest time a question may take to be prepared, waiting for a free
   * worker included, milliseconds; then the engine reports the store
   * unavailable (503) and the worker drops the task at its next step.
   * Default {@link DEFAULT_PREPARE_TIMEOUT_MS}. A database that accepts
   * connections but never answers would otherwise hold every question queued
   * behind the one stuck on it.
   */
  timeoutMs?: number;
  /** The chat model that writes retrieved answers, called from the main thread; without it, answers are extractive. */
  chat?: ChatClient;
  /** Told why a generated answer was withheld (for the operator's log). */
  onRejectedAnswer?: AnswerEngineOptions['onRejectedAnswer'];
  /**
   * Told of a worker failure that belongs to no question (a thread that
   * could not start, say); piscina replaces the thread. Without a listener
   * such an error would end the process.
   */
  onWorkerError?: (error: Error) => void;
  /**
   * Where the main thread reads a knowledge base's content version
   * (store/content-version.ts): with it, answers are kept in an
   * {@link AnswerCache} of {@link answerCacheSize} and a question asked
   * again at the same version is answered from it, without a worker.
   */
  contentVersions?: ContentVersionRepository;
  /** Answers kept when {@link contentVersions} is given (default `DEFAULT_ANSWER_CACHE_SIZE`). */
  answerCacheSize?: number;
  /** Most postings each worker's in-memory index holds (retrieval/index-cache.ts; default `MAX_CACHED_POSTINGS`). */
  indexCachePostings?: number;
  /**
   * The embedding model (its verified folder): with it each worker searches
   * hybrid - BM25F and dense retrieval fused (retrieval/hybrid-retriever.ts);
   * without it, BM25F alone.
   */
  embedding?: AnswerTask['embedding'];
}

/** Default {@link AnswerPoolOptions.timeoutMs}: 5 s, the store's own query timeout. */
export const DEFAULT_PREPARE_TIMEOUT_MS = 5_000;

export interface PooledAnswerEngine extends AnswerEngine {
  close(): Promise<void>;
}

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './answer-worker.ts' : './answer-worker.js', import.meta.url);

export function createPooledAnswerEngine(options: AnswerPoolOptions): PooledAnswerEngine {
  // A TypeScript checkout's workers load one bundled module, not each module through tsx (server/worker-module.ts).
  const worker = workerModule(WORKER_URL);
  const pool = new Piscina({
    filename: worker.url.href,
    minThreads: options.threads,
    maxThreads: options.threads,
    maxQueue: options.maxQueue ?? 1024,
    recordTiming: false,
    execArgv: worker.execArgv,
  });

  pool.on('error', (error: unknown) => options.onWorkerError?.(error instanceof Error ? error : new Error(String(error))));
  const timeoutMs = options.timeoutMs ?? DEFAULT_PREPARE_TIMEOUT_MS;

  const cache = options.contentVersions ? new AnswerCache(options.answerCacheSize) : undefined;
  // The questions asked while a knowledge base's version is being read share the next read (store/grouped-calls.ts).
  const contentVersion =
    options.contentVersions &&
    groupedReads(
      (kbId: string) => options.contentVersions!.contentVersion(kbId),
      (kbId) => kbId,
    );

  async function* answer(request: AnswerRequest): AsyncGenerator<AnswerEvent> {
    if (request.signal?.aborted) return;
    // Read before the answer is prepared: a write while it is prepared leaves it keyed by the older version.
    const version = cache && (await contentVersion!(request.reach.kbId));
    const cached = version === undefined ? undefined : cache!.get(request, version);
    if (cached !== undefined) {
      yield* deliverAnswer(cached, request, options);
      return;
    }
    const cancelled = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    const task: AnswerTask = {
      location: options.location,
      abstentionThreshold: options.abstentionThreshold,
      question: request.question,
      reach: { ...request.reach, visibilities: [...request.reach.visibilities] },
      ...(request.topK === undefined ? {} : { topK: request.topK }),
      withPassages: options.chat !== undefined,
      ...(options.indexCachePostings === undefined ? {} : { indexCachePostings: options.indexCachePostings }),
      ...(options.embedding === undefined ? {} : { embedding: options.embedding }),
      cancelled,
    };
    const outcome = await prepareWithin(pool.run(task) as Promise<PreparedAnswer | undefined>, request.signal, timeoutMs);
    if (outcome.kind !== 'prepared') {
      Atomics.store(cancelled, 0, 1);
      if (outcome.kind === 'timeout') {
        throw new StoreUnavailableError(`The knowledge base did not answer within ${timeoutMs / 1000} s`);
      }
      return;
    }
    if (outcome.error !== undefined) {
      if (request.signal?.aborted) return;
      throw restoreError(outcome.error);
    }
    if (outcome.prepared === undefined) return;
    if (version !== undefined) cache!.set(request, version, outcome.prepared);
    if (request.signal?.aborted) return;
    yield* deliverAnswer(outcome.prepared, request, options);
  }

  return {
    answer,
    close: () => pool.destroy(),
  };
}

type PrepareOutcome =
  | { kind: 'prepared'; prepared?: PreparedAnswer; error?: unknown }
  | { kind: 'aborted' }
  | { kind: 'timeout' };

/**
 * Waits for a task's result, but no longer than the asker stays or the
 * deadline allows; never rejects. A result that comes after the wait ended
 * is dropped (its rejection handled).
 */
function prepareWithin(task: Promise<PreparedAnswer | undefined>, signal: AbortSignal | undefined, timeoutMs: number): Promise<PrepareOutcome> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (outcome: PrepareOutcome) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => settle({ kind: 'aborted' });
    timer = setTimeout(() => settle({ kind: 'timeout' }), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    task.then(
      (prepared) => settle({ kind: 'prepared', ...(prepared === undefined ? {} : { prepared }) }),
      (error: unknown) => settle({ kind: 'prepared', error }),
    );
  });
}

function restoreError(error: unknown): Error {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  if (name === 'StoreUnavailableError') return new StoreUnavailableError(text);
  if (typeof message === 'string' && /queue is full/i.test(message)) {
    return new StoreUnavailableError('Too many questions are waiting for an answer worker');
  }
  return error instanceof Error ? error : new Error(text);
}
