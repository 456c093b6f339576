import { splitBlocks } from '../../text/passage-blocks.ts';

/**
 * The code example an answer to a how-question shows
 * (engine/extractive/answer-composition.ts): the first fenced block of a section that
 * is code to follow (not a tree, not output, no generator markup), shown as
 * a fenced block and cut to the room the answer has left.
 */

/** A code example and the passage it was found in. */
export interface CodeExample<P> {
  passage: P;
  /** The code, without fences. */
  code: string;
}

/**
 * A block that draws a tree or a list (a directory structure: every line
 * starts with `-`, `|`, `+`, `*` or box-drawing characters): it
 * illustrates, but is not an example to follow.
 */
const TREE_LINE = /^\s*(?:[-|+*]+\s|[├└│┌─])/;

/**
 * The prose just before a block that shows what a command printed ("The
 * output is similar to:", "The resulting output will resemble:", "...
 * prints:"): the block is output to compare with, not code to run.
 */
const SHOWS_OUTPUT = /\b(?:output|prints|printed|displays)\b[^.]*:$/i;
/** Markup of a static-site generator inside the code (`{{< skew currentVersion >}}`): the code is not what a reader can run. */
const GENERATOR_MARKUP = /\{\{[<%]|[>%]\}\}/;

/** Fewest non-blank lines a cut example keeps; a shorter cut is not shown. */
export const MIN_EXAMPLE_LINES = 3;
/** Marks the end of a cut example: the language is unknown, so no comment syntax is assumed. */
const CUT_MARK = '…';

/**
 * @param passages a section's passages in document order
 * @returns the first fenced block that is not a tree ({@link TREE_LINE}),
 *   is not shown as output ({@link SHOWS_OUTPUT}) and holds no generator
 *   markup, with its passage
 */
export function findCodeExample<P extends { text: string }>(passages: readonly P[]): CodeExample<P> | undefined {
  for (const passage of passages) {
    let introduction = '';
    for (const block of splitBlocks(passage.text)) {
      if (block.kind !== 'code') {
        introduction = block.text;
        continue;
      }
      if (block.text.trim() !== '' && !isTree(block.text) && !GENERATOR_MARKUP.test(block.text) && !SHOWS_OUTPUT.test(introduction)) {
        return { passage, code: block.text };
      }
    }
  }
  return undefined;
}

/** Whether every non-blank line of the code draws a tree or a list ({@link TREE_LINE}). */
function isTree(code: string): boolean {
  return code.split('\n').every((line) => line.trim() === '' || TREE_LINE.test(line));
}

/**
 * The example as a fenced block of at most `budget` characters, fences
 * included. When the code does not fit, it is cut after a whole line (at
 * the last blank line when that keeps most of it, as blank lines separate
 * statements), and `…` ends it; when fewer than {@link MIN_EXAMPLE_LINES}
 * non-blank lines would remain, there is no example.
 *
 * @param code the code, without fences
 * @param budget characters the fenced block may take
 * @returns the fenced block (```` ```\ncode\n``` ````), or undefined
 */
export function fenceCodeExample(code: string, budget: number): string | undefined {
  const fenced = (body: string): string => `\`\`\`\n${body}\n\`\`\``;
  const trimmed = code.replace(/^\s*\n|\s+$/g, '');
  if (fenced(trimmed).length <= budget) return fenced(trimmed);
  const room = budget - fenced(`\n${CUT_MARK}`).length;
  const lines = trimmed.split('\n');
  let kept = 0;
  let length = 0;
  while (kept < lines.length && length + lines[kept]!.length + (kept > 0 ? 1 : 0) <= room) {
    length += lines[kept]!.length + (kept > 0 ? 1 : 0);
    kept += 1;
  }
  const lastBlank = lines.slice(0, kept).findLastIndex((line) => line.trim() === '');
  if (lastBlank > 0 && lastBlank >= kept * 0.6) kept = lastBlank;
  const body = lines.slice(0, kept);
  if (body.filter((line) => line.trim() !== '').length < MIN_EXAMPLE_LINES) return undefined;
  return fenced(`${body.join('\n').trimEnd()}\n${CUT_MARK}`);
}
