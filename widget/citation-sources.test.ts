import { describe, expect, test } from 'vitest';
import type { Citation } from '../protocol/query-protocol.ts';
import { followableUrl, groupSources, readableDocumentName } from './citation-sources.ts';

const PAGE = 'http://localhost:5173';

function citation(index: number, documentId: string, extra: Partial<Citation> = {}): Citation {
  return { index, doc_id: documentId, kb_id: 'docs', source_span: { ref: `ref-${index}` }, ...extra };
}

describe('readableDocumentName', () => {
  test.each([
    ['child_process.md', 'Child process'],
    ['api/fs.md', 'Fs'],
    ['guides/getting-started/index.md', 'Getting started'],
    ['guides/README.md', 'Guides'],
    ['FAQ.md', 'FAQ'],
    ['release-notes-2024.html', 'Release notes 2024'],
    ['', ''],
  ])('%j: %j', (documentId, name) => {
    expect(readableDocumentName(documentId)).toBe(name);
  });
});

describe('followableUrl', () => {
  test.each([
    ['https://docs.example.com/fs#fs-stat', 'https://docs.example.com/fs#fs-stat'],
    ['mailto:help@example.com', 'mailto:help@example.com'],
    [`${PAGE}/docs/fs`, `${PAGE}/docs/fs`],
    ['http://elsewhere.test/fs', undefined],
    ['javascript:alert(1)', undefined],
    ['data:text/html,hi', undefined],
    ['docs/fs', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j without a base: %j', (url, expected) => {
    expect(followableUrl(url, PAGE)).toBe(expected);
  });

  test('relative URL with the page as base: resolved on the page origin', () => {
    expect(followableUrl('/support', PAGE, `${PAGE}/help/`)).toBe(`${PAGE}/support`);
  });
});

describe('groupSources', () => {
  test('two sections of one document and another document: two rows, the shared title first, each section under it', () => {
    const groups = groupSources(
      [
        citation(1, 'fs.md', { title: 'File system › fs.mkdir()', url: 'https://docs.example.com/fs#fs-mkdir' }),
        citation(2, 'os.md'),
        citation(3, 'fs.md', { title: 'File system › fs.stat()', url: 'https://docs.example.com/fs#fs-stat' }),
      ],
      PAGE,
    );

    expect(groups.map((group) => [group.title, group.url, group.citations.map((entry) => [entry.citation.index, entry.section])])).toEqual([
      ['File system', 'https://docs.example.com/fs', [[1, 'fs.mkdir()'], [3, 'fs.stat()']]],
      ['Os', undefined, [[2, '']]],
    ]);
  });

  test('one section cited twice: the document title linked to the section URL, the section under it', () => {
    const place = { title: 'File system › fs.stat() › Options', url: 'https://docs.example.com/fs#fs-stat' };

    const [group] = groupSources([citation(1, 'fs.md', place), citation(2, 'fs.md', place)], PAGE);

    expect(group).toMatchObject({ title: 'File system', url: 'https://docs.example.com/fs#fs-stat' });
    expect(group!.citations.map((entry) => entry.section)).toEqual(['fs.stat() › Options', 'fs.stat() › Options']);
  });

  test('a title without sections: the whole title names the row, no section', () => {
    const [group] = groupSources([citation(1, 'intro.md', { title: 'Introduction' }), citation(2, 'intro.md')], PAGE);

    expect(group!.title).toBe('Introduction');
    expect(group!.citations.map((entry) => entry.section)).toEqual(['', '']);
  });

  test('repeated document without titles (today’s server): one row named from its doc_id', () => {
    const groups = groupSources([citation(1, 'child_process.md'), citation(2, 'child_process.md')], PAGE);

    expect(groups).toHaveLength(1);
    expect(groups[0]!.title).toBe('Child process');
    expect(groups[0]!.citations).toHaveLength(2);
  });

  test('same doc_id in two knowledge bases: two rows', () => {
    expect(groupSources([citation(1, 'fs.md'), { ...citation(2, 'fs.md'), kb_id: 'other' }], PAGE)).toHaveLength(2);
  });

  test('URL a visitor must not follow: the row has no link', () => {
    const [group] = groupSources([citation(1, 'a.md', { title: 'A', url: 'javascript:alert(1)' })], PAGE);

    expect(group!.url).toBeUndefined();
  });
});
