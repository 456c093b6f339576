/**
 * The markdown subset of answers, parsed into a small tree that the widget
 * renders with Lit templates (`answer-markdown-render.ts`). Answer text is
 * model or document text, never HTML: nothing here produces markup, and
 * anything outside the subset stays literal text.
 *
 * The subset follows CommonMark 0.31 (https://spec.commonmark.org/0.31.2/)
 * where it overlaps:
 *
 * - blocks: paragraphs (lines joined, soft line breaks kept as `\n`); bullet
 *   lists (`- `, `* `, `+ `) and ordered lists (`1. `, `1) `), one level:
 *   indented items join the same list; fenced code blocks (``` or ~~~, at
 *   least three, with an optional language; an unclosed fence, as while an
 *   answer streams, holds everything after it).
 * - inlines: code spans (any length of backtick run, 6.1), emphasis and strong
 *   emphasis with `*` and `_` (6.2, the delimiter-run algorithm of the spec's
 *   appendix), inline links `[text](destination "title")` (6.3) kept as links
 *   only when the destination is an absolute `https:` URL, backslash escapes
 *   (2.4).
 * - citation markers (protocol/citation-markers.ts): `[n]`, n a positive
 *   integer without leading zero, outside code spans and not preceded by a
 *   backslash. They bind before links, as on the server.
 *
 * Deliberate differences, each on the safe side: links with any other
 * destination (`http:`, `javascript:`, `data:`, relative) keep only their
 * label text; images `![alt](url)` become their alt text, never an image;
 * raw HTML, autolinks, entities, headings, block quotes, tables and
 * reference links stay literal text; nested items join the enclosing list
 * (or, with another marker, a list of their own after it).
 */

/** Literal text; `\n` is a soft line break. */
export interface AnswerText {
  type: 'text';
  text: string;
}

/** Emphasis (`*x*`, `_x_`), rendered as `<em>`. */
export interface AnswerEmphasis {
  type: 'emphasis';
  children: AnswerInline[];
}

/** Strong emphasis (`**x**`, `__x__`), rendered as `<strong>`. */
export interface AnswerStrong {
  type: 'strong';
  children: AnswerInline[];
}

/** A code span; `text` is its content with line endings as spaces (CommonMark 6.1). */
export interface AnswerCode {
  type: 'code';
  text: string;
}

/**
 * A link whose `href` is an absolute `https:` URL, normalised by the WHATWG
 * URL parser. Its children never hold links or citations (a marker inside a
 * label stays text), so no anchor nests in another.
 */
export interface AnswerLink {
  type: 'link';
  href: string;
  children: AnswerInline[];
}

/** A citation marker `[n]`: `index` is n, the `index` of a citation of the answer. */
export interface AnswerCitation {
  type: 'citation';
  index: number;
}

/**
 * Highlighted text, rendered as `<mark>`. The parser never produces it: the
 * widget adds it to a quoted passage for the sentences an answer used
 * (quote-marks.ts).
 */
export interface AnswerMark {
  type: 'mark';
  children: AnswerInline[];
}

/** Inline content of a paragraph or list item. Adjacent text is merged into one node; no text node is empty. */
export type AnswerInline = AnswerText | AnswerEmphasis | AnswerStrong | AnswerCode | AnswerLink | AnswerCitation | AnswerMark;

/** A paragraph: consecutive non-blank lines. */
export interface AnswerParagraph {
  type: 'paragraph';
  children: AnswerInline[];
}

/** One list item: its text, continuation lines included. */
export interface AnswerListItem {
  children: AnswerInline[];
}

/**
 * A bullet list, or an ordered list with `start` its first number (0..999999999,
 * CommonMark 5.2). A change of bullet character (`-`, `*`, `+`) or of ordered
 * delimiter (`.`, `)`) starts a new list.
 */
export interface AnswerList {
  type: 'list';
  ordered: boolean;
  /** First number of an ordered list; absent on bullet lists. */
  start?: number;
  items: AnswerListItem[];
}

/**
 * A fenced code block. `text` is its lines without the fences (without the
 * fence's indentation, CommonMark 4.5); `language` the first word of the info
 * string, when there is one.
 */
export interface AnswerCodeBlock {
  type: 'code-block';
  text: string;
  language?: string;
}

/** A block of an answer. */
export type AnswerBlock = AnswerParagraph | AnswerList | AnswerCodeBlock;

/**
 * Parses answer text, complete or a prefix of it while it streams, into
 * blocks. Total: never throws, for any string; unclosed constructs read as
 * their literal characters, except an unclosed code fence, which holds the
 * rest of the text as code. Linear in practice; re-parsing the whole text on
 * each streamed token is cheap for answers of a few kilobytes.
 *
 * @param text answer text with `[n]` citation markers
 * @returns the blocks in order; `[]` for blank text
 */
export function parseAnswerMarkdown(text: string): AnswerBlock[] {
  const lines = text.split(/\r\n|\r|\n/);
  // A final line ending ends the last line; it does not start an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const blocks: AnswerBlock[] = [];
  let paragraph: string[] | undefined;
  let list: OpenList | undefined;
  /** Whether a blank line came after the open list's last line: then only a new item continues it. */
  let blankAfterList = false;

  const closeParagraph = () => {
    if (paragraph === undefined) return;
    blocks.push({ type: 'paragraph', children: parseInlines(paragraph.join('\n')) });
    paragraph = undefined;
  };
  const closeList = () => {
    if (list === undefined) return;
    const items = list.items.map((item) => ({ children: parseInlines(item.join('\n')) }));
    blocks.push(list.ordered ? { type: 'list', ordered: true, start: list.start, items } : { type: 'list', ordered: false, items });
    list = undefined;
    blankAfterList = false;
  };

  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex]!;
    const fence = FENCE_OPEN.exec(line);
    if (fence !== null) {
      closeParagraph();
      closeList();
      const indent = fence[1]!.length;
      const marker = fence[2]!;
      const content: string[] = [];
      for (lineIndex++; lineIndex < lines.length; lineIndex++) {
        const codeLine = lines[lineIndex]!;
        if (isClosingFence(codeLine, marker)) break;
        content.push(stripIndent(codeLine, indent));
      }
      const language = fence[3]!.trim().split(/\s+/)[0] ?? '';
      blocks.push(language === '' ? { type: 'code-block', text: content.join('\n') } : { type: 'code-block', text: content.join('\n'), language });
      continue;
    }

    if (line.trim() === '') {
      closeParagraph();
      if (list !== undefined) blankAfterList = true;
      continue;
    }

    const item = readListItem(line);
    const content = line.trim();
    if (list !== undefined) {
      const current = list.items[list.items.length - 1]!;
      if (item !== undefined && item.marker === list.marker) {
        list.items.push([item.content]);
        blankAfterList = false;
        continue;
      }
      const currentHasText = current.some((part) => part !== '');
      if (item !== undefined && (blankAfterList || !currentHasText || canInterruptParagraph(item))) {
        closeList();
        list = openList(item);
        continue;
      }
      if (!blankAfterList) {
        // A lazy continuation line (CommonMark 5.2): part of the current item's text.
        current.push(content);
        continue;
      }
      closeList();
    }
    if (item !== undefined && (paragraph === undefined || canInterruptParagraph(item))) {
      closeParagraph();
      list = openList(item);
      continue;
    }
    (paragraph ??= []).push(content);
  }
  closeParagraph();
  closeList();
  return blocks;
}

/** A list being read: its kind and the raw text lines of each item. */
interface OpenList {
  ordered: boolean;
  /** `-`, `*`, `+` for bullets, `.` or `)` for ordered lists. */
  marker: string;
  start: number;
  items: string[][];
}

/** A list item line: its marker and the text after it. */
interface ListItemLine {
  ordered: boolean;
  marker: string;
  start: number;
  content: string;
}

/** Opening fence: indentation, three or more backticks or tildes, info string (no backtick after backticks, CommonMark 4.5). */
const FENCE_OPEN = /^([ \t]*)(`{3,}(?=[^`]*$)|~{3,})(.*)$/;
/** A list item line of any indentation: bullet or 1..9 digits with `.`/`)`, then whitespace or the end of the line. */
const LIST_ITEM = /^[ \t]*(?:([-*+])|(\d{1,9})([.)]))(?:[ \t]+(.*)|$)/;
/** A thematic break (`***`, `- - -`): never a list item. */
const THEMATIC_BREAK = /^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

function readListItem(line: string): ListItemLine | undefined {
  if (THEMATIC_BREAK.test(line)) return undefined;
  const match = LIST_ITEM.exec(line);
  if (match === null) return undefined;
  const content = (match[4] ?? '').trim();
  if (match[1] !== undefined) return { ordered: false, marker: match[1], start: 1, content };
  return { ordered: true, marker: match[3]!, start: Number(match[2]), content };
}

/** CommonMark 5.3: an item interrupts a paragraph only when it has text, and an ordered one only when it starts at 1. */
function canInterruptParagraph(item: ListItemLine): boolean {
  return item.content !== '' && (!item.ordered || item.start === 1);
}

function openList(item: ListItemLine): OpenList {
  return { ordered: item.ordered, marker: item.marker, start: item.start, items: [[item.content]] };
}

/** A closing fence: the same character, at least as many, nothing else but whitespace. */
function isClosingFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= marker.length && trimmed === marker[0]!.repeat(trimmed.length);
}

/** Removes up to `indent` leading spaces or tabs. */
function stripIndent(line: string, indent: number): string {
  let index = 0;
  while (index < indent && (line[index] === ' ' || line[index] === '\t')) index++;
  return line.slice(index);
}

// ---------------------------------------------------------------------------
// Inlines

/** A run of `*` or `_` that may open or close emphasis (CommonMark 6.2). */
interface Delimiter {
  kind: 'delimiter';
  character: '*' | '_';
  /** Characters of the run not yet used by a match. */
  count: number;
  /** Length of the run as written (for the rule of three). */
  length: number;
  canOpen: boolean;
  canClose: boolean;
}

/** A `[` or `![` that may start a link or an image label. */
interface Bracket {
  kind: 'bracket';
  image: boolean;
  /** False once a link was formed around it (no links inside links). */
  active: boolean;
}

type Item = { kind: 'node'; node: AnswerInline } | Delimiter | Bracket;

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const UNICODE_PUNCTUATION = /[\p{P}\p{S}]/u;
const UNICODE_WHITESPACE = /\s/u;
const CITATION_MARKER = /\[([1-9]\d{0,8})\]/y;

/** The citation marker starting at `position` (protocol/citation-markers.ts: not after a backslash), if any. */
function citationMarkerAt(text: string, position: number): { index: number; end: number } | undefined {
  if (text[position - 1] === '\\') return undefined;
  CITATION_MARKER.lastIndex = position;
  const match = CITATION_MARKER.exec(text);
  return match === null ? undefined : { index: Number(match[1]), end: position + match[0].length };
}

/**
 * Parses the inline content of one paragraph or list item, following the
 * CommonMark 0.31 inline algorithm: scan left to right building text,
 * delimiter runs and brackets; form links at each `]`; then process
 * emphasis (appendix "Processing emphasis").
 */
function parseInlines(source: string): AnswerInline[] {
  const text = source.trim();
  const items: Item[] = [];
  /** Lengths of backtick runs known to have no closing run after the current position. */
  const unclosedRuns = new Set<number>();
  /** Indices in `items` of the brackets still open, innermost last. */
  const brackets: number[] = [];
  const pushText = (value: string) => {
    const last = items[items.length - 1];
    if (last?.kind === 'node' && last.node.type === 'text') last.node.text += value;
    else items.push({ kind: 'node', node: { type: 'text', text: value } });
  };

  let position = 0;
  while (position < text.length) {
    const character = text[position]!;
    if (character === '\\') {
      const next = text[position + 1];
      if (next !== undefined && ASCII_PUNCTUATION.test(next)) {
        pushText(next);
        position += 2;
      } else {
        // A backslash before a line ending is a hard break in CommonMark; here, a plain line break.
        pushText(next === '\n' ? '\n' : '\\');
        position += next === '\n' ? 2 : 1;
      }
    } else if (character === '`') {
      position = readCodeSpan(text, position, unclosedRuns, items, pushText);
    } else if (character === '[' || (character === '!' && text[position + 1] === '[')) {
      const image = character === '!';
      const marker = image ? citationMarkerAt(text, position + 1) : citationMarkerAt(text, position);
      if (marker !== undefined) {
        // `Done![1]` is an exclamation mark and a marker, never an image.
        if (image) pushText('!');
        items.push({ kind: 'node', node: { type: 'citation', index: marker.index } });
        position = marker.end;
      } else {
        brackets.push(items.length);
        items.push({ kind: 'bracket', image, active: true });
        position += image ? 2 : 1;
      }
    } else if (character === ']') {
      position = closeBracket(text, position, items, brackets, pushText);
    } else if (character === '*' || character === '_') {
      let end = position;
      while (text[end] === character) end++;
      items.push(delimiterRun(text, position, end, character));
      position = end;
    } else {
      let end = position + 1;
      while (end < text.length && !/[\\`[\]!*_]/.test(text[end]!)) end++;
      pushText(text.slice(position, end));
      position = end;
    }
  }
  processEmphasis(items);
  return toNodes(items);
}

/** Reads a code span starting at a backtick run (CommonMark 6.1); an unmatched run is literal text. */
function readCodeSpan(
  text: string,
  start: number,
  unclosedRuns: Set<number>,
  items: Item[],
  pushText: (value: string) => void,
): number {
  let openEnd = start;
  while (text[openEnd] === '`') openEnd++;
  const length = openEnd - start;
  if (!unclosedRuns.has(length)) {
    let search = openEnd;
    for (;;) {
      const closeStart = text.indexOf('`', search);
      if (closeStart === -1) break;
      let closeEnd = closeStart;
      while (text[closeEnd] === '`') closeEnd++;
      if (closeEnd - closeStart === length) {
        let content = text.slice(openEnd, closeStart).replace(/\n/g, ' ');
        if (content.length >= 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') {
          content = content.slice(1, -1);
        }
        items.push({ kind: 'node', node: { type: 'code', text: content } });
        return closeEnd;
      }
      search = closeEnd;
    }
    unclosedRuns.add(length);
  }
  pushText(text.slice(start, openEnd));
  return openEnd;
}

/** Classifies a delimiter run by the flanking rules of CommonMark 6.2; the text's ends count as whitespace. */
function delimiterRun(text: string, start: number, end: number, character: '*' | '_'): Delimiter {
  const before = text[start - 1] ?? ' ';
  const after = text[end] ?? ' ';
  const whitespaceBefore = UNICODE_WHITESPACE.test(before);
  const whitespaceAfter = UNICODE_WHITESPACE.test(after);
  const punctuationBefore = UNICODE_PUNCTUATION.test(before);
  const punctuationAfter = UNICODE_PUNCTUATION.test(after);
  const leftFlanking = !whitespaceAfter && (!punctuationAfter || whitespaceBefore || punctuationBefore);
  const rightFlanking = !whitespaceBefore && (!punctuationBefore || whitespaceAfter || punctuationAfter);
  const length = end - start;
  if (character === '*') return { kind: 'delimiter', character, count: length, length, canOpen: leftFlanking, canClose: rightFlanking };
  return {
    kind: 'delimiter',
    character,
    count: length,
    length,
    canOpen: leftFlanking && (!rightFlanking || punctuationBefore),
    canClose: rightFlanking && (!leftFlanking || punctuationAfter),
  };
}

/**
 * Handles `]` at `position` (CommonMark appendix, "look for link or image"):
 * with an active opener and an inline destination after it, the items since
 * the opener become a link (https only), or text (any other destination, or
 * an image's alt text); otherwise both brackets are literal.
 *
 * @returns the position after what was consumed
 */
function closeBracket(
  text: string,
  position: number,
  items: Item[],
  brackets: number[],
  pushText: (value: string) => void,
): number {
  const openerIndex = brackets.pop();
  const opener = openerIndex === undefined ? undefined : items[openerIndex];
  if (openerIndex === undefined || opener?.kind !== 'bracket') {
    pushText(']');
    return position + 1;
  }
  const destination = opener.active ? readLinkDestination(text, position + 1) : undefined;
  if (destination === undefined) {
    items[openerIndex] = textItem(opener.image ? '![' : '[');
    pushText(']');
    return position + 1;
  }

  const label = items.splice(openerIndex);
  label.shift();
  processEmphasis(label);
  const children = toNodes(label);
  const href = opener.image ? undefined : httpsUrl(destination.url);
  if (opener.image) {
    items.push(textItem(plainText(children)));
  } else if (href !== undefined) {
    items.push({ kind: 'node', node: { type: 'link', href, children: withoutCitations(children) } });
  } else {
    items.push(...children.map((node): Item => ({ kind: 'node', node })));
  }
  if (!opener.image) {
    for (const index of brackets) {
      const item = items[index];
      if (item?.kind === 'bracket' && !item.image) item.active = false;
    }
  }
  return destination.end;
}

/**
 * Reads an inline link's `(destination "title")` starting at `start`
 * (CommonMark 6.3): `<...>` or a run without whitespace and with balanced
 * parentheses, backslash escapes resolved; the title is read and dropped.
 */
function readLinkDestination(text: string, start: number): { url: string; end: number } | undefined {
  if (text[start] !== '(') return undefined;
  let position = skipSpace(text, start + 1);
  let url = '';
  if (text[position] === '<') {
    position++;
    for (;;) {
      const character = text[position];
      if (character === undefined || character === '\n' || character === '<') return undefined;
      if (character === '>') break;
      if (character === '\\' && ASCII_PUNCTUATION.test(text[position + 1] ?? '')) position++;
      url += text[position];
      position++;
    }
    position++;
  } else {
    let depth = 0;
    for (;;) {
      const character = text[position];
      if (character === undefined || /[\s\p{Cc}]/u.test(character)) break;
      if (character === '(') depth++;
      if (character === ')') {
        if (depth === 0) break;
        depth--;
      }
      if (character === '\\' && ASCII_PUNCTUATION.test(text[position + 1] ?? '')) position++;
      url += text[position];
      position++;
    }
    if (depth !== 0) return undefined;
  }
  const afterUrl = position;
  position = skipSpace(text, position);
  const titleOpen = text[position];
  const titleClose = titleOpen === '(' ? ')' : titleOpen === '"' || titleOpen === "'" ? titleOpen : undefined;
  if (titleClose !== undefined && position > afterUrl) {
    position++;
    while (position < text.length && text[position] !== titleClose) {
      if (text[position] === '\\') position++;
      position++;
    }
    if (position >= text.length) return undefined;
    position = skipSpace(text, position + 1);
  }
  return text[position] === ')' ? { url, end: position + 1 } : undefined;
}

function skipSpace(text: string, position: number): number {
  while (text[position] === ' ' || text[position] === '\t' || text[position] === '\n') position++;
  return position;
}

/** The normalised URL when `destination` is an absolute `https:` URL, else undefined. */
function httpsUrl(destination: string): string | undefined {
  if (!/^https:/i.test(destination)) return undefined;
  try {
    const url = new URL(destination);
    return url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CommonMark appendix "Processing emphasis", over `items` in place: each
 * closer, left to right, is matched with the nearest opener of the same
 * character allowed by the rule of three; the items between them become an
 * emphasis (one character used) or strong (two) node. `openersBottom` is the
 * spec's optimisation that keeps this linear on unmatched delimiters.
 */
function processEmphasis(items: Item[]): void {
  const openersBottom = new Map<string, Item>();
  let index = 0;
  while (index < items.length) {
    const closer = items[index]!;
    if (closer.kind !== 'delimiter' || !closer.canClose || closer.count === 0) {
      index++;
      continue;
    }
    const key = `${closer.character}${closer.canOpen}${closer.length % 3}`;
    const bottom = openersBottom.get(key);
    let openerIndex = -1;
    for (let back = index - 1; back >= 0; back--) {
      const candidate = items[back]!;
      if (candidate === bottom) break;
      if (candidate.kind !== 'delimiter' || candidate.character !== closer.character || !candidate.canOpen || candidate.count === 0) continue;
      const ruleOfThree =
        (candidate.canClose || closer.canOpen) &&
        (candidate.length + closer.length) % 3 === 0 &&
        !(candidate.length % 3 === 0 && closer.length % 3 === 0);
      if (!ruleOfThree) {
        openerIndex = back;
        break;
      }
    }
    if (openerIndex === -1) {
      const below = items[index - 1];
      if (below !== undefined) openersBottom.set(key, below);
      if (!closer.canOpen) closer.canClose = false;
      index++;
      continue;
    }
    const opener = items[openerIndex] as Delimiter;
    const used = opener.count >= 2 && closer.count >= 2 ? 2 : 1;
    const inner = toNodes(items.splice(openerIndex + 1, index - openerIndex - 1));
    items.splice(openerIndex + 1, 0, { kind: 'node', node: { type: used === 2 ? 'strong' : 'emphasis', children: inner } });
    opener.count -= used;
    closer.count -= used;
    index = openerIndex + 2;
    if (opener.count === 0) {
      items.splice(openerIndex, 1);
      index--;
    }
    if (closer.count === 0) items.splice(index, 1);
  }
}

function textItem(text: string): Item {
  return { kind: 'node', node: { type: 'text', text } };
}

/** Items as nodes: unmatched delimiters and brackets become their literal text; adjacent text merges; empty text goes. */
function toNodes(items: readonly Item[]): AnswerInline[] {
  const nodes: AnswerInline[] = [];
  for (const item of items) {
    let node: AnswerInline;
    if (item.kind === 'node') node = item.node;
    else if (item.kind === 'delimiter') node = { type: 'text', text: item.character.repeat(item.count) };
    else node = { type: 'text', text: item.image ? '![' : '[' };
    const last = nodes[nodes.length - 1];
    if (node.type === 'text') {
      if (node.text === '') continue;
      if (last?.type === 'text') {
        nodes[nodes.length - 1] = { type: 'text', text: last.text + node.text };
        continue;
      }
    }
    nodes.push(node);
  }
  return nodes;
}

/** Citation markers inside a link label, as their text: an anchor never nests in another. */
function withoutCitations(nodes: AnswerInline[]): AnswerInline[] {
  return toNodes(
    nodes.map((node): Item => {
      if (node.type === 'citation') return textItem(`[${node.index}]`);
      if (node.type === 'emphasis' || node.type === 'strong') return { kind: 'node', node: { ...node, children: withoutCitations(node.children) } };
      return { kind: 'node', node };
    }),
  );
}

/**
 * The text a reader sees in inline nodes, markup removed (also an image's alt
 * text, CommonMark 6.4): code spans as their content, citation markers as `[n]`.
 */
export function plainText(nodes: readonly AnswerInline[]): string {
  return nodes
    .map((node) => {
      switch (node.type) {
        case 'text':
        case 'code':
          return node.text;
        case 'citation':
          return `[${node.index}]`;
        default:
          return plainText(node.children);
      }
    })
    .join('');
}
