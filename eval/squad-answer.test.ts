import { describe, expect, it } from 'vitest';
import { containsGoldAnswer, normalizeAnswer } from './squad-answer.ts';

describe('normalizeAnswer', () => {
  it('lower-cases, drops punctuation and articles, and collapses whitespace', () => {
    expect(normalizeAnswer('  The Eiffel-Tower, in  PARIS! ')).toBe('eiffeltower in paris');
  });

  it('removes articles only as whole words', () => {
    expect(normalizeAnswer('An anthem at a theatre')).toBe('anthem at theatre');
  });

  it('treats accented letters as word characters around articles, as Python does', () => {
    expect(normalizeAnswer('café a')).toBe('café');
    expect(normalizeAnswer('éa')).toBe('éa');
  });

  it('keeps non-ASCII punctuation as the official script does', () => {
    expect(normalizeAnswer('“Norman” rule')).toBe('“norman” rule');
  });
});

describe('containsGoldAnswer', () => {
  it('finds a gold answer inside a longer answer after normalisation', () => {
    expect(containsGoldAnswer('The Normans were in Normandy in the 10th century.', ['10th Century'])).toBe(true);
  });

  it('accepts any one of several gold answers', () => {
    expect(containsGoldAnswer('It was founded in 1066.', ['1067', 'in 1066'])).toBe(true);
  });

  it('does not match a gold answer that is only part of a word', () => {
    expect(containsGoldAnswer('Normandy lies in France.', ['Norman'])).toBe(false);
  });

  it('never matches a gold answer that normalises to nothing', () => {
    expect(containsGoldAnswer('the answer', ['The'])).toBe(false);
  });
});
