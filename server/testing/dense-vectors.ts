import type { DenseIndex } from '../store/store.ts';

/**
 * Test vectors for dense retrieval: unit vectors from a seeded generator (a
 * failure repeats), gathered around a few directions as text embeddings are
 * (passages of one topic lie near one another), so that a question has near
 * neighbours whose similarities differ by less than an 8-bit scan's error.
 * Passage `slot` belongs to document `slot % 7` and has chunk id `slot + 1`.
 */
export function clusteredIndex(count: number, dimensions: number, seed: number): DenseIndex {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const centres = Array.from({ length: 8 }, () => Array.from({ length: dimensions }, next));
  const vectors = new Float32Array(count * dimensions);
  for (let slot = 0; slot < count; slot++) {
    const centre = centres[slot % centres.length]!;
    let norm = 0;
    for (let dimension = 0; dimension < dimensions; dimension++) {
      const value = centre[dimension]! + 0.6 * next();
      vectors[slot * dimensions + dimension] = value;
      norm += value * value;
    }
    for (let dimension = 0; dimension < dimensions; dimension++) vectors[slot * dimensions + dimension]! /= Math.sqrt(norm);
  }
  const slots = Array.from({ length: count }, (_, slot) => slot);
  return { chunkIds: slots.map((slot) => slot + 1), documentIds: slots.map((slot) => slot % 7), vectors, dimensions };
}

/** The reference: each passage's dot product with the query, in double precision, in slot order. */
export function dotProducts(index: DenseIndex, query: Float32Array): Float64Array {
  const scores = new Float64Array(index.chunkIds.length);
  for (let slot = 0; slot < scores.length; slot++) {
    let sum = 0;
    for (let dimension = 0; dimension < index.dimensions; dimension++) sum += index.vectors[slot * index.dimensions + dimension]! * query[dimension]!;
    scores[slot] = sum;
  }
  return scores;
}
