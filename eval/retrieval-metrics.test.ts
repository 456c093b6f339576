import { describe, expect, it } from 'vitest';
import { ndcgAtK, recallAtK } from './retrieval-metrics.ts';

describe('ndcgAtK', () => {
  it('scores a run with the only relevant document first as 1', () => {
    expect(ndcgAtK(['d1', 'd2', 'd3'], new Map([['d1', 1]]), 10)).toBe(1);
  });

  it('discounts a relevant document at rank 3 by log2(4)', () => {
    // DCG = 1 / log2(4) = 0.5; ideal DCG = 1 / log2(2) = 1.
    expect(ndcgAtK(['x', 'y', 'd1'], new Map([['d1', 1]]), 10)).toBeCloseTo(0.5, 12);
  });

  it('takes the ideal DCG from the qrels, so a missed relevant document lowers the score', () => {
    // Relevant: d1, d2. Run finds d1 at rank 2 only.
    // DCG = 1 / log2(3) = 0.630930; ideal = 1 + 1 / log2(3) = 1.630930; nDCG = 0.386853.
    expect(ndcgAtK(['x', 'd1', 'y'], new Map([['d1', 1], ['d2', 1]]), 10)).toBeCloseTo(0.386853, 5);
  });

  it('ignores relevant documents ranked past the cut-off', () => {
    expect(ndcgAtK(['x', 'y', 'd1'], new Map([['d1', 1]]), 2)).toBe(0);
  });

  it('caps the ideal DCG at k relevant documents', () => {
    // Three relevant, k = 2, run = [d1, d2]: DCG equals the ideal of two documents.
    expect(ndcgAtK(['d1', 'd2'], new Map([['d1', 1], ['d2', 1], ['d3', 1]]), 2)).toBe(1);
  });

  it('treats grade 0 qrels as not relevant', () => {
    expect(ndcgAtK(['d0', 'd1'], new Map([['d0', 0], ['d1', 1]]), 10)).toBeCloseTo(1 / Math.log2(3), 12);
  });

  it('rejects a cut-off that is not a positive integer', () => {
    expect(() => ndcgAtK([], new Map(), 0)).toThrow(RangeError);
  });
});

describe('recallAtK', () => {
  it('counts the share of relevant documents within the cut-off', () => {
    const relevance = new Map([['d1', 1], ['d2', 1], ['d3', 1], ['d4', 1]]);
    expect(recallAtK(['d1', 'x', 'd3', 'd2'], relevance, 3)).toBe(0.5);
  });

  it('is 0 for a query without relevant documents', () => {
    expect(recallAtK(['d1'], new Map(), 100)).toBe(0);
  });
});
