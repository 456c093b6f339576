import { LRUCache } from 'lru-cache';
import type { Embedder } from './embedder.ts';

/**
 * Question vectors, cached per question text (least recently used first out):
 * a question asked again - a suggestion chip, a retry, the same question from
 * another visitor - costs no model run.
 */

/** Questions whose vectors are kept: 1,000 × 384 floats is 1.5 MB. */
export const QUERY_CACHE_SIZE = 1_000;

/** @returns the question's vector, from the cache or the model */
export function cachedQueryEmbedder(embedder: Pick<Embedder, 'embed'>, capacity = QUERY_CACHE_SIZE): (question: string) => Promise<Float32Array> {
  const cache = new LRUCache<string, Promise<Float32Array>>({ max: capacity });
  return (question) => {
    const known = cache.get(question);
    if (known) return known;
    const vector = embedder.embed([question], 'query').then(([first]) => first!);
    // A failed run is not kept: the question is embedded again next time.
    vector.catch(() => cache.peek(question) === vector && cache.delete(question));
    cache.set(question, vector);
    return vector;
  };
}
