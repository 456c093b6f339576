import { describe, expect, test } from 'vitest';
import { MIN_CORRECTED_LENGTH, correctMisspelledTerms, isOneEditApart } from './spelling-correction.ts';
import type { SearchResult } from '../../retrieval/retriever.ts';
import type { ScoredPassage } from '../../store/store.ts';

function passageOf(chunkId: number, text: string, headingPath = ['Guide']): ScoredPassage {
  return { chunkId, kbId: 'kb', docId: `doc-${chunkId}.md`, title: 'Guide', headingPath, text, quotable: true, contentHash: `hash-${chunkId}`, score: 10 - chunkId };
}

function searchOf(passages: ScoredPassage[], documentFrequencies: Record<string, number>): SearchResult {
  return { passages, passageCount: 50, documentFrequencies };
}

describe('isOneEditApart', () => {
  test.each([
    ['directori', 'directri', 'deletion'],
    ['directri', 'directori', 'insertion'],
    ['directori', 'directeri', 'substitution'],
    ['directori', 'directroi', 'transposition of adjacent characters'],
    ['stream', 'streams', 'insertion at the end'],
    ['stream', 'tream', 'deletion at the start'],
  ])('%s and %s: one edit (%s)', (left, right) => {
    expect(isOneEditApart(left, right)).toBe(true);
  });

  test.each([
    ['stream', 'stream', 'the same string'],
    ['stream', 'strain', 'two substitutions'],
    ['stream', 'stre', 'two deletions'],
    ['abcd', 'cdab', 'a transposition of non-adjacent characters'],
    ['directori', 'dircetroi', 'two transpositions'],
  ])('%s and %s: not one edit (%s)', (left, right) => {
    expect(isOneEditApart(left, right)).toBe(false);
  });
});

describe('correctMisspelledTerms', () => {
  test('term in no passage of the reach: replaced by the term one edit away that the retrieved passages hold', () => {
    // "directroy" stems to `directroi`; the passages hold `directori`.
    const search = searchOf([passageOf(1, 'Creates a directory and its parent directories.')], { creat: 3, directroi: 0 });

    expect(correctMisspelledTerms(['creat', 'directroi'], search)).toEqual(['creat', 'directori']);
  });

  test('two candidates one edit away: the one more retrieved passages hold wins', () => {
    const search = searchOf(
      [passageOf(1, 'The stream ends.'), passageOf(2, 'A streak of luck.'), passageOf(3, 'Each stream has a buffer.')],
      { streaa: 0 },
    );

    expect(correctMisspelledTerms(['streaa'], search)).toEqual(['stream']);
  });

  test('correction equal to another question term: merged, question order kept', () => {
    const search = searchOf([passageOf(1, 'Buffers hold bytes.')], { buffer: 4, bufer: 0, byte: 2 });

    expect(correctMisspelledTerms(['buffer', 'bufer', 'byte'], search)).toEqual(['buffer', 'byte']);
  });

  test('term a passage of the reach holds (df > 0) though not the retrieved ones: kept as asked', () => {
    const search = searchOf([passageOf(1, 'Streams and buffers.')], { streamz: 1 });

    expect(correctMisspelledTerms(['streamz'], search)).toBeUndefined();
  });

  test(`unknown term shorter than ${MIN_CORRECTED_LENGTH} characters, or with a digit: never corrected`, () => {
    const search = searchOf([passageOf(1, 'The http module and utf8 strings.')], { htp: 0, utf9: 0 });

    expect(MIN_CORRECTED_LENGTH).toBe(5);
    expect(correctMisspelledTerms(['htp', 'utf9'], search)).toBeUndefined();
  });

  test('unknown term with nothing one edit away in the retrieved passages, or no passages: undefined', () => {
    expect(correctMisspelledTerms(['kubernet'], searchOf([passageOf(1, 'Streams and buffers.')], { kubernet: 0 }))).toBeUndefined();
    expect(correctMisspelledTerms(['directroi'], searchOf([], { directroi: 0 }))).toBeUndefined();
  });

  test('candidate found only in a passage heading: corrected to it', () => {
    const search = searchOf([passageOf(1, 'Returns the value.', ['Guide', 'Timers'])], { timr: 0, timerz: 0 });

    expect(correctMisspelledTerms(['timerz'], search)).toEqual(['timer']);
  });
});
