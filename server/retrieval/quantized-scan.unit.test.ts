import { describe, expect, test } from 'vitest';
import { approximateSimilarities, exactSimilarity } from './quantized-scan.ts';
import { clusteredIndex, dotProducts } from '../testing/dense-vectors.ts';

describe('the 8-bit dense scan', () => {
  test('scores every passage within its error bound of the exact dot product, and the bound is tight enough to be useful', async () => {
    const index = clusteredIndex(3_000, 384, 11);
    for (const questionSlot of [5, 777, 2_999]) {
      const query = index.vectors.slice(questionSlot * 384, (questionSlot + 1) * 384);
      const { scores, bound } = await approximateSimilarities(index, query);
      const reference = dotProducts(index, query);
      expect(scores).toHaveLength(3_000);
      let largestError = 0;
      for (let slot = 0; slot < reference.length; slot++) largestError = Math.max(largestError, Math.abs(scores[slot]! - reference[slot]!));
      expect(largestError).toBeGreaterThan(0);
      expect(largestError).toBeLessThanOrEqual(bound);
      // Far below the gaps between a question's nearest passages and the rest, or every passage would be scored again.
      expect(bound).toBeLessThan(0.05);
    }
  });

  test('gives the exact similarity of one passage in double precision', () => {
    const index = clusteredIndex(20, 16, 3);
    const query = index.vectors.slice(0, 16);
    expect(exactSimilarity(index, 0, query)).toBeCloseTo(1, 6);
    expect(exactSimilarity(index, 7, query)).toBeCloseTo(dotProducts(index, query)[7]!, 12);
  });

  test('scans an empty index to nothing and refuses a question vector of other dimensions, naming both', async () => {
    expect((await approximateSimilarities({ chunkIds: [], documentIds: [], vectors: new Float32Array(0), dimensions: 16 }, new Float32Array(16))).scores).toHaveLength(0);
    await expect(approximateSimilarities(clusteredIndex(10, 16, 5), new Float32Array(384))).rejects.toThrow('The query vector has 384 dimensions, the index 16');
  });
});
