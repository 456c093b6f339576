import { prepareAnswer, type AnswerSources, type CancellationFlag, type PreparedAnswer } from './answer-engine.ts';
import type { ModelSpec } from '../embedding/model-manifest.ts';
import { createAnswerRetriever } from '../retrieval/answer-retriever.ts';
import type { Retriever } from '../retrieval/retriever.ts';
import { openStore, type StoreLocation } from '../store/open-store.ts';
import type { Reach, Store } from '../store/store.ts';

/**
 * Worker-thread entry of the answer pool (engine/answer-pool.ts): prepares an
 * answer (curated match, BM25 retrieval, sentence selection; see
 * `prepareAnswer`) on this thread's own store connection, so no question
 * stalls the event loop that carries every open stream (docs/design-decisions.md "Storage").
 * Delivery, including streaming from a chat model, happens on the main thread.
 */

/** One question sent to a worker. */
export interface AnswerTask {
  location: StoreLocation;
  abstentionThreshold: number;
  question: string;
  reach: Reach;
  topK?: number;
  /**
   * Whether the main thread needs a retrieved answer's passages (a chat
   * model writes the answer from them); without one they are left out of
   * the result, the largest part of it to copy between threads.
   */
  withPassages: boolean;
  /** Most postings this worker's in-memory index holds (retrieval/index-cache.ts); default `MAX_CACHED_POSTINGS`. */
  indexCachePostings?: number;
  /** The embedding model and its verified folder: retrieval is hybrid with it, BM25F alone without. */
  embedding?: { model: ModelSpec; folder: string };
  /**
   * One 32-bit cell in memory shared with the main thread (a
   * SharedArrayBuffer survives structured cloning as the same memory): the
   * main thread stores 1 when the asker has gone or the question's time is
   * up, and the worker stops at its next step, so a cancelled question never
   * costs the worker its thread.
   */
  cancelled: Int32Array;
}

/** The flag of {@link AnswerTask.cancelled} as the engine reads a cancellation. */
function cancellationOf(cell: Int32Array): CancellationFlag {
  return {
    get aborted() {
      return Atomics.load(cell, 0) !== 0;
    },
  };
}

/**
 * Most PostgreSQL connections of one worker: it prepares one answer at a
 * time, whose queries run one after another.
 */
const WORKER_POSTGRES_CONNECTIONS = 2;

let sources: { store: Store; retriever: Retriever } | undefined;
let storeKey = '';

/**
 * Prepares one answer; called by piscina. Errors keep their `name` across the
 * thread boundary.
 *
 * @returns the prepared answer, or undefined when the task was cancelled
 *   before or while it ran (a cancelled task waiting in the queue costs one
 *   message, not a store query)
 */
export default async function runAnswerTask(task: AnswerTask): Promise<PreparedAnswer | undefined> {
  const signal = cancellationOf(task.cancelled);
  if (signal.aborted) return undefined;
  const request = { question: task.question, reach: task.reach, signal, ...(task.topK === undefined ? {} : { topK: task.topK }) };
  try {
    const prepared = await prepareAnswer(await sourcesAt(task.location, task.indexCachePostings, task.embedding), request, task.abstentionThreshold);
    return prepared?.kind === 'retrieved' && !task.withPassages ? { ...prepared, passages: [] } : prepared;
  } catch (error) {
    throw serializableError(error);
  }
}

/**
 * This thread's connection to the store at `location`, opened on first use,
 * and its retriever: lexical (whose in-memory index is this thread's, of at
 * most `indexCachePostings` postings), fused with dense retrieval when the
 * embedding model is given (the model loaded on this thread, one ONNX
 * Runtime thread, question vectors cached), its passages' sentences scored
 * against the question (retrieval/sentence-similarity.ts).
 */
async function sourcesAt(location: StoreLocation, indexCachePostings?: number, embedding?: AnswerTask['embedding']): Promise<AnswerSources> {
  const key = JSON.stringify([location, indexCachePostings ?? null, embedding?.folder ?? null]);
  if (!sources || storeKey !== key) {
    const previous = sources?.store;
    sources = undefined;
    await previous?.close();
    const store = openStore(
      location.kind === 'postgres'
        ? { ...location, maxConnections: Math.min(location.maxConnections ?? WORKER_POSTGRES_CONNECTIONS, WORKER_POSTGRES_CONNECTIONS) }
        : location,
    );
    const { retriever } = await createAnswerRetriever(store, {
      ...(indexCachePostings === undefined ? {} : { indexCache: { maxPostings: indexCachePostings } }),
      ...(embedding ? { embedding } : {}),
    });
    sources = { store, retriever };
    storeKey = key;
  }
  return sources;
}

/** Structured clone keeps only `message` of an Error: carry its name in a plain object. */
function serializableError(error: unknown): { name: string; message: string } {
  const failure = error instanceof Error ? error : new Error(String(error));
  return { name: failure.name, message: failure.message };
}
