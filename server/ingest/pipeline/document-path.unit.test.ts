import { describe, expect, test } from 'vitest';
import { isSectionIndex, pageSegments, titleFromPath } from './document-path.ts';

describe('titleFromPath', () => {
  test('a page: its file name as words, first letter capitalised', () => {
    expect(titleFromPath('concepts/workloads/pods/pod-lifecycle.md')).toBe('Pod lifecycle');
    expect(titleFromPath('getting_started.html')).toBe('Getting started');
  });

  test('a section index (_index, index, README): its folder name; the top one "Home"', () => {
    expect(titleFromPath('concepts/storage/_index.md')).toBe('Storage');
    expect(titleFromPath('contribute/style/hugo-shortcodes/index.md')).toBe('Hugo shortcodes');
    expect(titleFromPath('guides/README.md')).toBe('Guides');
    expect(titleFromPath('_index.md')).toBe('Home');
  });
});

describe('pageSegments and isSectionIndex', () => {
  test('a section index stands for its folder; a page adds its name without extension', () => {
    expect(isSectionIndex('a/_index.md')).toBe(true);
    expect(isSectionIndex('a/indexes.md')).toBe(false);
    expect(pageSegments('a/_index.md')).toEqual(['a']);
    expect(pageSegments('a/b.c.md')).toEqual(['a', 'b.c']);
  });
});
