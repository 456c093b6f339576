import { describe, expect, test } from 'vitest';
import { fuseConvex, fuseRanks, fusionName } from './hybrid-retriever.ts';
import type { ScoredPassage } from '../store/store.ts';

const passage = (chunkId: number, score: number, similarity?: number): ScoredPassage => ({
  chunkId,
  kbId: 'kb',
  docId: `${chunkId}.md`,
  title: `Page ${chunkId}`,
  headingPath: [],
  text: '',
  quotable: true,
  contentHash: '',
  score,
  ...(similarity === undefined ? {} : { similarity }),
});

describe('reciprocal rank fusion', () => {
  test('a passage both retrievers rank well comes before one only a single retriever ranks first', () => {
    const lexical = [passage(1, 9), passage(2, 8), passage(3, 7)];
    const dense = [passage(4, 0.9, 0.9), passage(2, 0.8, 0.8), passage(5, 0.7, 0.7)];

    const fused = fuseRanks(lexical, dense);

    expect(fused.map((entry) => entry.chunkId)).toEqual([2, 1, 4, 3, 5]);
    // Lexical scores are kept (0 for a passage only the dense list held); similarities where the dense list held it.
    expect(fused.map((entry) => [entry.score, entry.similarity])).toEqual([
      [8, 0.8],
      [9, undefined],
      [0, 0.9],
      [7, undefined],
      [0, 0.7],
    ]);
  });

  test('a passage only the lexical list held takes its page\'s document similarity when the dense list held another passage of the page', () => {
    const samePage = (entry: ScoredPassage, docId: string, documentSimilarity?: number): ScoredPassage => ({ ...entry, docId, ...(documentSimilarity === undefined ? {} : { documentSimilarity }) });
    const lexical = [samePage(passage(1, 9), 'fs.md'), samePage(passage(2, 8), 'path.md')];
    const dense = [samePage(passage(3, 0.8, 0.8), 'fs.md', 0.6)];

    const fused = fuseRanks(lexical, dense);

    expect(Object.fromEntries(fused.map((entry) => [entry.chunkId, entry.documentSimilarity]))).toEqual({ 1: 0.6, 2: undefined, 3: 0.6 });
  });
});

describe('convex combination fusion', () => {
  // Lexical scores normalise to A 1, B 0.5, C 0; dense similarities to B 1, D 5/6, A 0.
  const lexical = [passage(1, 10), passage(2, 6), passage(3, 2)];
  const dense = [passage(2, 0.8, 0.8), passage(4, 0.7, 0.7), passage(1, 0.2, 0.2)];

  test('ranks by the weighted sum of the two lists\' min-max normalised scores, a list without the passage counting 0', () => {
    // 0.5: A 0.5, B 0.75, C 0, D 5/12.
    expect(fuseConvex(lexical, dense, 0.5).map((entry) => entry.chunkId)).toEqual([2, 1, 4, 3]);
    // 0.8: A 0.2, B 0.9, C 0, D 2/3.
    expect(fuseConvex(lexical, dense, 0.8).map((entry) => entry.chunkId)).toEqual([2, 4, 1, 3]);
  });

  test('follows one list alone at weight 0 or 1, and keeps lexical scores and similarities as reciprocal rank fusion does', () => {
    // The lowest of a list and a passage it did not hold both count 0 (C and D at weight 0, A and C at 1).
    expect(fuseConvex(lexical, dense, 0).slice(0, 2).map((entry) => entry.chunkId)).toEqual([1, 2]);
    expect(fuseConvex(lexical, dense, 1).slice(0, 2).map((entry) => entry.chunkId)).toEqual([2, 4]);
    const fused = new Map(fuseConvex(lexical, dense, 0.5).map((entry) => [entry.chunkId, [entry.score, entry.similarity]]));
    expect(Object.fromEntries(fused)).toEqual({ 1: [10, 0.2], 2: [6, 0.8], 3: [2, undefined], 4: [0, 0.7] });
  });

  test('is named for reports', () => {
    expect(fusionName()).toBe('RRF');
    expect(fusionName({ convexDenseWeight: 0.5 })).toBe('convex 0.5');
  });
});
