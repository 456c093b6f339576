import { describe, expect, test } from 'vitest';
import { jsonDepth, MAX_JSON_DEPTH } from './body-guards.ts';

describe('jsonDepth', () => {
  test.each([
    ['a scalar', 'q', 0],
    ['null', null, 0],
    ['an empty object', {}, 1],
    ['the query body', { question: 'q', top_k: 3, options: { a: [1] } }, 3],
    ['an array of objects', [{ a: 1 }, { b: [] }], 3],
  ])('%s: depth %i', (_name, value, depth) => {
    expect(jsonDepth(value)).toBe(depth);
  });

  test('100,000 nested arrays (deeper than the stack allows recursion): stops at the ceiling plus one', () => {
    const value = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;

    expect(jsonDepth(value)).toBe(MAX_JSON_DEPTH + 1);
  });

  test('exactly the ceiling deep: counted, not cut', () => {
    const value = JSON.parse(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`) as unknown;

    expect(jsonDepth(value)).toBe(MAX_JSON_DEPTH);
  });
});
