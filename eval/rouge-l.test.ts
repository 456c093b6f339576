import { describe, expect, it } from 'vitest';
import { longestCommonSubsequence, rougeL, rougeTokens } from './rouge-l.ts';

describe('rougeTokens', () => {
  it('lower-cases and splits on everything but ASCII letters and digits', () => {
    expect(rougeTokens("The cat's 2 hats, (red)!")).toEqual(['the', 'cat', 's', '2', 'hats', 'red']);
  });
});

describe('longestCommonSubsequence', () => {
  it('counts the longest in-order run of shared tokens, gaps allowed', () => {
    // a b c d e vs a c e x: LCS = a c e.
    expect(longestCommonSubsequence(['a', 'b', 'c', 'd', 'e'], ['a', 'c', 'e', 'x'])).toBe(3);
  });
});

describe('rougeL', () => {
  it("scores Lin's example: 'police killed the gunman' against 'police kill the gunman' as 3/4", () => {
    // LCS = police the gunman (3); P = 3/4, R = 3/4, F = 0.75.
    expect(rougeL('police kill the gunman', 'police killed the gunman')).toBeCloseTo(0.75, 12);
  });

  it('combines precision and recall of different lengths into F1', () => {
    // Candidate 2 tokens, reference 4, LCS 2: P = 1, R = 0.5, F = 2/3.
    expect(rougeL('a b', 'a x b y')).toBeCloseTo(2 / 3, 12);
  });

  it('is 1 for the same tokens whatever the case and punctuation', () => {
    expect(rougeL('Hello, World!', 'hello world')).toBe(1);
  });

  it('is 0 for an empty candidate or no shared token', () => {
    expect(rougeL('', 'anything')).toBe(0);
    expect(rougeL('abc', 'def')).toBe(0);
  });
});
