import { analyzePassage } from '../passages/passage-analysis.ts';
import type { SearchResult } from '../../retrieval/retriever.ts';

/**
 * Correction of misspelled question terms against the passages a first
 * search retrieved (local analysis: the vocabulary of the top-ranked
 * passages stands in for the knowledge base's, as in pseudo-relevance
 * feedback; J. Xu & W. B. Croft, "Query expansion using local and global
 * document analysis", SIGIR 1996).
 *
 * A question term no passage of the reach contains (document frequency 0)
 * is replaced by the analyzed term within one edit of it that the most
 * retrieved passages hold (ties: the one met first, in rank order). One
 * edit is an insertion, a deletion, a substitution or a transposition of
 * adjacent characters; F. J. Damerau ("A technique for computer detection
 * and correction of spelling errors", CACM 1964) found over 80 % of
 * misspellings to be one such edit. Terms are compared after stemming, as
 * the index holds them ("ctenphores" -> `ctenphor` -> `ctenophor`).
 *
 * Only the retrieved passages are read, so a correction can only lead to a
 * term the asker's reach holds, and a knowledge base's other documents
 * never change an answer (docs/design-decisions.md "Access rules").
 */

/**
 * Shortest term corrected, in characters (after stemming): shorter terms
 * have too many neighbours one edit away (`cat` -> `car`, `cap`, `at`) for
 * the guess to be safe. On the calibration half of SQuAD open (eval/README.md
 * "The benchmarks"), 4 cites the question's paragraph as often as 5 and 6 (one
 * question in 2,442 apart) but abstains on fewer absent questions (0.975
 * against 0.979 and 0.981); 5 is the middle.
 */
export const MIN_CORRECTED_LENGTH = 5;

/** Terms with a digit are identifiers or numbers (`v18`, `utf8`, `2019`): never corrected. */
const DIGIT = /\p{N}/u;

/**
 * @param questionTerms the question's analyzed, distinct terms, in question order
 * @param search the first search with those terms (passages best first, document frequencies within the reach)
 * @returns the terms with each correctable unknown term replaced (duplicates
 *   merged, order kept), or undefined when no term was corrected
 */
export function correctMisspelledTerms(questionTerms: readonly string[], search: SearchResult): string[] | undefined {
  const unknown = questionTerms.filter(
    (term) => (search.documentFrequencies[term] ?? 0) === 0 && term.length >= MIN_CORRECTED_LENGTH && !DIGIT.test(term),
  );
  if (unknown.length === 0 || search.passages.length === 0) return undefined;

  // How many retrieved passages hold each term, in order of first appearance.
  const passagesHolding = new Map<string, number>();
  for (const passage of search.passages) {
    const analysis = analyzePassage(passage);
    for (const term of new Set([...analysis.terms, ...analysis.headingTerms])) {
      passagesHolding.set(term, (passagesHolding.get(term) ?? 0) + 1);
    }
  }
  const corrections = new Map<string, string>();
  for (const term of unknown) {
    let best: string | undefined;
    let bestCount = 0;
    for (const [candidate, count] of passagesHolding) {
      if (count > bestCount && isOneEditApart(term, candidate)) {
        best = candidate;
        bestCount = count;
      }
    }
    if (best !== undefined) corrections.set(term, best);
  }
  if (corrections.size === 0) return undefined;
  return [...new Set(questionTerms.map((term) => corrections.get(term) ?? term))];
}

/**
 * Whether two different strings are exactly one edit apart: one insertion,
 * deletion or substitution of a character, or one transposition of two
 * adjacent characters (the optimal-string-alignment distance is 1).
 * Compares UTF-16 code units.
 */
export function isOneEditApart(left: string, right: string): boolean {
  if (left === right || Math.abs(left.length - right.length) > 1) return false;
  let start = 0;
  while (start < left.length && start < right.length && left[start] === right[start]) start += 1;
  if (left.length === right.length) {
    if (left.slice(start + 1) === right.slice(start + 1)) return true; // substitution
    return (
      left[start] === right[start + 1] &&
      left[start + 1] === right[start] &&
      left.slice(start + 2) === right.slice(start + 2) // transposition
    );
  }
  return left.length > right.length
    ? left.slice(start + 1) === right.slice(start) // deletion
    : left.slice(start) === right.slice(start + 1); // insertion
}
