import { describe, expect, test } from 'vitest';
import { analyze } from '../retrieval/analyzer.ts';
import { RELATED_SIMILARITY, SHORTCUT_SIMILARITY, rankFaqPairs } from './qa-shortcut.ts';
import type { FaqPair } from '../store/store.ts';

/** A curated pair with one source; only its question matters for matching. */
function pairOf(question: string): FaqPair {
  return { question, answer: `Answer to: ${question} [1]`, sources: [{ docId: 'fs.md' }] };
}

describe('rankFaqPairs', () => {
  test('curated question with the same content words in another order, other function words: similarity 1', () => {
    const pair = pairOf('Creating directories: how?');

    const [match] = rankFaqPairs(analyze('How do I create a directory?'), [pair]);

    expect(match).toEqual({ pair, similarity: 1 });
  });

  test('several pairs: ranked best first by Dice coefficient of the term sets', () => {
    const unrelated = pairOf('How do I read a file?');
    const partial = pairOf('How do I remove a directory?');
    const superset = pairOf('How do I create a directory recursively?');
    const exact = pairOf('Create a directory');

    const matches = rankFaqPairs(['creat', 'directori'], [unrelated, partial, superset, exact]);

    // {creat, directori} against: itself 1; +recurs 2*2/5 = 0.8; {remov, directori} 2*1/4 = 0.5; {read, file} 0.
    expect(matches.map((match) => match.pair)).toEqual([exact, superset, partial, unrelated]);
    expect(matches.map((match) => match.similarity)).toEqual([1, 0.8, 0.5, 0]);
  });

  test('pairs with equal similarity: keep their order in the curated file', () => {
    const first = pairOf('How do I remove a directory?');
    const second = pairOf('How do I rename a directory?');
    const third = pairOf('Which directory is the home?');

    const matches = rankFaqPairs(['creat', 'directori'], [first, second, third]);

    expect(matches.map((match) => match.pair)).toEqual([first, second, third]);
    expect(matches.every((match) => match.similarity === 0.5)).toBe(true);
  });

  test('question terms repeated: counted once (set semantics)', () => {
    const [match] = rankFaqPairs(['creat', 'creat', 'directori'], [pairOf('Create a directory')]);

    expect(match?.similarity).toBe(1);
  });

  test('question without content words: every pair scores 0, none can answer', () => {
    const matches = rankFaqPairs([], [pairOf('How do I create a directory?')]);

    expect(matches.map((match) => match.similarity)).toEqual([0]);
  });

  test('curated question made only of stop words: scores 0 even against a question with no content words', () => {
    const matches = rankFaqPairs(analyze('What is it?'), [pairOf('What is it?')]);

    expect(matches[0]?.similarity).toBe(0);
  });

  test('no pairs: empty ranking', () => {
    expect(rankFaqPairs(['creat'], [])).toEqual([]);
  });

  test('one extra content word on either side of four shared: 2*4/9 = 0.89, at or above SHORTCUT_SIMILARITY', () => {
    const pair = pairOf('create temporary directory prefix recursively');

    const [match] = rankFaqPairs(analyze('create temporary directory prefix'), [pair]);

    expect(match?.similarity).toBeCloseTo(8 / 9, 12);
    expect(match!.similarity).toBeGreaterThanOrEqual(SHORTCUT_SIMILARITY);
  });

  test('three of four content words shared: 2*3/8 = 0.75, below SHORTCUT_SIMILARITY but related', () => {
    const pair = pairOf('create temporary directory recursively');

    const [match] = rankFaqPairs(analyze('create temporary directory prefix'), [pair]);

    expect(match?.similarity).toBe(0.75);
    expect(match!.similarity).toBeLessThan(SHORTCUT_SIMILARITY);
    expect(match!.similarity).toBeGreaterThanOrEqual(RELATED_SIMILARITY);
  });

  test('one of two words shared with a four-word question: 2/6 = 0.33, just above RELATED_SIMILARITY', () => {
    const [match] = rankFaqPairs(analyze('remove directory'), [pairOf('create temporary directory prefix')]);

    expect(match?.similarity).toBeCloseTo(1 / 3, 12);
    expect(match!.similarity).toBeGreaterThanOrEqual(RELATED_SIMILARITY);
  });

  test('one of two words shared with a five-word question: 2/7 = 0.29, below RELATED_SIMILARITY', () => {
    const [match] = rankFaqPairs(analyze('remove directory'), [pairOf('create temporary directory prefix recursively')]);

    expect(match?.similarity).toBeCloseTo(2 / 7, 12);
    expect(match!.similarity).toBeLessThan(RELATED_SIMILARITY);
  });
});
