import { describe, expect, test } from 'vitest';
import { analyze } from '../../retrieval/analyzer.ts';
import { QuestionPairs } from './phrase-pairs.ts';

describe('QuestionPairs', () => {
  test('three-term question, text holding one of its two pairs in order: coverage 0.5', () => {
    const pairs = new QuestionPairs(['dutch', 'name', 'rhine']);

    expect(pairs.coverage(analyze('The Dutch name of the river is Rijn; the Rhine flows north.'))).toBe(0.5);
  });

  test('pair present only in reverse order: not found', () => {
    const pairs = new QuestionPairs(['creat', 'directori']);

    expect(pairs.coverage(['directori', 'creat'])).toBe(0);
  });

  test('pair repeated in the text: visited once', () => {
    const pairs = new QuestionPairs(['read', 'file', 'line']);
    const visited: number[] = [];

    pairs.forEachFound(['read', 'file', 'then', 'read', 'file', 'line'], (second) => visited.push(second));

    expect(visited).toEqual([1, 2]);
  });

  test('one instance matched against several texts: each text counted on its own', () => {
    const pairs = new QuestionPairs(['read', 'file']);

    expect(pairs.coverage(['read', 'file'])).toBe(1);
    expect(pairs.coverage(['file', 'read'])).toBe(0);
    expect(pairs.coverage(['x', 'read', 'file'])).toBe(1);
  });

  test('one-term question: no pairs, coverage 0', () => {
    const pairs = new QuestionPairs(['rhine']);

    expect(pairs.count).toBe(0);
    expect(pairs.coverage(['rhine', 'rhine'])).toBe(0);
  });
});
