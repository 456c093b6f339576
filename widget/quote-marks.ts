/**
 * Marks, in a quoted passage, the sentences an answer used (docs/widget.md "What a visitor gets").
 *
 * The extractive answerer quotes a passage's sentences verbatim
 * (server/engine/extractive/extractive-answerer.ts), but not byte for byte: whitespace
 * and line breaks are collapsed, a list item loses its `- `, bracketed
 * numbers are escaped (`\[2]`), a sentence over 400 characters is cut with
 * `…`, and a `[n]` marker is inserted after each run of sentences. So both
 * texts are compared as a reader sees them: parsed as markdown
 * (answer-markdown.ts) and reduced to plain text, markers and code fences
 * out, whitespace collapsed, case folded. Each answer sentence (of at least
 * {@link MIN_MARKED_CHARACTERS}) found inside a paragraph or list item of
 * the passage is marked there; a generated answer that rephrases its
 * sources marks nothing. DOM-free.
 */
import { parseAnswerMarkdown, plainText, type AnswerBlock, type AnswerInline } from './answer-markdown.ts';

/** Shortest answer sentence marked, in characters: shorter pieces ("Yes.", "e.g.") would mark words, not sentences. */
export const MIN_MARKED_CHARACTERS = 12;

/** A sentence boundary in plain text: end punctuation, whitespace, then no lower-case letter. */
const SENTENCE_END = /(?<=[.?!…]["')\]]?)\s+(?![a-z])/;

/**
 * @param answer the answer's text, with `[n]` markers
 * @returns its sentences as plain text, whitespace collapsed, an ellipsis that cut one removed, short ones dropped
 */
export function answerSentences(answer: string): string[] {
  const sentences: string[] = [];
  for (const inlines of inlineRuns(parseAnswerMarkdown(answer))) {
    // A marker ends a run of quoted sentences: the text on either side comes from different places.
    const pieces = [''];
    for (const node of inlines) {
      if (node.type === 'citation') pieces.push('');
      else pieces[pieces.length - 1] += plainText([node]);
    }
    for (const piece of pieces) {
      for (const sentence of piece.split(SENTENCE_END)) {
        const text = sentence.replace(/\s+/g, ' ').replace(/…$/, '').trim();
        if (text.length >= MIN_MARKED_CHARACTERS) sentences.push(text);
      }
    }
  }
  return sentences;
}

/**
 * @param blocks a quoted passage, parsed
 * @param sentences from {@link answerSentences}
 * @returns the blocks with every occurrence of the sentences wrapped in `mark` nodes (split at inline boundaries)
 */
export function markSentences(blocks: readonly AnswerBlock[], sentences: readonly string[]): AnswerBlock[] {
  if (sentences.length === 0) return [...blocks];
  const mark = (children: AnswerInline[]) => markRanges(children, sentenceRanges(plainText(children), sentences), { offset: 0 });
  return blocks.map((block) => {
    if (block.type === 'paragraph') return { ...block, children: mark(block.children) };
    if (block.type === 'list') return { ...block, items: block.items.map((item) => ({ children: mark(item.children) })) };
    return block;
  });
}

function inlineRuns(blocks: readonly AnswerBlock[]): AnswerInline[][] {
  return blocks.flatMap((block) =>
    block.type === 'paragraph' ? [block.children] : block.type === 'list' ? block.items.map((item) => item.children) : [],
  );
}

/**
 * Character ranges `[start, end)` of `text` holding one of the sentences, in
 * any case and with any whitespace between their words, sorted by start
 * (they may overlap).
 */
function sentenceRanges(text: string, sentences: readonly string[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const sentence of sentences) {
    const pattern = new RegExp(sentence.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'), 'giu');
    for (const match of text.matchAll(pattern)) ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges.sort((left, right) => left[0] - right[0]);
}

/**
 * Wraps the parts of text and code nodes that fall inside `ranges` (offsets
 * into {@link plainText} of the nodes, sorted by start) in `mark` nodes;
 * citation markers become their text `[n]`.
 */
function markRanges(nodes: readonly AnswerInline[], ranges: readonly [number, number][], cursor: { offset: number }): AnswerInline[] {
  const result: AnswerInline[] = [];
  for (const node of nodes) {
    if (node.type === 'text' || node.type === 'code' || node.type === 'citation') {
      // A passage's own `[n]` is text here: quotes link no markers.
      const text = node.type === 'citation' ? `[${node.index}]` : node.text;
      const type = node.type === 'code' ? 'code' : 'text';
      const start = cursor.offset;
      const end = start + text.length;
      cursor.offset = end;
      let position = start;
      const piece = (from: number, to: number): AnswerInline => ({ type, text: text.slice(from - start, to - start) });
      for (const [from, to] of ranges) {
        if (to <= position || from >= end) continue;
        if (from > position) result.push(piece(position, from));
        result.push({ type: 'mark', children: [piece(Math.max(from, position), Math.min(to, end))] });
        position = Math.min(to, end);
      }
      if (position < end) result.push(piece(position, end));
    } else {
      result.push({ ...node, children: markRanges(node.children, ranges, cursor) });
    }
  }
  return result;
}
