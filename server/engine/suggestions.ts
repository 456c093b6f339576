import { readHeading } from './section-heading.ts';
import type { ScoredPassage } from '../store/store.ts';

/**
 * Follow-up questions (DESIGN.md "The engine": from curated pairs and the
 * headings of retrieved passages). Suggestions only ever come from material
 * inside the caller's reach: retrieved passages and pairs already filtered.
 */

/** Most follow-up questions offered. */
export const MAX_SUGGESTIONS = 3;

/**
 * Turns a section heading into a question a visitor might ask next
 * (engine/section-heading.ts reads it). API signatures
 * (`` `fs.mkdtemp(prefix[, options])` ``) become "How do I use
 * `fs.mkdtemp()`?"; `Class: X` (and the other labels) becomes "What is X?";
 * `Event: X` becomes "When is the X event emitted?"; other headings
 * "What should I know about X?".
 *
 * @param heading the passage's innermost heading
 */
export function headingToQuestion(heading: string): string {
  const read = readHeading(heading);
  if (read.kind === 'signature') return `How do I use \`${read.subject}()\`?`;
  if (read.kind === 'labelled') {
    const subject = read.text.slice(read.text.indexOf(':') + 1).trim();
    if (read.label!.toLowerCase() === 'event') return `When is the ${subject} event emitted?`;
    return `What is ${subject}?`;
  }
  return `What should I know about ${read.text.replace(/[.?!:]+$/, '')}?`;
}

/**
 * @param question the question asked
 * @param related curated questions similar to it, best first
 * @param passages retrieved passages, best first
 * @param cited the passages the answer cites (their headings are not suggested)
 * @returns at most {@link MAX_SUGGESTIONS} distinct questions, never the question asked
 */
export function suggestFollowUps(
  question: string,
  related: readonly string[],
  passages: readonly ScoredPassage[],
  cited: readonly ScoredPassage[],
): string[] {
  const citedHeadings = new Set(cited.map((passage) => passage.headingPath.at(-1)));
  const seen = new Set([normalize(question)]);
  const suggestions: string[] = [];
  const offer = (candidate: string): void => {
    const key = normalize(candidate);
    if (suggestions.length >= MAX_SUGGESTIONS || seen.has(key)) return;
    seen.add(key);
    suggestions.push(candidate);
  };
  for (const candidate of related) offer(candidate);
  for (const passage of passages) {
    const heading = passage.headingPath.at(-1);
    if (heading === undefined || passage.headingPath.length < 2 || citedHeadings.has(heading)) continue;
    offer(headingToQuestion(heading));
  }
  return suggestions;
}

function normalize(question: string): string {
  return question.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}
