import { describe, expect, test } from 'vitest';
import { splitBlocks } from './passage-blocks.ts';

describe('splitBlocks', () => {
  test('paragraph, list items and a fenced block separated by blank lines: one block each, in order', () => {
    const blocks = splitBlocks('Creates a directory.\n\n- `path` {string}\n\n- `mode` {integer}\n\n```\nmkdir(path);\n```');

    expect(blocks).toEqual([
      { kind: 'paragraph', text: 'Creates a directory.' },
      { kind: 'list-item', text: '`path` {string}' },
      { kind: 'list-item', text: '`mode` {integer}' },
      { kind: 'code', text: 'mkdir(path);' },
    ]);
  });

  test('code with blank lines and indentation: kept as written, fences dropped, language line ignored', () => {
    const blocks = splitBlocks('```js\nconst a = 1;\n\n  if (a) {\n    run();\n  }\n```');

    expect(blocks).toEqual([{ kind: 'code', text: 'const a = 1;\n\n  if (a) {\n    run();\n  }' }]);
  });

  test('prose right before and after a fence without blank lines: the fence still ends and starts blocks', () => {
    const blocks = splitBlocks('Run this:\n```\nnpm test\n```\nThen read the report.');

    expect(blocks.map((block) => block.kind)).toEqual(['paragraph', 'code', 'paragraph']);
  });

  test('paragraph wrapped over lines: joined with single spaces', () => {
    expect(splitBlocks('A paragraph\nthat wraps.')).toEqual([{ kind: 'paragraph', text: 'A paragraph that wraps.' }]);
  });

  test('unclosed fence: the rest of the passage is one code block', () => {
    const blocks = splitBlocks('Before.\n\n```\nconst a = 1;\n\nMore code.');

    expect(blocks).toEqual([
      { kind: 'paragraph', text: 'Before.' },
      { kind: 'code', text: 'const a = 1;\n\nMore code.' },
    ]);
  });

  test('empty passage: no blocks', () => {
    expect(splitBlocks('')).toEqual([]);
  });
});
