import { extname } from 'node:path';
import { parseHtml } from './html-parser.ts';
import { parseMarkdown } from './markdown-parser.ts';
import type { ParsedDocument } from './parsed-document.ts';
import { parsePlainText } from './plain-text-parser.ts';

/** Source formats the ingester reads, by file extension (lower case, with the dot). */
export const SOURCE_PARSERS: Readonly<Record<string, (source: string, fallbackTitle: string) => ParsedDocument>> = {
  '.md': parseMarkdown,
  '.markdown': parseMarkdown,
  '.html': parseHtml,
  '.htm': parseHtml,
  '.txt': parsePlainText,
  '.text': parsePlainText,
};

/** @returns the parser for a file path, or undefined for a format the ingester does not read */
export function parserFor(path: string): ((source: string, fallbackTitle: string) => ParsedDocument) | undefined {
  return SOURCE_PARSERS[extname(path).toLowerCase()];
}
