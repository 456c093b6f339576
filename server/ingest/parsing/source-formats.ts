import { extname } from 'node:path';
import { parseHtml } from './html-parser.ts';
import { parseMarkdown, type MarkdownParseOptions } from './markdown-parser.ts';
import type { ParsedDocument } from './parsed-document.ts';
import { pdfToHtml } from './pdf-text.ts';
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
  // A PDF is parsed as the HTML its text is extracted into (BINARY_FORMATS).
  '.pdf': parseHtml,
};

/**
 * Binary formats, by file extension: their text is extracted from the bytes
 * (asynchronously) into the text their parser in {@link SOURCE_PARSERS} reads.
 */
export const BINARY_FORMATS: Readonly<Record<string, (bytes: Uint8Array) => Promise<string>>> = {
  '.pdf': pdfToHtml,
};

/** @returns the text extractor of a binary format, or undefined for a text format (UTF-8) */
export function extractorFor(path: string): ((bytes: Uint8Array) => Promise<string>) | undefined {
  return BINARY_FORMATS[extname(path).toLowerCase()];
}

/** The extensions the ingester reads, as an error message lists them: `.md, .markdown, …`. */
export const SUPPORTED_EXTENSIONS = Object.keys(SOURCE_PARSERS).join(', ');

/** @returns the parser for a file path, or undefined for a format the ingester does not read */
export function parserFor(path: string): SourceParser | undefined {
  return SOURCE_PARSERS[extname(path).toLowerCase()];
}
