import { Piscina } from 'piscina';
import {
  deliverAnswer,
  type AnswerEngine,
  type AnswerEngineOptions,
  type AnswerRequest,
  type PreparedAnswer,
} from './answer-engine.ts';
import type { AnswerEvent } from './answer-events.ts';
import type { AnswerTask } from './answer-worker.ts';
import type { ChatClient } from './chat-completions-client.ts';
import type { StoreLocation } from '../store/open-store.ts';
import { StoreUnavailableError } from '../store/store.ts';

/**
 * The answer engine on a pool of worker threads (piscina), each with its own
 * store connection. A worker prepares the answer (`prepareAnswer`: curated
 * match, retrieval, sentence selection - the CPU and synchronous-SQLite
 * work); the main thread delivers it (`deliverAnswer`): it writes out the
 * prepared events or, with a chat model configured, streams the model's
 * answer, which is network waiting and belongs on the event loop. A question
 * whose asker has gone before a worker picks it up is never computed (the
 * task is cancelled with the request's signal).
 */

export interface AnswerPoolOptions {
  location: StoreLocation;
  abstentionThreshold: number;
  /** Worker threads (>= 1). */
  threads: number;
  /** Questions allowed to wait for a worker; beyond it the engine reports the store unavailable (503). */
  maxQueue?: number;
  /** The chat model that writes retrieved answers, called from the main thread; without it, answers are extractive. */
  chat?: ChatClient;
  /** Told why a generated answer was withheld (for the operator's log). */
  onRejectedAnswer?: AnswerEngineOptions['onRejectedAnswer'];
}

export interface PooledAnswerEngine extends AnswerEngine {
  close(): Promise<void>;
}

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './answer-worker.ts' : './answer-worker.js', import.meta.url);

export function createPooledAnswerEngine(options: AnswerPoolOptions): PooledAnswerEngine {
  const pool = new Piscina({
    filename: WORKER_URL.href,
    minThreads: options.threads,
    maxThreads: options.threads,
    maxQueue: options.maxQueue ?? 1024,
    recordTiming: false,
    // Workers of a TypeScript checkout load their modules through tsx, like the main thread.
    execArgv: WORKER_URL.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [],
  });

  async function* answer(request: AnswerRequest): AsyncGenerator<AnswerEvent> {
    const task: AnswerTask = {
      location: options.location,
      abstentionThreshold: options.abstentionThreshold,
      question: request.question,
      reach: { ...request.reach, visibilities: [...request.reach.visibilities] },
      ...(request.topK === undefined ? {} : { topK: request.topK }),
    };
    let prepared: PreparedAnswer;
    try {
      prepared = (await pool.run(task, request.signal ? { signal: request.signal } : {})) as PreparedAnswer;
    } catch (error) {
      if (request.signal?.aborted) return;
      throw restoreError(error);
    }
    if (request.signal?.aborted) return;
    yield* deliverAnswer(prepared, request, options);
  }

  return {
    answer,
    close: () => pool.destroy(),
  };
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
