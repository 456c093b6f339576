import { describe, expect, test } from 'vitest';
import { analyzePassage, identifierTerms, PASSAGE_ANALYSIS_CACHE_SIZE } from './passage-analysis.ts';

describe('analyzePassage', () => {
  test('passage of two sentences and a code block: terms in order, heading terms, prose sentences with their terms', () => {
    const analysis = analyzePassage({
      headingPath: ['File system', 'Creating directories'],
      text: 'Creates a directory. Parents are created too.\n\n```js\nfs.mkdir(path)\n```',
    });

    expect(analysis.terms).toEqual(['creat', 'directori', 'parent', 'creat', 'js', 'fs', 'file', 'system', 'mkdir', 'make', 'directori', 'path']);
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

describe('analyzePassage: structure', () => {
  test('API section: subject terms from the name without parameters, identifiers also split at case changes', () => {
    const analysis = analyzePassage({ headingPath: ['HTTP', '`http.createServer([options][, requestListener])`'], text: 'Returns a server.' });

    expect([...analysis.subjectTerms]).toEqual(['http', 'createserv', 'creat', 'server']);
  });

  test('passage directly under the title: no subject terms', () => {
    expect(analyzePassage({ headingPath: ['Streams'], text: 'Streams are useful.' }).subjectTerms.size).toBe(0);
  });

  test('fenced block: hasCode and mentionsCode; inline code only: mentionsCode; ``quotes\'\' only: neither', () => {
    const fenced = analyzePassage({ headingPath: ['A'], text: 'Run:\n\n```\nnpm test\n```' });
    const inline = analyzePassage({ headingPath: ['A'], text: 'Call `fs.stat()` first.' });
    const quotes = analyzePassage({ headingPath: ['A'], text: "The coat is known as a `` double coat '' among breeders." });

    expect([fenced.hasCode, fenced.mentionsCode]).toEqual([true, true]);
    expect([inline.hasCode, inline.mentionsCode]).toEqual([false, true]);
    expect([quotes.hasCode, quotes.mentionsCode]).toEqual([false, false]);
  });
});

describe('identifierTerms', () => {
  test('camel case and an acronym before a word: split, the whole name kept too, an abbreviation followed by its word', () => {
    expect(identifierTerms('readFileSync')).toEqual(['readfilesync', 'read', 'file', 'sync', 'synchron']);
    expect(identifierTerms('HTTPServer')).toEqual(['httpserver', 'http', 'server']);
  });

  test('a plain word: its analyzed term only', () => {
    expect(identifierTerms('size')).toEqual(['size']);
  });
});
