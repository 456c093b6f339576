/**
 * Citation markers in answer text (docs/specification.md "Citation": answer text
 * marks citations inline as `[n]`, `n` = the citation's `index`).
 *
 * A marker is `[n]` (n a positive decimal integer) outside inline code spans
 * and not escaped with a backslash. Quoted source text keeps its own
 * bracketed numbers, written `\[2]` outside code (a markdown escape, shown as
 * `[2]`) and left as they are inside code (`` `process.argv[2]` ``), so they
 * are never read as markers.
 */

/** An inline code span or fenced block: a backtick run, anything, the same run. */
export const CODE_SPAN = /(`+)[\s\S]*?\1/g;
const MARKER = /(?<!\\)\[(\d+)\]/g;

/**
 * @param answer answer text with markers
 * @returns the marker numbers in order of appearance, duplicates kept
 */
export function findCitationMarkers(answer: string): number[] {
  const outsideCode = answer.replace(CODE_SPAN, (span) => ' '.repeat(span.length));
  return [...outsideCode.matchAll(MARKER)].map((match) => Number(match[1]));
}

/**
 * Escapes bracketed numbers outside inline code so that quoted text adds no
 * markers: `see [2]` becomes `see \[2]`; `` `argv[2]` `` is unchanged.
 *
 * @param text a quoted sentence
 */
export function escapeLiteralMarkers(text: string): string {
  let result = '';
  let last = 0;
  for (const span of text.matchAll(CODE_SPAN)) {
    result += text.slice(last, span.index).replace(MARKER, '\\[$1]') + span[0];
    last = span.index + span[0].length;
  }
  return result + text.slice(last).replace(MARKER, '\\[$1]');
}
