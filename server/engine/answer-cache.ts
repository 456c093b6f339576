import { LRUCache } from 'lru-cache';
import type { PreparedAnswer } from './answer-engine.ts';
import type { Reach } from '../store/store.ts';

/**
 * Prepared answers (engine/answer-engine.ts `PreparedAnswer`) kept on the
 * main thread, so a question asked again - the same words, inside the same
 * reach, with the same top-k - is answered without a worker, a store read
 * of passages or the engine's CPU: a help site's visitors ask its popular
 * questions over and over, and click the same follow-up suggestions.
 *
 * An entry holds only while the knowledge base's content version
 * (store/content-version.ts) is the one it was prepared at: every write that
 * can change an answer - a document, its access or URL, the curated answers
 * - changes that version, and the caller reads it for each question, so an
 * answer is never served from before a change on any replica. The reach
 * (user and visibilities) is part of the key: an answer prepared for one
 * reader is never given to a reader who may see less.
 *
 * Least recently used entries go first once {@link AnswerCache} holds its
 * maximum (lru-cache).
 */

/**
 * Answers one process keeps by default. An entry holds its cited passages'
 * text (and, with a chat model, the retrieved passages'): a few to about 20
 * kilobytes, so at most some 20 MB.
 */
export const DEFAULT_ANSWER_CACHE_SIZE = 1024;

/** What one answer was prepared for. */
export interface AnswerKey {
  question: string;
  reach: Reach;
  topK?: number;
}

interface Entry {
  version: string;
  prepared: PreparedAnswer;
}

export class AnswerCache {
  /** Undefined when the cache keeps none. */
  readonly #entries: LRUCache<string, Entry> | undefined;

  /** @param maxEntries answers kept at most (0 keeps none) */
  constructor(maxEntries: number = DEFAULT_ANSWER_CACHE_SIZE) {
    this.#entries = maxEntries > 0 ? new LRUCache<string, Entry>({ max: maxEntries }) : undefined;
  }

  /**
   * The answer prepared for `key` at content version `version`, or
   * undefined (none kept, or kept from another version, which is dropped).
   * The object is shared: callers must not change it.
   */
  get(key: AnswerKey, version: string): PreparedAnswer | undefined {
    const id = keyOf(key);
    const entry = this.#entries?.get(id);
    if (entry === undefined) return undefined;
    if (entry.version === version) return entry.prepared;
    this.#entries?.delete(id);
    return undefined;
  }

  /** Keeps the answer prepared for `key` at content version `version` (read before it was prepared). */
  set(key: AnswerKey, version: string, prepared: PreparedAnswer): void {
    this.#entries?.set(keyOf(key), { version, prepared });
  }

  /** Answers kept. */
  get size(): number {
    return this.#entries?.size ?? 0;
  }
}

/** One string for the key's parts (JSON, so no two keys collide). */
function keyOf({ question, reach, topK }: AnswerKey): string {
  return JSON.stringify([reach.kbId, reach.userId, [...reach.visibilities].sort(), topK ?? null, question]);
}
