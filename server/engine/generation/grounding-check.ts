import { CODE_SPAN } from '../../../protocol/citation-markers.ts';
import { analyze } from '../../retrieval/analyzer.ts';
import { NO_ANSWER } from './answer-prompt.ts';
import type { ScoredPassage } from '../../store/store.ts';

/**
 * The grounding check of a generated answer (docs/design-decisions.md "The engine": the chat
 * model's output must pass a grounding check before it stands). An answer
 * is accepted only when all of these hold:
 *
 * 1. It is not the model's refusal: it does not contain {@link NO_ANSWER}
 *    (and is not empty).
 * 2. It cites: it has at least one `[n]` marker (`[1]`, `[2][3]`, or the
 *    grouped `[2, 3]`), read as protocol/citation-markers.ts reads markers:
 *    outside code spans and not escaped as `\[n]`.
 * 3. Every marker refers to a passage that was given (`1 <= n <= passages`).
 * 4. Every sentence is supported by the passages it cites. A sentence ends at
 *    `.`, `?` or `!` (markers written right after the punctuation still belong
 *    to it) or at a line break; list bullets and numbers are ignored. A
 *    sentence's content terms are its distinct analyzed terms (engine/
 *    analyzer.ts: stop words dropped, Porter stems), code included, markers
 *    excluded. The sentence is supported when
 *    - at least {@link MIN_SUPPORTED_SHARE} of its content terms occur in the
 *      text or heading path of the passages its markers cite, and
 *    - every number in it (a term made only of digits) occurs there.
 *    A sentence without a marker is held to the same rule against all the
 *    passages the answer cites, so a claim cannot escape the check by leaving
 *    out its marker, while a marker covering two sentences (a common way of
 *    writing) still passes. A sentence without content terms passes.
 *
 * Rationale: a model that answers from a passage reuses its vocabulary, and
 * stemming absorbs inflection, so requiring half of the content terms leaves
 * room for paraphrase and connecting words while rejecting sentences whose
 * substance (names, actions, objects) comes from elsewhere. Numbers get the
 * strict rule because a changed number keeps every other term intact and is
 * the error that hurts most (versions, limits, dates). This is a lexical
 * check: it catches invented material and wrong citations, not a reworded
 * contradiction; it errs towards abstaining.
 *
 * An accepted answer's citations are the cited passages renumbered in order
 * of first appearance, and its markers rewritten to match (a group becomes
 * `[1][2]`), so every marker has a citation and every citation is referenced
 * (docs/specification.md "Citation").
 */

/** Share of a sentence's content terms that must occur in the passages it cites. */
export const MIN_SUPPORTED_SHARE = 0.5;

/** Why an answer was rejected. */
export type GroundingRejection = 'no_answer' | 'no_citation' | 'unknown_passage' | 'unsupported_sentence';

export type GroundingVerdict =
  | {
      accepted: true;
      /** The answer, trimmed, with its markers renumbered. */
      text: string;
      /** The cited passages; passage `i` (0-based) is marker `[i + 1]` of `text`. */
      cited: ScoredPassage[];
    }
  | { accepted: false; reason: GroundingRejection; detail: string };

/**
 * A `[n]` marker, or the grouped `[n, m]` some models write, outside code and
 * not escaped as `\[n]` (the marker syntax of protocol/citation-markers.ts).
 */
const MARKER_SOURCE = String.raw`(?<!\\)\[ *\d+ *(?:, *\d+ *)*\]`;
const MARKER = new RegExp(MARKER_SOURCE, 'g');
/** End of a sentence: terminal punctuation, closing quotes or brackets, the markers written after it; or a line break. */
const SENTENCE_END = new RegExp(String.raw`[.?!]+["')]*(?:[ \t]*${MARKER_SOURCE})*(?=\s|$)|\n`, 'g');
const LIST_PREFIX = /^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+/gm;
const NUMBER = /^\d+$/;

interface Marker extends Span {
  /** Passage numbers, 1-based, as written. */
  numbers: number[];
}

/**
 * @param answer the model's complete reply
 * @param passages the passages of the prompt; passage `i` (0-based) is number `i + 1`
 */
export function checkGrounding(answer: string, passages: readonly ScoredPassage[]): GroundingVerdict {
  const text = answer.trim();
  if (text === '' || new RegExp(`\\b${NO_ANSWER}\\b`).test(text)) {
    return { accepted: false, reason: 'no_answer', detail: 'The model found no answer in the passages' };
  }

  // Same length as `text`: list prefixes blanked (for terms and structure), then code blanked (for structure only).
  const prose = blank(text, matchesOf(text, LIST_PREFIX), ' ');
  const structure = blank(prose, matchesOf(prose, CODE_SPAN), '\u0000');
  const markers: Marker[] = matchesOf(structure, MARKER).map((span) => ({
    ...span,
    numbers: structure.slice(span.start + 1, span.end - 1).split(',').map(Number),
  }));
  if (markers.length === 0) {
    return { accepted: false, reason: 'no_citation', detail: 'The answer cites no passage' };
  }
  const unknown = markers.flatMap((marker) => marker.numbers).find((number) => number < 1 || number > passages.length);
  if (unknown !== undefined) {
    return {
      accepted: false,
      reason: 'unknown_passage',
      detail: `The answer cites [${unknown}] but only ${passages.length} passages were given`,
    };
  }

  const order: number[] = [];
  for (const marker of markers) for (const number of marker.numbers) if (!order.includes(number)) order.push(number);
  const termsOfPassage = new Map<number, Set<string>>();
  const supportOf = (numbers: readonly number[]): Set<string> => {
    const support = new Set<string>();
    for (const number of numbers) {
      let terms = termsOfPassage.get(number);
      if (!terms) {
        const passage = passages[number - 1]!;
        terms = new Set(analyze(`${passage.headingPath.join(' ')}\n${passage.text}`));
        termsOfPassage.set(number, terms);
      }
      for (const term of terms) support.add(term);
    }
    return support;
  };

  const terms = blank(prose, markers, ' ');
  for (const [start, end] of sentenceSpans(structure)) {
    const sentenceTerms = new Set(analyze(terms.slice(start, end)));
    if (sentenceTerms.size === 0) continue;
    const own = markers.filter((marker) => marker.start >= start && marker.start < end).flatMap((marker) => marker.numbers);
    const support = supportOf(own.length > 0 ? own : order);
    const missing = [...sentenceTerms].filter((term) => !support.has(term));
    const supportedShare = (sentenceTerms.size - missing.length) / sentenceTerms.size;
    const missingNumber = missing.find((term) => NUMBER.test(term));
    if (supportedShare < MIN_SUPPORTED_SHARE || missingNumber !== undefined) {
      const sentence = text.slice(start, end).trim();
      return {
        accepted: false,
        reason: 'unsupported_sentence',
        detail: `"${sentence}" is not supported by ${own.length > 0 ? 'the passages it cites' : 'the cited passages'} (missing: ${missing.join(', ')})`,
      };
    }
  }

  let renumbered = '';
  let position = 0;
  for (const marker of markers) {
    const indexes = [...new Set(marker.numbers)].map((number) => order.indexOf(number) + 1);
    renumbered += text.slice(position, marker.start) + indexes.map((index) => `[${index}]`).join('');
    position = marker.end;
  }
  renumbered += text.slice(position);
  return { accepted: true, text: renumbered, cited: order.map((number) => passages[number - 1]!) };
}

/** [start, end) of each sentence of the structure text (see the module doc). */
function sentenceSpans(structure: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let start = 0;
  for (const match of structure.matchAll(SENTENCE_END)) {
    const end = match.index + match[0].length;
    if (end > start) spans.push([start, end]);
    start = end;
  }
  if (start < structure.length) spans.push([start, structure.length]);
  return spans;
}

interface Span {
  start: number;
  end: number;
}

function matchesOf(text: string, pattern: RegExp): Span[] {
  return [...text.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
}

/** Replaces the characters of each span by `filler`, keeping line breaks, so positions stay the same. */
function blank(text: string, spans: readonly Span[], filler: string): string {
  let result = '';
  let position = 0;
  for (const range of spans) {
    result += text.slice(position, range.start) + text.slice(range.start, range.end).replace(/[^\n]/g, filler);
    position = range.end;
  }
  return result + text.slice(position);
}
