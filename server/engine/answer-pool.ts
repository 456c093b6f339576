import { Piscina } from 'piscina';
import type { AnswerEngine, AnswerRequest } from './answer-engine.ts';
import type { AnswerEvent } from './answer-events.ts';
import type { AnswerTask } from './answer-worker.ts';
import type { StoreLocation } from '../store/open-store.ts';
import { StoreUnavailableError } from '../store/store.ts';

/**
 * The answer engine on a pool of worker threads (piscina), each with its own
 * store connection: the main thread only receives the finished events and
 * writes them out. A question whose asker has gone before a worker picks it
 * up is never computed (the task is cancelled with the request's signal).
 */

export interface AnswerPoolOptions {
  location: StoreLocation;
  abstentionThreshold: number;
  /** Worker threads (>= 1). */
  threads: number;
  /** Questions allowed to wait for a worker; beyond it the engine reports the store unavailable (503). */
  maxQueue?: number;
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
    let events: AnswerEvent[];
    try {
      events = (await pool.run(task, request.signal ? { signal: request.signal } : {})) as AnswerEvent[];
    } catch (error) {
      if (request.signal?.aborted) return;
      throw restoreError(error);
    }
    for (const event of events) {
      if (request.signal?.aborted) return;
      yield event;
    }
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
