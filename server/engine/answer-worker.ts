import { createAnswerEngine, type AnswerEngine } from './answer-engine.ts';
import type { AnswerEvent } from './answer-events.ts';
import { openStore, type StoreLocation } from '../store/open-store.ts';
import type { Reach, Store } from '../store/store.ts';

/**
 * Worker-thread entry of the answer pool (engine/answer-pool.ts): computes a
 * whole answer (curated match, BM25 retrieval, sentence selection) on this
 * thread's own store connection, so no question stalls the event loop that
 * carries every open stream (DESIGN.md "Storage").
 */

/** One question sent to a worker. */
export interface AnswerTask {
  location: StoreLocation;
  abstentionThreshold: number;
  question: string;
  reach: Reach;
  topK?: number;
}

let engine: AnswerEngine | undefined;
let engineStore: Store | undefined;
let engineKey = '';

/** Runs one question; called by piscina. Errors keep their `name` across the thread boundary. */
export default async function runAnswerTask(task: AnswerTask): Promise<AnswerEvent[]> {
  const key = JSON.stringify([task.location, task.abstentionThreshold]);
  if (!engine || engineKey !== key) {
    await engineStore?.close();
    engineStore = openStore(task.location);
    engine = createAnswerEngine({ store: engineStore, abstentionThreshold: task.abstentionThreshold });
    engineKey = key;
  }
  const events: AnswerEvent[] = [];
  const request = { question: task.question, reach: task.reach, ...(task.topK === undefined ? {} : { topK: task.topK }) };
  try {
    for await (const event of engine.answer(request)) events.push(event);
  } catch (error) {
    throw serializableError(error);
  }
  return events;
}

/** Structured clone keeps only `message` of an Error: carry its name in a plain object. */
function serializableError(error: unknown): { name: string; message: string } {
  const failure = error instanceof Error ? error : new Error(String(error));
  return { name: failure.name, message: failure.message };
}
