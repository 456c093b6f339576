import { analyze } from '../retrieval/analyzer.ts';

/**
 * Coverage gaps: the questions a knowledge base abstained on, grouped by
 * similarity, most asked first - what its documentation does not answer
 * (kapa.ai and Mintlify's "coverage gaps"; here the natural companion of
 * abstention).
 *
 * Two questions are alike when the sets of their analyzed terms (the
 * engine's analyzer: stop words dropped, stemmed, so "How do I rotate
 * certificates?" and "rotating a certificate" share `rotat`, `certif`)
 * have a Jaccard similarity of at least {@link GAP_SIMILARITY}, the
 * resemblance measure of near-duplicate detection (A. Z. Broder, "On the
 * resemblance and containment of documents", 1997). Grouping is greedy:
 * questions asked most often first, each joining the most similar group
 * whose first question is alike, else starting one. Deterministic, with no
 * model: the editor sees why questions are together.
 */

/** Least Jaccard similarity of two questions' term sets for them to be one gap (0.5: half their terms shared). */
export const GAP_SIMILARITY = 0.5;
/** Questions shown as examples of a gap. */
export const GAP_EXAMPLES = 5;

/** One gap: the questions alike, how often they were asked, and when last. */
export interface CoverageGap {
  /** The question of the gap asked most often (its first on ties). */
  question: string;
  /** Times its questions were asked in all. */
  count: number;
  /** Its distinct questions, most asked first, at most {@link GAP_EXAMPLES}. */
  questions: string[];
  /** When one of them was last asked, epoch ms. */
  lastAskedAt: number;
}

/**
 * @param abstained the questions abstained on, with when each was asked (any order)
 * @returns the gaps, most asked first (then most recently asked)
 */
export function coverageGaps(abstained: readonly { question: string; createdAt: number }[]): CoverageGap[] {
  // The same question asked again (same terms) counts once per asking, under its most frequent wording.
  const variants = new Map<string, { terms: Set<string>; texts: Map<string, number>; count: number; lastAskedAt: number }>();
  for (const { question, createdAt } of abstained) {
    const terms = new Set(analyze(question));
    const key = terms.size === 0 ? `text:${question.trim().toLowerCase()}` : [...terms].sort().join(' ');
    const variant = variants.get(key) ?? { terms, texts: new Map<string, number>(), count: 0, lastAskedAt: 0 };
    variant.count += 1;
    variant.lastAskedAt = Math.max(variant.lastAskedAt, createdAt);
    variant.texts.set(question.trim(), (variant.texts.get(question.trim()) ?? 0) + 1);
    variants.set(key, variant);
  }
  const ordered = [...variants.values()].sort((left, right) => right.count - left.count || right.lastAskedAt - left.lastAskedAt);
  const groups: { terms: Set<string>; members: typeof ordered }[] = [];
  for (const variant of ordered) {
    let best: (typeof groups)[number] | undefined;
    let bestSimilarity = GAP_SIMILARITY;
    for (const group of groups) {
      const similarity = jaccard(variant.terms, group.terms);
      if (similarity >= bestSimilarity && (best === undefined || similarity > bestSimilarity)) {
        best = group;
        bestSimilarity = similarity;
      }
    }
    if (best === undefined || variant.terms.size === 0) groups.push({ terms: variant.terms, members: [variant] });
    else best.members.push(variant);
  }
  return groups
    .map((group) => {
      const texts = new Map<string, number>();
      for (const member of group.members) for (const [text, times] of member.texts) texts.set(text, (texts.get(text) ?? 0) + times);
      const wordings = [...texts].sort((left, right) => right[1] - left[1]).map(([text]) => text);
      return {
        question: wordings[0]!,
        count: group.members.reduce((sum, member) => sum + member.count, 0),
        questions: wordings.slice(0, GAP_EXAMPLES),
        lastAskedAt: Math.max(...group.members.map((member) => member.lastAskedAt)),
      };
    })
    .sort((left, right) => right.count - left.count || right.lastAskedAt - left.lastAskedAt);
}

function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const term of left) if (right.has(term)) shared += 1;
  return shared / (left.size + right.size - shared);
}
