/**
 * Code kept out of the reach of markup rewriting: fenced code blocks and
 * inline code spans are swapped for placeholders before site markup is
 * removed (site-markup.ts) and swapped back afterwards, so a `{{<`, `:::`
 * or `<!--` inside code stays code.
 */

/** Opens a placeholder: a private-use character no source contains by accident. */
const OPEN = '\uE000';
/** Closes a placeholder. */
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/** A text with stretches of it swapped for placeholders, and the way back. */
export class PlaceholderVault {
  readonly #kept: string[] = [];

  /**
   * @param text a stretch to keep verbatim (it may itself contain placeholders)
   * @returns the placeholder to put in its place: one line, no whitespace, no markup characters
   */
  keep(text: string): string {
    this.#kept.push(text);
    return `${OPEN}${this.#kept.length - 1}${CLOSE}`;
  }

  /** Puts every kept stretch back, also those inside other kept stretches. */
  restore(text: string): string {
    let restored = text;
    // Kept stretches contain only placeholders made before them: each pass goes one level down.
    for (let depth = 0; depth <= this.#kept.length && restored.includes(OPEN); depth += 1) {
      restored = restored.replace(PLACEHOLDER, (placeholder, index: string) => this.#kept[Number(index)] ?? placeholder);
    }
    return restored;
  }
}

/** Whether a stretch of text holds a placeholder: some of it was set aside by a {@link PlaceholderVault}. */
export function holdsPlaceholder(text: string): boolean {
  return text.includes(OPEN);
}

/**
 * Swaps every fenced code block for placeholders, one per non-blank line of
 * the block (fences included), each after the line's own indentation, so line-based
 * rewriting (admonition bodies dedented, list indentation) still sees the
 * block's lines where they were.
 *
 * A fence is a line of at least three backticks or tildes after any
 * indentation (inside list items and admonitions too); a backtick fence's
 * info string has no backtick. It closes at a line of the same character,
 * at least as long, with nothing after it but whitespace, or at the end of
 * the text (CommonMark 0.31, "Fenced code blocks"). Indented code blocks are
 * not recognised: four spaces also indent admonition bodies and list items.
 */
export function protectFencedCode(markdown: string, vault: PlaceholderVault): string {
  const lines = markdown.split('\n');
  let fence: { character: string; length: number } | undefined;
  for (const [index, line] of lines.entries()) {
    const opening = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === undefined) {
      if (opening === null || (opening[2]!.startsWith('`') && opening[3]!.includes('`'))) continue;
      fence = { character: opening[2]![0]!, length: opening[2]!.length };
    } else if (opening !== null && opening[2]![0] === fence.character && opening[2]!.length >= fence.length && opening[3]!.trim() === '') {
      fence = undefined;
    }
    // Blank lines stay blank, so the block does not end an indented admonition body.
    if (line.trim() === '') continue;
    const indentation = /^\s*/.exec(line)![0];
    lines[index] = indentation + vault.keep(line.slice(indentation.length));
  }
  return lines.join('\n');
}

/**
 * Swaps every inline code span for one placeholder. A span opens at a run
 * of backticks not preceded by a backslash and closes at the next run of
 * exactly the same length within the same paragraph (no blank line
 * between); a run without such a partner is literal text (CommonMark 0.31,
 * "Code spans").
 */
export function protectInlineCode(markdown: string, vault: PlaceholderVault): string {
  let result = '';
  let position = 0;
  const runs = /`+/g;
  for (let run = runs.exec(markdown); run !== null; run = runs.exec(markdown)) {
    if (isEscaped(markdown, run.index)) continue;
    const closing = findClosingRun(markdown, run.index + run[0].length, run[0].length);
    if (closing === undefined) continue;
    result += markdown.slice(position, run.index) + vault.keep(markdown.slice(run.index, closing));
    position = closing;
    runs.lastIndex = closing;
  }
  return result + markdown.slice(position);
}

const BLANK_LINE = /\n[ \t]*\n/g;

/** @returns the end of the closing run of `length` backticks after `from`, before a blank line; undefined when none */
function findClosingRun(markdown: string, from: number, length: number): number | undefined {
  BLANK_LINE.lastIndex = from;
  const paragraphEnd = BLANK_LINE.exec(markdown);
  const end = paragraphEnd === null ? markdown.length : paragraphEnd.index;
  const runs = /`+/g;
  runs.lastIndex = from;
  for (let run = runs.exec(markdown); run !== null && run.index < end; run = runs.exec(markdown)) {
    if (run[0].length === length) return run.index + length;
  }
  return undefined;
}

function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let at = index - 1; at >= 0 && text[at] === '\\'; at -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}
