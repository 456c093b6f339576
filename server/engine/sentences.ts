/**
 * Splits a passage (the chunker's light markdown) into the sentences an
 * extractive answer may quote. Code blocks are never quoted: a fenced block
 * is skipped whole. A list item counts as one sentence without its `- `.
 */

/** A quotable sentence and where it sits in its passage. */
export interface Sentence {
  text: string;
  /** 0-based position among the passage's sentences. */
  position: number;
}

/**
 * Sentence boundary: `.`, `?` or `!` (optionally closed by a quote or
 * bracket), then whitespace, then something that can start a sentence. The
 * look-behind keeps common abbreviations ("e.g.", "i.e.", "etc.", "vs.") and
 * dotted names inside backticks from ending a sentence.
 */
const BOUNDARY = /(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx|Dr|Mr|Mrs|Ms|St|No|Fig))([.?!]["')\]]?)\s+(?=["'(\[`*]?[A-Z0-9`])/g;

/** Longest sentence quoted, in characters; longer ones are cut at a word boundary with an ellipsis. */
export const MAX_SENTENCE_CHARACTERS = 400;

/**
 * @param passage chunk text: blocks separated by blank lines, code fenced with ```
 * @returns the prose sentences in order
 */
export function splitSentences(passage: string): Sentence[] {
  const sentences: Sentence[] = [];
  for (const block of proseBlocks(passage)) {
    const text = block.startsWith('- ') ? block.slice(2) : block;
    for (const piece of text.replace(BOUNDARY, '$1\u0000').split('\u0000')) {
      const sentence = clip(piece.replace(/\s+/g, ' ').trim());
      if (sentence.length > 1) sentences.push({ text: sentence, position: sentences.length });
    }
  }
  return sentences;
}

function* proseBlocks(passage: string): Generator<string> {
  let inCode = false;
  let current: string[] = [];
  for (const line of passage.split('\n')) {
    if (line.startsWith('```')) {
      if (!inCode && current.length > 0) yield current.join(' ');
      current = [];
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    if (line.trim() === '') {
      if (current.length > 0) yield current.join(' ');
      current = [];
    } else {
      current.push(line);
    }
  }
  if (!inCode && current.length > 0) yield current.join(' ');
}

function clip(sentence: string): string {
  if (sentence.length <= MAX_SENTENCE_CHARACTERS) return sentence;
  const cut = sentence.lastIndexOf(' ', MAX_SENTENCE_CHARACTERS - 1);
  return `${sentence.slice(0, cut > 0 ? cut : MAX_SENTENCE_CHARACTERS - 1)}…`;
}
