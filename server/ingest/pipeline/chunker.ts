/**
 * Cuts a parsed document into passages small enough to rank and quote.
 */
import type { Block, Chunk, ParsedDocument } from '../parsing/parsed-document.ts';
import { trimBlankEdgeLines } from '../parsing/section-builder.ts';

/**
 * Default upper bound of a chunk's text, in UTF-16 code units (`string.length`).
 *
 * 1200 characters is about 200 English words: a passage a person reads at a
 * glance when it is shown as a citation, and a unit BM25 ranks well (long
 * passages dilute term frequency with unrelated text and are penalised by
 * length normalisation; tiny ones lose the context words a query shares with
 * them). Most sections of API reference docs (one method with its parameter
 * list, description and an example) fit in one chunk.
 */
export const DEFAULT_MAX_CHUNK_CHARACTERS = 1200;

/** The smallest `maxCharacters` accepted: room for a code fence and a few characters of code. */
const MIN_MAX_CHARACTERS = 16;

const BLOCK_SEPARATOR = '\n\n';
const CODE_FENCE_OPEN = '```\n';
const CODE_FENCE_CLOSE = '\n```';
const LIST_ITEM_PREFIX = '- ';

/**
 * Cuts every section of a document into chunks.
 *
 * Each section becomes one or more chunks carrying the section's
 * `headingPath` and `anchor`, in document order. Blocks are rendered (code fenced with
 * ```` ``` ```` lines, list items prefixed with `- `, paragraphs and tables
 * as they are) and packed greedily, joined by a blank line, while the
 * chunk's text stays within `maxCharacters`; chunks are cut only between
 * blocks. A block that alone exceeds the limit is split first: prose at
 * sentence ends (`. `, `? `, `! ` before an uppercase letter or a backtick)
 * where possible, else at whitespace; code at line ends (each piece fenced
 * again); tables between rows, repeating the header row when it is short.
 * A chunk exceeds the limit only when it holds a single token (a run without
 * whitespace) longer than the limit. No chunk is empty.
 *
 * @param document the parsed document.
 * @param options.maxCharacters upper bound of a chunk's text length
 *   (`string.length`); default {@link DEFAULT_MAX_CHUNK_CHARACTERS}.
 * @returns chunks of all sections in document order; `[]` for a document without sections.
 * @throws RangeError when `maxCharacters` is not an integer of at least 16.
 */
export function chunkDocument(document: ParsedDocument, options: { maxCharacters?: number } = {}): Chunk[] {
  const maxCharacters = options.maxCharacters ?? DEFAULT_MAX_CHUNK_CHARACTERS;
  if (!Number.isInteger(maxCharacters) || maxCharacters < MIN_MAX_CHARACTERS) {
    throw new RangeError(`maxCharacters must be an integer of at least ${MIN_MAX_CHARACTERS}, got ${maxCharacters}`);
  }
  return document.sections.flatMap((section) =>
    packPieces(
      section.blocks.flatMap((block) => renderBlock(block, maxCharacters)),
      maxCharacters,
      BLOCK_SEPARATOR,
    ).map((text) => ({
      headingPath: [...section.headingPath],
      ...(section.anchor === undefined ? {} : { anchor: section.anchor }),
      text,
    })),
  );
}

/** A block rendered as chunk text, split into pieces that each fit `maxCharacters` where possible. */
function renderBlock(block: Block, maxCharacters: number): string[] {
  switch (block.kind) {
    case 'code': {
      const code = trimBlankEdgeLines(block.text);
      const budget = maxCharacters - CODE_FENCE_OPEN.length - CODE_FENCE_CLOSE.length;
      return packPieces(splitLongLines(code.split('\n'), budget), budget, '\n')
        .map(trimBlankEdgeLines)
        .filter((piece) => piece !== '')
        .map((piece) => CODE_FENCE_OPEN + piece + CODE_FENCE_CLOSE);
    }
    case 'list-item': {
      const budget = maxCharacters - LIST_ITEM_PREFIX.length;
      return splitProse(block.text.trim(), budget).map((piece) => LIST_ITEM_PREFIX + piece);
    }
    case 'table':
      return splitTable(block.text.trim(), maxCharacters);
    case 'paragraph':
      return splitProse(block.text.trim(), maxCharacters);
  }
}

/**
 * Greedily joins pieces with `separator` while the joined text stays within
 * `maxCharacters`. A piece longer than the limit ends up alone.
 */
function packPieces(pieces: string[], maxCharacters: number, separator: string): string[] {
  const packed: string[] = [];
  let current: string | undefined;
  for (const piece of pieces) {
    if (current === undefined) {
      current = piece;
    } else if (current.length + separator.length + piece.length <= maxCharacters) {
      current += separator + piece;
    } else {
      packed.push(current);
      current = piece;
    }
  }
  if (current !== undefined) packed.push(current);
  return packed;
}

/** Prose in pieces within `maxCharacters`: whole sentences where they fit, else cut at whitespace. */
function splitProse(text: string, maxCharacters: number): string[] {
  if (text.length <= maxCharacters) return text === '' ? [] : [text];
  const sentences = text.split(/(?<=[.?!])\s+(?=[\p{Lu}`])/u);
  const pieces = sentences.flatMap((sentence) =>
    sentence.length <= maxCharacters ? [sentence] : splitAtWhitespace(sentence, maxCharacters),
  );
  return packPieces(pieces, maxCharacters, ' ');
}

/** Lines longer than `maxCharacters` cut at whitespace; other lines (blank ones included) unchanged. */
function splitLongLines(lines: string[], maxCharacters: number): string[] {
  return lines.flatMap((line) => (line.length <= maxCharacters ? [line] : splitAtWhitespace(line, maxCharacters)));
}

/**
 * Cuts text at whitespace into pieces of at most `maxCharacters`, each cut
 * at the last whitespace that keeps the piece within the limit. A run
 * without whitespace longer than the limit stays whole, as one longer piece.
 */
function splitAtWhitespace(text: string, maxCharacters: number): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > maxCharacters) {
    const window = rest.slice(0, maxCharacters + 1);
    let cut = window.search(/\s\S*$/);
    if (cut <= 0) {
      // No whitespace within the limit: the first token is longer than the limit.
      const tokenEnd = rest.search(/\s/);
      if (tokenEnd === -1) break;
      cut = tokenEnd;
    }
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/**
 * A table in pieces between rows. Pieces after the first start with the
 * header row again when it takes at most half the limit, so each piece can
 * be read on its own.
 */
function splitTable(text: string, maxCharacters: number): string[] {
  if (text.length <= maxCharacters) return text === '' ? [] : [text];
  const [header = '', ...rows] = text.split('\n');
  if (header.length + 1 > maxCharacters / 2) {
    return packPieces(splitLongLines([header, ...rows], maxCharacters), maxCharacters, '\n');
  }
  const rowBudget = maxCharacters - header.length - 1;
  return packPieces(splitLongLines(rows, rowBudget), rowBudget, '\n').map((piece) => `${header}\n${piece}`);
}
