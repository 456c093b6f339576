/**
 * The part every source parser shares: turning a stream of headings and
 * blocks, in document order, into the sections of a {@link ParsedDocument}.
 */
import type { Block, Section } from './parsed-document.ts';

/**
 * Collects blocks under the heading path in force when they arrive.
 *
 * The path starts as `[title]`. A heading of level n (1-6) replaces the
 * entries at depth n and deeper, so after `# A`, `## B`, `#### C`, `### D`
 * the path is `[A, B, D]`: skipped levels leave no gap and a new heading
 * drops the deeper ones. A level-1 heading therefore replaces the root.
 * A new section starts at each heading, but only a section that receives
 * a block is kept.
 */
export class SectionBuilder {
  /** Heading text by level, index 0 for level 1; `undefined` where a level is unset. */
  readonly #headingsByLevel: (string | undefined)[];
  /** The anchor of the last heading opened; undefined before the first one. */
  #anchor: string | undefined;
  readonly #sections: Section[] = [];
  /** The section that receives the next block, or `undefined` right after a heading. */
  #currentSection: Section | undefined;

  /** @param title the path root until a level-1 heading replaces it. */
  constructor(title: string) {
    this.#headingsByLevel = [title];
  }

  /**
   * Moves to a new heading.
   *
   * @param level heading level, 1 for the title level; values above 6 are
   *   treated as 6 and values below 1 as 1.
   * @param text plain heading text; an empty text still clears the deeper
   *   levels but adds no entry to the path (an empty level-1 heading keeps
   *   the current root).
   * @param anchor the heading's id on the built page, carried by the section it starts
   */
  openHeading(level: number, text: string, anchor?: string): void {
    this.#anchor = anchor;
    const depth = Math.min(Math.max(Math.trunc(level), 1), 6);
    const root = this.#headingsByLevel[0];
    this.#headingsByLevel.length = depth - 1;
    this.#headingsByLevel[depth - 1] = text !== '' ? text : depth === 1 ? root : undefined;
    this.#currentSection = undefined;
  }

  /**
   * Appends a block to the current section, opening the section if needed.
   * Blocks whose text is empty or only whitespace are ignored.
   */
  addBlock(block: Block): void {
    if (block.text.trim() === '') return;
    if (this.#currentSection === undefined) {
      this.#currentSection = { headingPath: this.#headingPath(), blocks: [] };
      if (this.#anchor !== undefined) this.#currentSection.anchor = this.#anchor;
      this.#sections.push(this.#currentSection);
    }
    this.#currentSection.blocks.push(block);
  }

  /** The sections collected so far, in document order, each with at least one block. */
  sections(): Section[] {
    return this.#sections;
  }

  #headingPath(): string[] {
    const path = this.#headingsByLevel.filter((heading) => heading !== undefined);
    // Only an empty title can empty the path; keep it non-empty as Section requires.
    return path.length > 0 ? path : [''];
  }
}

/**
 * Collapses every run of whitespace (including newlines and no-break spaces)
 * to one space and trims the ends: the form of all prose text in a block.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Drops blank lines at the start and end of a code block and trailing
 * whitespace at its end, keeping every other character (indentation
 * included) as written.
 */
export function trimBlankEdgeLines(code: string): string {
  return code.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
}

/**
 * Writes inline code as markdown does: wrapped in a backtick run one longer
 * than the longest run inside it, padded with spaces when the code starts or
 * ends with a backtick, so `` a`b `` stays readable and unambiguous.
 *
 * @param code the literal code text; returned as `` `code` `` in the common case.
 */
export function formatInlineCode(code: string): string {
  const longestRun = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const padding = code.startsWith('`') || code.endsWith('`') ? ' ' : '';
  return `${fence}${padding}${code}${padding}${fence}`;
}
