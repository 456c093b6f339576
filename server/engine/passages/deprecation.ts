import type { ScoredPassage } from '../../store/store.ts';
import { readHeading, sameHeadingPath } from './section-heading.ts';

/**
 * Sections the documentation marks deprecated, and the replacement it names.
 *
 * Reference docs mark a deprecated API at the top of its section: Node.js
 * with a stability index line (`Stability: 0 - Deprecated: Use
 * \`fs.stat()\` or \`fs.access()\` instead.`), other generators with a
 * `Deprecated:` / `**Deprecated.**` / `Warning: deprecated` line. A visitor
 * asking how to do something should be led to what the docs recommend, so
 * the engine does not lead an answer with a deprecated section when the docs
 * name its replacement (engine/ranking/passage-rerank.ts `preferRecommended`), and
 * an answer that still quotes one says it is deprecated, in the docs' words
 * (engine/extractive/answer-composition.ts).
 *
 * Only a mark that opens a line of the section counts: a mark inside an
 * option's description (`recursive` … **Deprecated.**) deprecates the option,
 * not the section.
 */

/** What the docs say of a deprecated section. */
export interface Deprecation {
  /** The marking line as the docs wrote it, without its `Stability: 0 -` prefix: `Deprecated: Use \`fs.stat()\` or \`fs.access()\` instead.`. */
  notice: string;
  /** The replacement the notice names, as written (`` `fs.stat()` or `fs.access()` ``); absent when it names none. */
  replacement?: string;
  /** The first API named in the replacement, without backticks or parentheses (`fs.stat`), to find its section by. */
  replacementSubject?: string;
}

/**
 * A line that marks its section deprecated: the Node.js stability index at 0
 * (https://nodejs.org/api/documentation.html#stability-index), or a line that
 * opens with the word (optionally bold, or after `Warning:`/`Note:`).
 */
const DEPRECATION_LINE = /^\s*(?:>\s*)?(?:Stability:\s*0\s*[-–—]\s*|(?:Warning|Note|Caution):\s*|\*\*)?(Deprecated\b(?:\*\*)?[^\n]*)$/im;
/** The replacement a notice names: "Use X instead", "Check X instead", "Listen for X instead", "Use X." */
const REPLACEMENT = /\b(?:use|check|listen for|prefer|call|migrate to)\s+(.+?)(?:\s+instead\b|\s+\(|[.;]\s|[.;]?$)/i;
/** The first API name in inline code: `fs.stat()` → fs.stat. */
const FIRST_CODE = /`([^`]+)`/;

/**
 * @returns the section's deprecation, when one of the passage's lines marks it; undefined otherwise
 */
export function deprecationOf(passage: Pick<ScoredPassage, 'text'>): Deprecation | undefined {
  const match = DEPRECATION_LINE.exec(passage.text);
  if (!match) return undefined;
  const notice = match[1]!.replace(/\*\*/g, '').trim();
  const replacement = REPLACEMENT.exec(notice)?.[1]?.trim();
  if (!replacement) return { notice };
  const code = FIRST_CODE.exec(replacement)?.[1];
  const subject = code === undefined ? undefined : apiSubject(`\`${code}\``);
  return { notice, replacement, ...(subject !== undefined && subject !== '' && { replacementSubject: subject }) };
}

/**
 * The deprecation of a passage's section: its own mark, or that of a passage
 * of the same section among `others` (a long section's mark lies in its
 * first passage only).
 */
export function sectionDeprecation(passage: ScoredPassage, others: readonly ScoredPassage[]): Deprecation | undefined {
  const own = deprecationOf(passage);
  if (own) return own;
  for (const other of others) {
    if (other.chunkId !== passage.chunkId && other.docId === passage.docId && sameHeadingPath(other.headingPath, passage.headingPath)) {
      const marked = deprecationOf(other);
      if (marked) return marked;
    }
  }
  return undefined;
}

/** Whether a passage's section is the one a replacement names: its heading's subject is the replacement's (`fs.stat(path[, options], callback)` for `fs.stat`). */
export function isReplacementSection(passage: ScoredPassage, deprecation: Deprecation): boolean {
  const heading = passage.headingPath.at(-1);
  if (heading === undefined || deprecation.replacementSubject === undefined) return false;
  return apiSubject(heading) === deprecation.replacementSubject;
}

/** What a heading or a name in code is about, without a trailing `()`: `fs.stat(path, callback)` and `fs.stat()` are both `fs.stat`. */
function apiSubject(heading: string): string {
  return readHeading(heading).subject.replace(/\(\)$/, '');
}
