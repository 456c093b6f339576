import { describe, expect, test } from 'vitest';
import { SectionBuilder, formatInlineCode, trimBlankEdgeLines } from './section-builder.ts';

describe('SectionBuilder', () => {
  test('blocks before any heading: one section under the title', () => {
    const builder = new SectionBuilder('Title');

    builder.addBlock({ kind: 'paragraph', text: 'Intro.' });

    expect(builder.sections()).toEqual([{ headingPath: ['Title'], blocks: [{ kind: 'paragraph', text: 'Intro.' }] }]);
  });

  test('level-1 heading: replaces the root; level-3 after level-4: replaces the deeper entry', () => {
    const builder = new SectionBuilder('Fallback');

    builder.openHeading(1, 'Real');
    builder.openHeading(2, 'A');
    builder.openHeading(4, 'Deep');
    builder.addBlock({ kind: 'paragraph', text: 'one' });
    builder.openHeading(3, 'Mid');
    builder.addBlock({ kind: 'paragraph', text: 'two' });

    expect(builder.sections().map((section) => section.headingPath)).toEqual([
      ['Real', 'A', 'Deep'],
      ['Real', 'A', 'Mid'],
    ]);
  });

  test('empty level-1 heading: keeps the current root', () => {
    const builder = new SectionBuilder('Title');

    builder.openHeading(1, '');
    builder.addBlock({ kind: 'paragraph', text: 'Body.' });

    expect(builder.sections()[0]?.headingPath).toEqual(['Title']);
  });

  test('blank blocks and headings without blocks: leave no section', () => {
    const builder = new SectionBuilder('Title');

    builder.openHeading(2, 'Empty');
    builder.addBlock({ kind: 'paragraph', text: '  ' });
    builder.openHeading(2, 'Also empty');

    expect(builder.sections()).toEqual([]);
  });

  test('same heading text twice: two sections in document order', () => {
    const builder = new SectionBuilder('Title');

    builder.openHeading(2, 'Example');
    builder.addBlock({ kind: 'paragraph', text: 'first' });
    builder.openHeading(2, 'Example');
    builder.addBlock({ kind: 'paragraph', text: 'second' });

    expect(builder.sections().map((section) => section.blocks[0]?.text)).toEqual(['first', 'second']);
  });
});

describe('formatInlineCode', () => {
  test('plain code: wrapped in single backticks', () => {
    expect(formatInlineCode('fs.mkdir()')).toBe('`fs.mkdir()`');
  });

  test('code containing backticks: wrapped in a longer backtick run, padded at a backtick edge', () => {
    expect(formatInlineCode('a`b')).toBe('``a`b``');
    expect(formatInlineCode('`x`')).toBe('`` `x` ``');
  });
});

describe('trimBlankEdgeLines', () => {
  test('code with blank first and last lines: those dropped, inner blank lines and indentation kept', () => {
    expect(trimBlankEdgeLines('\n  \n  a();\n\n  b();\n\n')).toBe('  a();\n\n  b();');
  });
});
