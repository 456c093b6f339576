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
  /**
   * Where the second stage ranked the first passage that answers the
   * question ({@link answersQuestion}) among the passages it re-ranks
   * (`RERANK_DEPTH`, retrieval/retrieval-plan.ts): 1-based, null when none of
   * them does; absent when not measured.
   */
  answeringRank?: number | null;
}

/**
 * Where an answerable question went (eval/README.md "Where the documentation
 * questions are lost"), so that a change shows which stage it moved:
 * - `right`: answered right;
 * - `other_section`: answered citing a gold page without naming the key
 *   (the answer quoted another section of the right page; Node.js set);
 * - `confidently_wrong`: answered without citing a gold page;
 * - `abstained_first`: abstained although the first passage answers (the
 *   evidence model's loss);
 * - `abstained_lower`: abstained; a passage that answers was re-ranked
 *   2nd to 20th (the ranking's loss);
 * - `abstained_missed`: abstained; none of the 20 re-ranked passages
 *   answers (retrieval's loss).
 */
export type QuestionFate = 'right' | 'other_section' | 'confidently_wrong' | 'abstained_first' | 'abstained_lower' | 'abstained_missed';

/** The fates in the order a report shows them. */
export const QUESTION_FATES: readonly QuestionFate[] = ['right', 'other_section', 'confidently_wrong', 'abstained_first', 'abstained_lower', 'abstained_missed'];

/**
 * Whether a passage answers the question: it lies on a gold page and, when
 * the question has a key, its heading path and text meet the key (the
 * passage names what a right answer names).
 */
export function answersQuestion(question: DocsQuestion, passage: { docId: string; headingPath: readonly string[]; text: string }): boolean {
  if (!question.gold.includes(passage.docId)) return false;
  return question.key === undefined || meetsKey([...passage.headingPath, passage.text].join('\n'), question.key);
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
  /** Where an answerable question went; absent for an off-topic one, or when the answering passage's rank was not measured. */
  fate?: QuestionFate;
  /**
   * Answered citing a gold page or a page a reader judged to answer
   * ({@link DocsQuestion.judged}); absent when the question has no such judgment.
   */
  citedAnswering?: boolean;
  /** Answered citing neither, and some cited page was never judged; absent as `citedAnswering`. */
  citedUnjudged?: boolean;
  /** A gold page or a page judged to answer among the first 5 retrieved passages; absent as `citedAnswering`. */
  answeringAt5?: boolean;
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
  const right = citedGold && named;
  const fate = question.expect === 'answer' && outcome.answeringRank !== undefined ? questionFate(outcome.abstained, citedGold, right, outcome.answeringRank) : undefined;
  const judged = question.judged;
  const citedAnswering = judged && (citedGold || (!outcome.abstained && outcome.citedDocIds.some((docId) => judged[docId] === 'answers')));
  return {
    expect: question.expect,
    abstained: outcome.abstained,
    citedGold,
    right,
    hitAt5: outcome.retrievedDocIds.slice(0, HIT_DEPTH).some((docId) => gold.has(docId)),
    milliseconds: outcome.milliseconds,
    ...(fate && { fate }),
    ...(judged && {
      citedAnswering,
      citedUnjudged: !outcome.abstained && !citedAnswering && outcome.citedDocIds.some((docId) => !gold.has(docId) && judged[docId] === undefined),
      answeringAt5: outcome.retrievedDocIds.slice(0, HIT_DEPTH).some((docId) => gold.has(docId) || judged[docId] === 'answers'),
    }),
  };
}

function questionFate(abstained: boolean, citedGold: boolean, right: boolean, answeringRank: number | null): QuestionFate {
  if (!abstained) return right ? 'right' : citedGold ? 'other_section' : 'confidently_wrong';
  if (answeringRank === null) return 'abstained_missed';
  return answeringRank === 1 ? 'abstained_first' : 'abstained_lower';
}

/**
 * Shares (0..1) of the answerable questions by fate ({@link QuestionFate});
 * null when no answerable question has a fate measured.
 */
export function fateShares(outcomes: readonly JudgedOutcome[]): Record<QuestionFate, number> | null {
  const measured = outcomes.filter((outcome) => outcome.expect === 'answer' && outcome.fate !== undefined);
  if (measured.length === 0) return null;
  return Object.fromEntries(QUESTION_FATES.map((fate) => [fate, measured.filter((outcome) => outcome.fate === fate).length / measured.length])) as Record<QuestionFate, number>;
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
  /**
   * Answered citing a gold page or a page a reader judged to answer (the
   * Kubernetes set's second judgment, eval/README.md "Pages judged to
   * answer"); null when no question was judged.
   */
  cited_answering: number | null;
  /** Answered citing neither a gold page nor a page judged to answer (pages never judged count here); null as `cited_answering`. */
  wrong_judged: number | null;
  /** Of `wrong_judged`, answers citing a page never judged (the judgment is out of date for them); null as `cited_answering`. */
  cited_unjudged: number | null;
  /** A gold page or a page judged to answer among the first 5 retrieved passages (`hit_at_5` by the second judgment); null as `cited_answering`. */
  answering_at_5: number | null;
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
    ...judgedFigures(answerable.filter((outcome) => outcome.citedAnswering !== undefined)),
    p50_ms: median(outcomes.map((outcome) => outcome.milliseconds)),
    answerable: answerable.length,
    off_topic: offTopic.length,
  };
}

function judgedFigures(judged: readonly JudgedOutcome[]): Pick<DocsFigures, 'cited_answering' | 'wrong_judged' | 'cited_unjudged' | 'answering_at_5'> {
  if (judged.length === 0) return { cited_answering: null, wrong_judged: null, cited_unjudged: null, answering_at_5: null };
  const share = (counted: (outcome: JudgedOutcome) => boolean) => judged.filter(counted).length / judged.length;
  return {
    cited_answering: share((outcome) => outcome.citedAnswering === true),
    wrong_judged: share((outcome) => !outcome.abstained && outcome.citedAnswering === false),
    cited_unjudged: share((outcome) => outcome.citedUnjudged === true),
    answering_at_5: share((outcome) => outcome.answeringAt5 === true),
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
