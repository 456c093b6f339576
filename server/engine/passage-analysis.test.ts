import { describe, expect, test } from 'vitest';
import { analyzePassage, PASSAGE_ANALYSIS_CACHE_SIZE } from './passage-analysis.ts';

describe('analyzePassage', () => {
  test('passage of two sentences and a code block: terms in order, heading terms, prose sentences with their terms', () => {
    const analysis = analyzePassage({
      headingPath: ['File system', 'Creating directories'],
      text: 'Creates a directory. Parents are created too.\n\n```js\nfs.mkdir(path)\n```',
    });

    expect(analysis.terms).toEqual(['creat', 'directori', 'parent', 'creat', 'js', 'fs', 'mkdir', 'path']);
    expect([...analysis.headingTerms]).toEqual(['file', 'system', 'creat', 'directori']);
    expect(analysis.sentences.map(({ sentence, terms }) => [sentence.text, terms])).toEqual([
      ['Creates a directory.', ['creat', 'directori']],
      ['Parents are created too.', ['parent', 'creat']],
    ]);
  });

  test('same heading path and text again: the memoized analysis; another heading path: a new one', () => {
    const passage = { headingPath: ['Guide'], text: 'Streams are read in chunks.' };

    const first = analyzePassage(passage);

    expect(analyzePassage({ headingPath: ['Guide'], text: 'Streams are read in chunks.' })).toBe(first);
    expect(analyzePassage({ headingPath: ['Other'], text: 'Streams are read in chunks.' })).not.toBe(first);
  });

  test('more passages than the cache holds: the least recently used is analyzed again, a recently used one is kept', () => {
    const oldest = analyzePassage({ headingPath: ['Eviction'], text: 'The oldest passage.' });
    const recent = analyzePassage({ headingPath: ['Eviction'], text: 'A recently used passage.' });

    for (let index = 0; index < PASSAGE_ANALYSIS_CACHE_SIZE - 1; index += 1) {
      if (index % 100 === 0) analyzePassage({ headingPath: ['Eviction'], text: 'A recently used passage.' });
      analyzePassage({ headingPath: ['Filler'], text: `Filler passage number ${index}.` });
    }

    expect(analyzePassage({ headingPath: ['Eviction'], text: 'A recently used passage.' })).toBe(recent);
    expect(analyzePassage({ headingPath: ['Eviction'], text: 'The oldest passage.' })).not.toBe(oldest);
  });
});
