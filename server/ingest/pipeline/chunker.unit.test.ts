import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DEFAULT_MAX_CHUNK_CHARACTERS, chunkDocument } from './chunker.ts';
import { parseMarkdown } from '../parsing/markdown-parser.ts';
import type { Block, ParsedDocument } from '../parsing/parsed-document.ts';

/** A one-section document, the shape most chunker tests need. */
function documentOf(blocks: Block[], headingPath = ['Title', 'Section']): ParsedDocument {
  return { title: headingPath[0] ?? 'Title', sections: [{ headingPath, blocks }] };
}

describe('chunkDocument', () => {
  test('short blocks of one section: packed into one chunk joined by blank lines, rendered by kind', () => {
    const document = documentOf([
      { kind: 'paragraph', text: 'Creates a directory.' },
      { kind: 'list-item', text: '`path` {string}' },
      { kind: 'list-item', text: '`mode` {integer}' },
      { kind: 'code', text: "mkdir('/tmp/a', () => {\n  done();\n});" },
      { kind: 'table', text: 'Constant | Octal\n`S_IRUSR` | `0o400`' },
    ]);

    const chunks = chunkDocument(document);

    expect(chunks).toEqual([
      {
        headingPath: ['Title', 'Section'],
        text: [
          'Creates a directory.',
          '- `path` {string}',
          '- `mode` {integer}',
          "```\nmkdir('/tmp/a', () => {\n  done();\n});\n```",
          'Constant | Octal\n`S_IRUSR` | `0o400`',
        ].join('\n\n'),
      },
    ]);
  });

  test('blocks that do not fit together: cut between blocks, greedily, in document order', () => {
    const first = 'a'.repeat(20);
    const second = 'b'.repeat(20);
    const third = 'c'.repeat(20);
    const document = documentOf([
      { kind: 'paragraph', text: first },
      { kind: 'paragraph', text: second },
      { kind: 'paragraph', text: third },
    ]);

    const chunks = chunkDocument(document, { maxCharacters: 42 });

    expect(chunks.map((chunk) => chunk.text)).toEqual([`${first}\n\n${second}`, third]);
  });

  test('two sections: never share a chunk, each chunk keeps its own heading path', () => {
    const document: ParsedDocument = {
      title: 'T',
      sections: [
        { headingPath: ['T', 'A'], blocks: [{ kind: 'paragraph', text: 'Alpha.' }] },
        { headingPath: ['T', 'B'], blocks: [{ kind: 'paragraph', text: 'Beta.' }] },
      ],
    };

    const chunks = chunkDocument(document);

    expect(chunks).toEqual([
      { headingPath: ['T', 'A'], text: 'Alpha.' },
      { headingPath: ['T', 'B'], text: 'Beta.' },
    ]);
  });

  test('paragraph longer than the limit: split at sentence ends even where more words would fit', () => {
    const sentences = [
      'The first sentence is here.',
      'Does the second ask a question?',
      '`fs.mkdir()` starts the third!',
      'The fourth one ends it with a few more words.',
    ];
    const document = documentOf([{ kind: 'paragraph', text: sentences.join(' ') }]);

    const chunks = chunkDocument(document, { maxCharacters: 75 });

    expect(chunks.map((chunk) => chunk.text)).toEqual([
      `${sentences[0]} ${sentences[1]}`,
      sentences[2],
      sentences[3],
    ]);
  });

  test('period before a lowercase word: not read as a sentence end', () => {
    const text = 'Set it. Use a flag, e.g. recursive, when parents may be missing. Then call it.';
    const document = documentOf([{ kind: 'paragraph', text }]);

    const chunks = chunkDocument(document, { maxCharacters: 60 });

    expect(chunks.map((chunk) => chunk.text)).toEqual([
      'Set it.',
      'Use a flag, e.g. recursive, when parents may be missing.',
      'Then call it.',
    ]);
  });

  test('sentence longer than the limit: split at whitespace, words intact', () => {
    const words = Array.from({ length: 30 }, (_, index) => `word${index}`);
    const document = documentOf([{ kind: 'paragraph', text: words.join(' ') }]);

    const chunks = chunkDocument(document, { maxCharacters: 40 });

    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(40);
    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(words.join(' '));
  });

  test('long list item: every piece keeps the "- " prefix and the limit', () => {
    const text = 'Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor.';
    const document = documentOf([{ kind: 'list-item', text }]);

    const chunks = chunkDocument(document, { maxCharacters: 30 });

    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.text.startsWith('- ')).toBe(true);
      expect(chunk.text.length).toBeLessThanOrEqual(30);
    }
    expect(chunks.map((chunk) => chunk.text.slice(2)).join(' ')).toBe(text);
  });

  test('code block longer than the limit: split at line ends, each piece fenced and within the limit', () => {
    const lines = Array.from({ length: 12 }, (_, index) => `  console.log(${index});`);
    const document = documentOf([{ kind: 'code', text: lines.join('\n') }]);

    const chunks = chunkDocument(document, { maxCharacters: 80 });

    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.text).toMatch(/^```\n[\s\S]*\n```$/);
      expect(chunk.text.length).toBeLessThanOrEqual(80);
    }
    const codeLines = chunks.flatMap((chunk) => chunk.text.slice(4, -4).split('\n'));
    expect(codeLines).toEqual(lines);
  });

  test('table longer than the limit: split between rows, the header row repeated in each piece', () => {
    const rows = Array.from({ length: 6 }, (_, index) => `\`O_FLAG_${index}\` | Flag number ${index}.`);
    const document = documentOf([{ kind: 'table', text: ['Constant | Description', ...rows].join('\n') }]);

    const chunks = chunkDocument(document, { maxCharacters: 100 });

    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.text.startsWith('Constant | Description\n')).toBe(true);
      expect(chunk.text.length).toBeLessThanOrEqual(100);
    }
    expect(chunks.flatMap((chunk) => chunk.text.split('\n').slice(1))).toEqual(rows);
  });

  test('token longer than the limit: kept whole in a chunk of its own, the rest within the limit', () => {
    const token = 'x'.repeat(50);
    const document = documentOf([{ kind: 'paragraph', text: `short words ${token} more short words` }]);

    const chunks = chunkDocument(document, { maxCharacters: 20 });

    expect(chunks.map((chunk) => chunk.text)).toEqual(['short words', token, 'more short words']);
  });

  test('random prose and code: no chunk over the limit unless it is one unsplittable token, none empty', () => {
    const word = fc.stringMatching(/^[A-Za-z`.?!]{1,30}$/);
    const prose = fc.array(word, { minLength: 1, maxLength: 80 }).map((words) => words.join(' '));
    const code = fc.array(fc.stringMatching(/^ {0,4}[a-z(){};]{0,40}$/), { minLength: 1, maxLength: 40 }).map((lines) => lines.join('\n'));
    const block: fc.Arbitrary<Block> = fc.oneof(
      prose.map((text) => ({ kind: 'paragraph' as const, text })),
      prose.map((text) => ({ kind: 'list-item' as const, text })),
      code.map((text) => ({ kind: 'code' as const, text })),
    );

    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 8 }), fc.integer({ min: 40, max: 400 }), (blocks, maxCharacters) => {
        const chunks = chunkDocument(documentOf(blocks), { maxCharacters });

        for (const chunk of chunks) {
          expect(chunk.text.trim()).not.toBe('');
          if (chunk.text.length > maxCharacters) {
            const content = chunk.text.replace(/^```\n|\n```$/g, '').replace(/^- /, '').trim();
            expect(content).not.toMatch(/\s/);
          }
        }
      }),
    );
  });

  test('document without sections: no chunks', () => {
    expect(chunkDocument({ title: 'Empty', sections: [] })).toEqual([]);
  });

  test('maxCharacters below 16 or not an integer: throws a RangeError naming the value', () => {
    const document = documentOf([{ kind: 'paragraph', text: 'Text.' }]);

    expect(() => chunkDocument(document, { maxCharacters: 10 })).toThrow(RangeError);
    expect(() => chunkDocument(document, { maxCharacters: 100.5 })).toThrow(/100\.5/);
  });
});

describe('chunkDocument on the Node.js API docs', () => {
  const apiFolder = new URL('../../../../shared/eval/nodejs-docs/api/', import.meta.url);

  test('fs.md: the fs.mkdir() callback section has a chunk about creating parent directories', () => {
    const source = readFileSync(new URL('../../../../shared/eval/nodejs-docs/api/fs.md', import.meta.url), 'utf8');

    const chunks = chunkDocument(parseMarkdown(source, 'fs.md'));

    const mkdirChunks = chunks.filter(
      (chunk) =>
        JSON.stringify(chunk.headingPath) ===
        JSON.stringify(['File system', 'Callback API', '`fs.mkdir(path[, options], callback)`']),
    );
    expect(mkdirChunks.some((chunk) => chunk.text.includes('parent directories should be created'))).toBe(true);
  });

  test('all 64 pages with the default limit: no chunk longer than the limit, no empty chunk', () => {
    const fileNames = readdirSync(apiFolder).filter((name) => name.endsWith('.md'));

    const chunks = fileNames.flatMap((name) =>
      chunkDocument(parseMarkdown(readFileSync(new URL(name, apiFolder), 'utf8'), name)),
    );

    expect(fileNames).toHaveLength(64);
    expect(chunks.filter((chunk) => chunk.text.length > DEFAULT_MAX_CHUNK_CHARACTERS)).toEqual([]);
    expect(chunks.filter((chunk) => chunk.text.trim() === '')).toEqual([]);
    expect(chunks.filter((chunk) => chunk.headingPath.length === 0)).toEqual([]);
  });
});
