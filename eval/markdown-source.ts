/**
 * Benchmark text as markdown source files, so that it goes through the same
 * ingestion path (markdown parser, chunker, analyzer) as a customer's pages.
 */

/** CommonMark section 2.4: any ASCII punctuation character may be backslash-escaped. */
const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/**
 * Escapes text so that markdown reads it back literally: every ASCII
 * punctuation character gets a backslash (no emphasis, links, headings, list
 * markers, HTML or entities are recognised), and whitespace runs, newlines
 * included, become one space (a single paragraph).
 *
 * @param text plain text
 * @returns inline markdown whose rendered text is `text` with whitespace collapsed
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(ASCII_PUNCTUATION, (character) => `\\${character}`);
}

/**
 * A markdown document: a level-1 title, then one section per entry, each a
 * level-2 heading (omitted when empty) and one paragraph. The parser makes
 * the title the document title and the heading-path root.
 *
 * @param title document title (plain text)
 * @param sections headings and paragraphs (plain text)
 */
export function markdownDocument(title: string, sections: readonly { heading?: string; text: string }[]): string {
  const parts = [`# ${escapeMarkdown(title)}`];
  for (const section of sections) {
    if (section.heading) parts.push(`## ${escapeMarkdown(section.heading)}`);
    parts.push(escapeMarkdown(section.text));
  }
  return `${parts.join('\n\n')}\n`;
}
