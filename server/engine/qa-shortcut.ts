import { analyze } from '../retrieval/analyzer.ts';
import type { FaqPair } from '../store/store.ts';

/**
 * Matching a question against a knowledge base's curated question/answer
 * pairs (`qa_shortcut`, docs/design-decisions.md "The engine").
 *
 * Similarity is the Dice coefficient of the two questions' analyzed term sets
 * (L. R. Dice, "Measures of the Amount of Ecologic Association Between
 * Species", 1945): 2|A∩B| / (|A| + |B|), 1 for the same content words.
 */

/** Dice similarity from which a curated pair answers directly. */
export const SHORTCUT_SIMILARITY = 0.8;
/** Dice similarity from which a curated question is offered as a follow-up suggestion. */
export const RELATED_SIMILARITY = 0.3;

/** A curated pair with its similarity to the question. */
export interface FaqMatch<Pair extends FaqPair = FaqPair> {
  pair: Pair;
  similarity: number;
}

/**
 * Scores every pair against the question, best first (ties keep file order).
 *
 * @param questionTerms the question's analyzed terms
 */
export function rankFaqPairs<Pair extends FaqPair>(questionTerms: readonly string[], pairs: readonly Pair[]): FaqMatch<Pair>[] {
  const question = new Set(questionTerms);
  return pairs
    .map((pair) => ({ pair, similarity: dice(question, new Set(analyze(pair.question))) }))
    .sort((left, right) => right.similarity - left.similarity);
}

function dice(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const term of left) if (right.has(term)) shared += 1;
  return (2 * shared) / (left.size + right.size);
}
