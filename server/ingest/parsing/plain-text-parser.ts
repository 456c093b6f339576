/**
 * Plain text source to {@link ParsedDocument}.
 */
import type { ParsedDocument } from './parsed-document.ts';
import { SectionBuilder, collapseWhitespace } from './section-builder.ts';

/**
 * Parses plain text into one section `[fallbackTitle]` of paragraphs.
 *
 * Paragraphs are separated by blank lines (lines empty or only whitespace);
 * inside a paragraph, newlines and runs of whitespace collapse to one space.
 * Text without any paragraph yields no sections. Never throws.
 *
 * @param source the text; `\n` and `\r\n` line ends are both read.
 * @param fallbackTitle the document title and the section's heading path.
 */
export function parsePlainText(source: string, fallbackTitle: string): ParsedDocument {
  const builder = new SectionBuilder(fallbackTitle);
  for (const paragraph of source.split(/\r?\n[ \t]*\r?\n/)) {
    builder.addBlock({ kind: 'paragraph', text: collapseWhitespace(paragraph) });
  }
  return { title: fallbackTitle, sections: builder.sections() };
}
