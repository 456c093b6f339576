import { describe, expect, it } from 'vitest';
import { containsKeyTerm, meetsKey, normalizeForKeys } from './key-terms.ts';

describe('containsKeyTerm', () => {
  const contains = (text: string, term: string): boolean => containsKeyTerm(normalizeForKeys(text), term);

  it('matches a term written as inline code, in another case, followed by its call parentheses', () => {
    expect(contains('Call `Fs.stat(path)` and read `stats.size`.', 'fs.stat')).toBe(true);
  });

  it('does not match a term that continues into a longer identifier', () => {
    expect(contains('Use `fs.statSync()` instead.', 'fs.stat')).toBe(false);
    expect(contains('the sizeof operator', 'size')).toBe(false);
  });

  it('does not match a term that is the tail of a longer identifier', () => {
    expect(contains('ECONNREFUSED was raised', 'refused')).toBe(false);
  });

  it('matches a term after a dot, as a property of another object', () => {
    expect(contains('The `stats.size` property', 'size')).toBe(true);
  });

  it('matches a term inside markdown emphasis, whose underscores do not continue a word', () => {
    expect(contains('_may contain sensitive data_.', 'sensitive data')).toBe(true);
  });

  it('matches a multi-word term across a line break', () => {
    expect(contains('is not a security\nmechanism', 'not a security mechanism')).toBe(true);
  });

  it('guards only the ends that are identifier characters', () => {
    expect(contains('node --watch-path=src index.js', '--watch')).toBe(true);
    expect(contains('supports the .mjs extension', '.mjs')).toBe(true);
    expect(contains("emitter.on('error', listener)", "'error'")).toBe(true);
  });

  it('finds a later occurrence when the first one continues an identifier', () => {
    expect(contains('fs.statSync() or fs.stat()', 'fs.stat')).toBe(true);
  });

  it('never matches an empty term', () => {
    expect(contains('anything', '  ')).toBe(false);
  });
});

describe('meetsKey', () => {
  const key = [['fs.stat', 'fs.statSync', 'fsPromises.stat'], 'size'];

  it('is met when every entry has one of its alternatives in the text', () => {
    expect(meetsKey('Call `fs.statSync(path)`; its `size` is in bytes.', key)).toBe(true);
  });

  it('is not met when one entry is missing', () => {
    expect(meetsKey('Call `fs.stat(path)` to get information about a file.', key)).toBe(false);
  });

  it('is never met by an empty key', () => {
    expect(meetsKey('fs.stat size', [])).toBe(false);
  });
});
