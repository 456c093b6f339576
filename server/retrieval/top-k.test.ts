import { describe, expect, it } from 'vitest';
import { topSlots } from './top-k.ts';

/** The reference order: every candidate sorted by score descending, then slot ascending. */
function sortedSlots(scores: Float64Array, candidates: readonly number[], topK: number): number[] {
  return [...candidates].sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, topK);
}

describe('topSlots', () => {
  it('returns the best slots, best first, ties by slot ascending', () => {
    const scores = Float64Array.from([0.5, 2, 1, 2, 0, 3]);
    expect(topSlots(scores, Uint32Array.from([0, 1, 2, 3, 4, 5]), 6, 3)).toEqual([5, 1, 3]);
    expect(topSlots(scores, Uint32Array.from([5, 3, 4, 1, 0, 2]), 6, 4)).toEqual([5, 1, 3, 2]);
  });

  it('returns every candidate, sorted, when fewer than topK; nothing for topK 0', () => {
    const scores = Float64Array.from([1, 3, 2]);
    expect(topSlots(scores, Uint32Array.from([0, 1, 2, 9]), 3, 10)).toEqual([1, 2, 0]);
    expect(topSlots(scores, Uint32Array.from([0, 1, 2]), 3, 0)).toEqual([]);
    expect(topSlots(scores, Uint32Array.from([0, 1, 2]), 0, 5)).toEqual([]);
  });

  it('matches a full sort on random scores with many ties', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 200; round++) {
      const slots = 1 + Math.floor(random() * 400);
      const scores = Float64Array.from({ length: slots }, () => Math.floor(random() * 20) / 4);
      const candidates = Array.from({ length: slots }, (_, slot) => slot).filter(() => random() < 0.7);
      for (let index = candidates.length - 1; index > 0; index--) {
        const other = Math.floor(random() * (index + 1));
        [candidates[index], candidates[other]] = [candidates[other]!, candidates[index]!];
      }
      const topK = Math.floor(random() * 60);
      expect(topSlots(scores, Uint32Array.from(candidates), candidates.length, topK)).toEqual(sortedSlots(scores, candidates, topK));
    }
  });
});
