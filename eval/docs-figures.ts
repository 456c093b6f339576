import { withoutCitationMarkers } from './answer-text.ts';
import type { DocsQuestion } from './docs-questions.ts';
import { meetsKey } from './key-terms.ts';

/**
 * Scoring of the documentation evaluation (eval/README.md "Documentation sets"): one
 * question's outcome judged against its gold pages and key, and the figures
 * of a set of outcomes.
 */

/** What the engine did with one question. */
export interface AnswerOutcome {
  /** Answer text with its `[n]` markers (the abstention message when abstained). */
  answer: string;
  abstained: boolean;
  /** Document ids of the answer's citations, in marker order. */
  citedDocIds: string[];
  /** Document ids of the retrieved passages, best first (one entry per passage). */
  retrievedDocIds: string[];
  /** Wall-clock milliseconds the engine took to answer. */
  milliseconds: number;
}

/** An outcome judged. */
export interface JudgedOutcome {
  expect: DocsQuestion['expect'];
  abstained: boolean;
  /** Answered (not abstained) with a citation of a gold page. */
  citedGold: boolean;
  /** Gold page cited and, when the question has a key, the answer text meets it. */
  right: boolean;
  /** A gold page among the first 5 retrieved passages. */
  hitAt5: boolean;
  milliseconds: number;
}

/** Passages among which a gold page counts as found (Hit@5, as the k8s question set's authors measure it). */
export const HIT_DEPTH = 5;

/**
 * @returns the outcome judged against the question's gold pages and key;
 *   an abstention cites nothing, so it is never `citedGold` nor `right`
 */
export function judgeOutcome(question: DocsQuestion, outcome: AnswerOutcome): JudgedOutcome {
  const gold = new Set(question.gold);
  const citedGold = !outcome.abstained && outcome.citedDocIds.some((docId) => gold.has(docId));
  const named = question.key === undefined || meetsKey(withoutCitationMarkers(outcome.answer), question.key);
  return {
    expect: question.expect,
    abstained: outcome.abstained,
    citedGold,
    right: citedGold && named,
    hitAt5: outcome.retrievedDocIds.slice(0, HIT_DEPTH).some((docId) => gold.has(docId)),
    milliseconds: outcome.milliseconds,
  };
}

/**
 * Figures of a set (or half) of questions. Fractions in 0..1 of the
 * answerable questions unless said otherwise; null when there is no question
 * to count. `cited_gold + confidently_wrong + abstained = 1`.
 */
export interface DocsFigures {
  /** Answered citing a gold page. */
  cited_gold: number | null;
  /** Answered citing a gold page, and naming the key (Node.js set; the k8s set has no key, so there right = cited_gold). */
  right: number | null;
  /** Answered (not abstained) without citing any gold page. */
  confidently_wrong: number | null;
  /** Abstained on. */
  abstained: number | null;
  /** Share of the off-topic questions abstained on. */
  off_topic_abstained: number | null;
  /** A gold page among the first 5 retrieved passages (diagnostic, abstentions included). */
  hit_at_5: number | null;
  /** Median milliseconds the engine took per question, answerable and off-topic alike. */
  p50_ms: number | null;
  /** Answerable questions counted. */
  answerable: number;
  /** Off-topic questions counted. */
  off_topic: number;
}

/** @returns the figures of the judged outcomes (see {@link DocsFigures}) */
export function docsFigures(outcomes: readonly JudgedOutcome[]): DocsFigures {
  const answerable = outcomes.filter((outcome) => outcome.expect === 'answer');
  const offTopic = outcomes.filter((outcome) => outcome.expect === 'abstain');
  const share = (of: readonly JudgedOutcome[], counted: (outcome: JudgedOutcome) => boolean): number | null =>
    of.length === 0 ? null : of.filter(counted).length / of.length;
  return {
    cited_gold: share(answerable, (outcome) => outcome.citedGold),
    right: share(answerable, (outcome) => outcome.right),
    confidently_wrong: share(answerable, (outcome) => !outcome.abstained && !outcome.citedGold),
    abstained: share(answerable, (outcome) => outcome.abstained),
    off_topic_abstained: share(offTopic, (outcome) => outcome.abstained),
    hit_at_5: share(answerable, (outcome) => outcome.hitAt5),
    p50_ms: median(outcomes.map((outcome) => outcome.milliseconds)),
    answerable: answerable.length,
    off_topic: offTopic.length,
  };
}

/**
 * @returns the middle value, the mean of the two middle values for an even
 *   count, null for no values
 */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0) + upper) / 2;
}
