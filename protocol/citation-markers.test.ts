import { describe, expect, test } from 'vitest';
import { escapeLiteralMarkers, findCitationMarkers } from './citation-markers.ts';

describe('findCitationMarkers', () => {
  test('markers in prose: found in order, duplicates kept', () => {
    expect(findCitationMarkers('First [1]. Second [2] and again [1].')).toEqual([1, 2, 1]);
  });

  test('bracketed number inside inline code: not a marker', () => {
    expect(findCitationMarkers('Read `process.argv[2]` for the file [1].')).toEqual([1]);
  });

  test('escaped bracketed number: not a marker', () => {
    expect(findCitationMarkers('Footnote \\[3] says so [1].')).toEqual([1]);
  });

  test('double-backtick code span containing a backtick and [4]: not a marker', () => {
    expect(findCitationMarkers('Use ``a`[4]`` here [2].')).toEqual([2]);
  });
});

describe('escapeLiteralMarkers', () => {
  test('bracketed number in prose: escaped; inside code: unchanged', () => {
    expect(escapeLiteralMarkers('See [2] and `argv[2]`.')).toBe('See \\[2] and `argv[2]`.');
  });

  test('escaped text: adds no markers', () => {
    const escaped = escapeLiteralMarkers('Values [1], [2] and `x[3]` stay literal');

    expect(findCitationMarkers(escaped)).toEqual([]);
  });
});
