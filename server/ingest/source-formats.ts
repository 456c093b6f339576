import { extname } from 'node:path';
import { parseHtml } from './html-parser.ts';
import { parseMarkdown, type MarkdownParseOptions } from './markdown-parser.ts';
import type { ParsedDocument } from './parsed-document.ts';
import { parsePlainText } from './plain-text-parser.ts';

/**
 * A source parser: the text, the title to use when the page gives none, and
 * the site's conventions (markdown uses the anchor style; other formats
 * ignore them).
 */
export type SourceParser = (source: string, fallbackTitle: string, options?: MarkdownParseOptions) => ParsedDocument;

/** Source formats the ingester reads, by file extension (lower case, with the dot). */
export const SOURCE_PARSERS: Readonly<Record<string, SourceParser>> = {
  '.md': parseMarkdown,
  '.markdown': parseMarkdown,
  '.html': parseHtml,
  '.htm': parseHtml,
  '.txt': parsePlainText,
  '.text': parsePlainText,
};

/** @returns the parser for a file path, or undefined for a format the ingester does not read */
export function parserFor(path: string): SourceParser | undefined {
  return SOURCE_PARSERS[extname(path).toLowerCase()];
}
