import { describe, expect, it } from 'vitest';
import { escapeMarkdown, markdownDocument } from './markdown-source.ts';
import { parseMarkdown } from '../server/ingest/parsing/markdown-parser.ts';

describe('markdownDocument', () => {
  it('reads back through the markdown parser as the literal title, headings and text', () => {
    const text = '* Not a list, _not emphasis_, [not](a link) <b>not html</b> &amp; 1. not a number';
    const source = markdownDocument('# Title *with* marks ', [{ heading: 'Paragraph 1', text }]);

    const parsed = parseMarkdown(source, 'fallback');

    expect(parsed.title).toBe('# Title *with* marks');
    expect(parsed.sections).toEqual([
      { headingPath: ['# Title *with* marks', 'Paragraph 1'], anchor: 'paragraph-1', blocks: [{ kind: 'paragraph', text }] },
    ]);
  });

  it('puts a section without heading directly under the title', () => {
    const parsed = parseMarkdown(markdownDocument('Title', [{ text: 'Line one\nline two' }]), 'fallback');

    expect(parsed.sections).toEqual([{ headingPath: ['Title'], anchor: 'title', blocks: [{ kind: 'paragraph', text: 'Line one line two' }] }]);
  });
});

describe('escapeMarkdown', () => {
  it('backslash-escapes ASCII punctuation and collapses whitespace', () => {
    expect(escapeMarkdown(' a*b\n\nc ')).toBe('a\\*b c');
  });
});
