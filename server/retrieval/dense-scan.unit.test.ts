import { describe, expect, test } from 'vitest';
import { scanSimilarities } from './dense-scan.ts';
import { topSlots } from './top-k.ts';
import type { DenseIndex } from '../store/store.ts';
import { dotProducts } from '../testing/dense-vectors.ts';

/** Unit vectors from a seeded generator, so a failure repeats. */
function randomIndex(count: number, dimensions: number, seed: number): DenseIndex {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const vectors = new Float32Array(count * dimensions);
  for (let slot = 0; slot < count; slot++) {
    let norm = 0;
    for (let dimension = 0; dimension < dimensions; dimension++) {
      const value = next();
      vectors[slot * dimensions + dimension] = value;
      norm += value * value;
    }
    for (let dimension = 0; dimension < dimensions; dimension++) vectors[slot * dimensions + dimension]! /= Math.sqrt(norm);
  }
  const slots = Array.from({ length: count }, (_, slot) => slot);
  return { chunkIds: slots.map((slot) => slot + 1), documentIds: slots.map((slot) => slot % 7), vectors, dimensions };
}

describe('the exact dense scan', () => {
  test("scores every passage by its dot product with the question's vector, as the reference computes it", async () => {
    const index = randomIndex(2_000, 384, 7);
    const query = index.vectors.slice(123 * 384, 124 * 384);
    const scores = await scanSimilarities(index, query);
    const reference = dotProducts(index, query);
    expect(scores).toHaveLength(2_000);
    let largestError = 0;
    for (let slot = 0; slot < reference.length; slot++) largestError = Math.max(largestError, Math.abs(scores[slot]! - reference[slot]!));
    expect(largestError).toBeLessThan(1e-5);
    // A passage is its own nearest neighbour, and the top 10 are the reference's.
    const all = Uint32Array.from({ length: 2_000 }, (_, slot) => slot);
    expect(topSlots(scores, all, all.length, 10)[0]).toBe(123);
    expect(topSlots(scores, all, all.length, 10)).toEqual(topSlots(reference, all, all.length, 10));
  });

  test('scans a second index of other dimensions with the same graph, and an empty one to nothing', async () => {
    const small = randomIndex(50, 16, 3);
    const query = small.vectors.slice(0, 16);
    const scores = await scanSimilarities(small, query);
    expect(scores[0]).toBeCloseTo(1, 5);
    expect(Array.from(scores)).toEqual(Array.from(dotProducts(small, query)).map((value) => expect.closeTo(value, 5)));
    expect(await scanSimilarities({ chunkIds: [], documentIds: [], vectors: new Float32Array(0), dimensions: 16 }, query)).toHaveLength(0);
  });

  test('refuses a question vector of other dimensions than the index, naming both', async () => {
    const index = randomIndex(10, 16, 5);
    await expect(scanSimilarities(index, new Float32Array(384))).rejects.toThrow('The query vector has 384 dimensions, the index 16');
  });
});
