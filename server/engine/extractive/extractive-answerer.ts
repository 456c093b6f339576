import { ownerHeadingPath, writeAnswerText, type QuotedSentence } from './answer-composition.ts';
import { isReplacementSection, sectionDeprecation } from '../passages/deprecation.ts';
import { evidenceScore, type EvidenceFeatures, type EvidenceModel } from '../ranking/evidence.ts';
import { denseFeatures, documentMargin } from './evidence-features.ts';
import { questionTermWeights, sentenceWeight, termsWeight, type RerankedSearch } from '../ranking/passage-rerank.ts';
import { analyzePassage, identifierTerms, type PassageAnalysis } from '../passages/passage-analysis.ts';
import { QuestionPairs } from '../ranking/phrase-pairs.ts';
import { asksHow } from './question-intent.ts';
import { namesApi, readHeading, sameHeadingPath } from '../passages/section-heading.ts';
import { DANGLING_PRONOUN, type Sentence } from '../../text/sentences.ts';
import { BM25_K1 } from '../../retrieval/bm25f.ts';
import type { ScoredPassage } from '../../store/store.ts';

/**
 * The `extractive` answerer (docs/design-decisions.md "The engine"): offline and
 * deterministic. It picks the best-supported sentences of the retrieved
 * passages and composes a short answer with `[n]` citation markers
 * (engine/extractive/answer-composition.ts: a documented API or task is led by its
 * section's heading and the sentence saying what it does, a how-question
 * gets the section's first code example).
 *
 * A sentence's support is the IDF-weighted share of the question's terms it
 * contains, with terms found only in its passage's heading path counted at
 * half weight (engine/ranking/passage-rerank.ts `sentenceWeight`), plus a prior for
 * its passage's relevance (the second ranking stage, engine/ranking/passage-rerank.ts),
 * its similarity in meaning to the question when dense retrieval took part
 * ({@link SENTENCE_MEANING_WEIGHT}),
 * a bonus for the question's term pairs it holds side by side
 * ({@link phraseCoverage}) and one for the question's terms in the subject of
 * its section heading ({@link SUBJECT_WEIGHT}: `fs.rename` of
 * `` `fs.rename(oldPath, newPath, callback)` ``), less penalties for
 * sentences that read badly alone. A passage whose answer will be led by its
 * section heading ({@link leadsWithHeading}) counts the heading's subject
 * terms as the sentence's own, since the answer shows them.
 *
 * The best sentence is taken (its passage is the answer's anchor), then up
 * to {@link MAX_SENTENCES} - 1 more while each adds question terms not yet
 * shown, is nearly as well supported, and comes from the same passage or a
 * passage ranked nearly as high. In technical documentation (passages that
 * write code), a further passage must be about the same subject: the same
 * page, and, when the answer is led by an API's heading, another API's
 * section. Prose articles (SQuAD, Wikipedia) keep the earlier rule, any
 * page, so that their figures do not move.
 */

/** Most sentences chosen by support (a description sentence may be added: engine/extractive/answer-composition.ts). */
export const MAX_SENTENCES = 3;
/** Passages (most relevant first) whose sentences are considered. */
export const CANDIDATE_PASSAGES = 5;
/**
 * Weight of the passage's relevance (engine/ranking/passage-rerank.ts, a share of
 * the best passage's) in a sentence's support. On the calibration half of
 * SQuAD open (eval/README.md), 1 and 2 quote the question's own
 * paragraph more often than 0.5; 1 is the smaller.
 */
const RANK_PRIOR = 1;
/**
 * {@link RANK_PRIOR} when dense retrieval took part: the re-ranked order then
 * carries the passages' meaning (engine/ranking/passage-rerank.ts DENSE_WEIGHT), which
 * a paraphrased question's words do not, so the answer is drawn from the
 * passage ranked first more readily than from one sharing more words.
 * Chosen with DENSE_WEIGHT on the fit halves (see there): on the Node.js fit
 * half the answers citing a gold page at any evidence rose from 0.636 (1)
 * to 0.673 (2) and 0.720 (4).
 */
const HYBRID_RANK_PRIOR = 4;
/**
 * Weight of the sentence's {@link phraseCoverage} (question term pairs it
 * holds side by side) in its support. On the calibration half of SQuAD open
 * (eval/README.md), weights 0.1 to 0.3 all quote the question's
 * own paragraph about one point more often than none; 0.2 is the middle.
 */
const PHRASE_WEIGHT = 0.2;
/**
 * Weight of the IDF-weighted share of the question's terms in the subject of
 * the passage's section heading (engine/passages/section-heading.ts) in a sentence's
 * support: a section whose heading names what the question asks about is
 * the one to answer from. Chosen on the fit halves of the documentation
 * sets (eval/README.md): 0, 1, 1.5 and 2 gave Node.js right 0.252,
 * 0.290, 0.299 and 0.299 and Kubernetes cited gold 0.115, 0.130, 0.140 and
 * 0.120 (re-ranking heading weight 0.5); SQuAD's "Paragraph n" headings
 * hardly ever match, its figures (calibration half) are level.
 */
export const SUBJECT_WEIGHT = 1.5;
/**
 * Weight of the sentence's own similarity in meaning to the question (its
 * embedding's cosine similarity, rescaled above the model's floor:
 * store/passages/passages.ts `sentenceSimilarities`, set when dense
 * retrieval took part) in its support: of the sentences a visitor's
 * question shares few words with, the one that says what was asked
 * ("the number of seconds the current Node.js process has been running")
 * is the one to quote, and its passage the answer's anchor. Chosen on the
 * fit halves of the documentation sets among 0, 1, 2, 4, 8 and 16 (Node.js
 * right 0.393, 0.383, 0.402, 0.411, 0.421 and 0.411; eval/README.md "Which
 * sentence the answer quotes").
 */
export const SENTENCE_MEANING_WEIGHT = 8;
/** Smallest share of the question's weight a further sentence must add to be quoted. */
const MIN_GAIN = 0.1;
/** A further sentence needs at least this share of the first sentence's support (0.8 from another passage). */
const MIN_RELATIVE_SUPPORT = 0.6;
const MIN_RELATIVE_SUPPORT_ELSEWHERE = 0.8;
/**
 * Support lost by sentences that read badly out of context: very short ones,
 * ones ending in a colon (they introduce code or a list that is not quoted),
 * and ones opening with a pronoun that points at a sentence not quoted.
 */
const SHORT_PENALTY = 0.1;
const COLON_PENALTY = 0.1;
const DANGLING_PRONOUN_PENALTY = 0.05;
/**
 * Support lost by a sentence of an option item (text/sentences.ts): it
 * details one parameter, so a prose sentence about the subject that covers
 * as much is the better anchor for an answer.
 */
const OPTION_PENALTY = 0.1;
/** A further sentence from another passage needs a BM25 score at least this share of the best passage's. */
const MIN_RELATIVE_PASSAGE_SCORE = 0.75;

/** A composed answer. */
export interface ExtractiveAnswer {
  /** Answer text with `[n]` markers; `n` is 1-based into `cited`. */
  text: string;
  /** The passages cited, in marker order. */
  cited: ScoredPassage[];
  /** Evidence score in 0..1 (engine/ranking/evidence.ts). */
  evidence: number;
  features: EvidenceFeatures;
}

/**
 * The answerer's choice before its text is written: the sentences to quote
 * and the evidence. {@link writeExtractiveAnswer} turns it into text once
 * the anchor's section is known.
 */
export interface ExtractivePlan {
  /** The chosen sentences: the best-supported first (its passage is the anchor), then the others chosen. */
  selected: QuotedSentence[];
  /** The passage of the best-supported sentence: the answer is about its section. */
  anchor: ScoredPassage;
  /** Whether the answer will be led by the anchor's section heading (see {@link leadsWithHeading}). */
  leads: boolean;
  /** The question's analyzed terms and their weights (IDF within the reach). */
  weights: ReadonlyMap<string, number>;
  /** Evidence score in 0..1 (engine/ranking/evidence.ts). */
  evidence: number;
  features: EvidenceFeatures;
}

/** Question terms counted by `questionLength`: longer questions count as this many. */
export const QUESTION_LENGTH_SATURATION = 10;

interface Candidate extends QuotedSentence {
  /** Whether its passage writes code (`PassageAnalysis.mentionsCode`): technical documentation. */
  technical: boolean;
  /** Whether an answer from its passage is led by the section heading ({@link leadsWithHeading}). */
  leads: boolean;
  /** Whether its section heading names an API (engine/passages/section-heading.ts). */
  apiSection: boolean;
  /** The question's terms in the sentence. */
  terms: Set<string>;
  /** The question's terms an answer quoting it shows: the sentence's, and its heading subject's when the heading leads. */
  shown: Set<string>;
  /** IDF-weighted share of the question's terms in the sentence (heading-only terms at half weight: `sentenceWeight`). */
  coverage: number;
  support: number;
}

/**
 * Chooses the sentences and computes the evidence (see the module's documentation).
 *
 * @param questionTerms analyzed, distinct question terms
 * @param search the retrieval result in the second stage's order, with its
 *   relevance (`retrievePassages`, or `rerankPassages` of a BM25 result)
 * @returns the plan, or undefined when no passage has a quotable sentence
 */
export function planExtractiveAnswer(questionTerms: readonly string[], search: RerankedSearch): ExtractivePlan | undefined {
  const weights = questionTermWeights(questionTerms, search);
  const totalWeight = sum([...weights.values()]);
  const passages = search.passages.slice(0, CANDIDATE_PASSAGES);
  const rankPrior = search.passages.some((passage) => passage.similarity !== undefined) ? HYBRID_RANK_PRIOR : RANK_PRIOR;
  const best = passages[0];
  if (!best || totalWeight === 0) return undefined;

  const weightOf = (terms: Iterable<string>): number => {
    let total = 0;
    for (const term of terms) total += weights.get(term) ?? 0;
    return total;
  };
  const pairs = new QuestionPairs(questionTerms);
  const candidates: Candidate[] = [];
  const passageCoverages: number[] = [];
  passages.forEach((passage, rank) => {
    const analysis = analyzePassage(passage);
    const headingTerms = new Set([...analysis.headingTerms].filter((term) => weights.has(term)));
    const passageTerms = new Set(analysis.terms.filter((term) => weights.has(term)));
    passageCoverages.push(weightOf(new Set([...headingTerms, ...passageTerms])) / totalWeight);
    const leads = leadsWithHeading(passage, analysis, weights);
    const heading = passage.headingPath.at(-1);
    const apiSection = passage.headingPath.length >= 2 && heading !== undefined && namesApi(readHeading(heading));
    const shownSubject = leads ? [...analysis.subjectTerms].filter((term) => weights.has(term)) : [];
    const subjectShare = termsWeight(analysis.subjectTerms, weights) / totalWeight;
    // sentenceSimilarities follows the sentences that are not status lines, as these candidates do.
    let candidateIndex = -1;
    for (const { sentence, terms: sentenceTerms } of analysis.sentences) {
      if (sentence.kind === 'status') continue;
      candidateIndex += 1;
      const meaning = passage.sentenceSimilarities?.[candidateIndex];
      const terms = new Set(sentenceTerms.filter((term) => weights.has(term)));
      const coverage = sentenceWeight(sentenceTerms, analysis.headingTerms, weights) / totalWeight;
      const shown = shownSubject.length > 0 ? sentenceWeight([...sentenceTerms, ...shownSubject], analysis.headingTerms, weights) / totalWeight : coverage;
      const support =
        shown +
        rankPrior * (search.relevance[rank] ?? 0) +
        SUBJECT_WEIGHT * subjectShare +
        PHRASE_WEIGHT * pairs.coverage(sentenceTerms) +
        (meaning === undefined || Number.isNaN(meaning) ? 0 : SENTENCE_MEANING_WEIGHT * meaning) -
        (sentence.text.length < 25 ? SHORT_PENALTY : 0) -
        (sentence.text.endsWith(':') ? COLON_PENALTY : 0) -
        (DANGLING_PRONOUN.test(sentence.text) ? DANGLING_PRONOUN_PENALTY : 0) -
        (sentence.kind === 'option' && !optionNamed(sentence, weights) ? OPTION_PENALTY : 0);
      const shownTerms = new Set([...terms, ...shownSubject]);
      candidates.push({ sentence, passage, rank, technical: analysis.mentionsCode, leads, apiSection, terms, shown: shownTerms, coverage, support });
    }
  });
  if (candidates.length === 0) return undefined;

  const selected = selectSentences(candidates, weights, totalWeight, supersededPassages(passages));
  const anchor = selected[0]!.passage;
  const unknownWeight = weightOf(questionTerms.filter((term) => (search.documentFrequencies[term] ?? 0) === 0));
  const bestAnalysis = analyzePassage(best);
  const knownWeight = totalWeight - unknownWeight;
  const features: EvidenceFeatures = {
    passageCoverage: Math.max(...passageCoverages),
    unknownShare: unknownWeight / totalWeight,
    normalizedScore: knownWeight > 0 ? Math.min(1, best.score / (knownWeight * (BM25_K1 + 1))) : 0,
    sentenceCoverage: Math.min(1, Math.max(...candidates.map((candidate) => candidate.coverage))),
    phraseCoverage: pairs.coverage(bestAnalysis.terms),
    questionLength: Math.min(questionTerms.length, QUESTION_LENGTH_SATURATION) / QUESTION_LENGTH_SATURATION,
    documentShare: search.documentShare,
    documentMargin: documentMargin(best, search.passages),
    headingShare: termsWeight(bestAnalysis.headingTerms, weights) / totalWeight,
    ...denseFeatures(best, search, unknownWeight / totalWeight),
  };
  const model: EvidenceModel = search.passages.some((passage) => passage.similarity !== undefined) ? 'hybrid' : 'lexical';
  return {
    selected: selected.map(({ sentence, passage, rank }) => ({ sentence, passage, rank })),
    anchor,
    leads: leadsWithHeading(anchor, analyzePassage(anchor), weights),
    weights,
    evidence: evidenceScore(features, model),
    features,
  };
}

/**
 * Writes a planned answer (engine/extractive/answer-composition.ts).
 *
 * @param plan from {@link planExtractiveAnswer}
 * @param options.question the question as asked (a how-question gets a code example: engine/extractive/question-intent.ts)
 * @param options.section the passages of the anchor's section in document
 *   order (its description and code example come from them); the anchor
 *   alone when not given
 * @param options.ownerSection the passages of the section of the class
 *   owning the anchor's property (engine/extractive/answer-composition.ts
 *   `ownerHeadingPath`), shown to a how-question; none when not given
 */
export function writeExtractiveAnswer(
  plan: ExtractivePlan,
  options: { question?: string; section?: readonly ScoredPassage[]; ownerSection?: readonly ScoredPassage[] } = {},
): ExtractiveAnswer {
  const section = options.section && options.section.length > 0 ? options.section : [plan.anchor];
  const { text, cited } = writeAnswerText({
    selected: plan.selected,
    anchor: plan.anchor,
    leads: plan.leads,
    section,
    ownerSection: plan.leads ? (options.ownerSection ?? []) : [],
    weights: plan.weights,
    howQuestion: options.question !== undefined && asksHow(options.question),
  });
  return { text, cited, evidence: plan.evidence, features: plan.features };
}

/**
 * Plans and writes an answer from the retrieved passages alone: the
 * anchor's section is the retrieved passages of its section (the engine
 * reads the whole section from the store: engine/answer-engine.ts).
 *
 * @param questionTerms analyzed, distinct question terms
 * @param search the retrieval result in the second stage's order, with its relevance
 * @param question the question as asked, when known (see {@link writeExtractiveAnswer})
 * @returns the answer, or undefined when no passage has a quotable sentence
 */
export function composeExtractiveAnswer(
  questionTerms: readonly string[],
  search: RerankedSearch,
  question?: string,
): ExtractiveAnswer | undefined {
  const plan = planExtractiveAnswer(questionTerms, search);
  if (!plan) return undefined;
  const inSection = (headingPath: readonly string[]): ScoredPassage[] =>
    search.passages
      .filter((passage) => passage.docId === plan.anchor.docId && sameHeadingPath(passage.headingPath, headingPath))
      .sort((left, right) => left.chunkId - right.chunkId);
  const owner = ownerHeadingPath(plan.anchor);
  return writeExtractiveAnswer(plan, {
    ...(question !== undefined && { question }),
    section: inSection(plan.anchor.headingPath),
    ownerSection: owner ? inSection(owner) : [],
  });
}

/**
 * Chunk ids of the candidate passages whose section the docs mark deprecated
 * naming a replacement whose section is among the candidates too
 * (engine/passages/deprecation.ts): such a passage never leads the answer (the
 * replacement does), though a sentence of it may follow, said to be
 * deprecated (engine/extractive/answer-composition.ts).
 */
function supersededPassages(passages: readonly ScoredPassage[]): Set<number> {
  const superseded = new Set<number>();
  for (const passage of passages) {
    const deprecation = sectionDeprecation(passage, passages);
    if (deprecation?.replacementSubject !== undefined && passages.some((other) => isReplacementSection(other, deprecation))) superseded.add(passage.chunkId);
  }
  return superseded;
}

/** Whether two passages lie in the same section: same document, same heading path. */
export function isSameSection(passage: ScoredPassage, other: ScoredPassage): boolean {
  return passage.docId === other.docId && sameHeadingPath(passage.headingPath, other.headingPath);
}


/**
 * Whether an answer quoting this passage is led by its section heading: the
 * section (below the document's title) documents an API (its heading names
 * one: engine/passages/section-heading.ts), or a task (a worded heading sharing a
 * question term over a passage that shows code).
 *
 * @param weights the question's terms
 */
export function leadsWithHeading(
  passage: ScoredPassage,
  analysis: PassageAnalysis,
  weights: ReadonlyMap<string, number>,
): boolean {
  const heading = passage.headingPath.at(-1);
  if (passage.headingPath.length < 2 || heading === undefined) return false;
  if (namesApi(readHeading(heading))) return true;
  return analysis.hasCode && [...analysis.subjectTerms].some((term) => weights.has(term));
}

/** Whether the sentence details an option whose name holds a question term. */
function optionNamed(sentence: Sentence, weights: ReadonlyMap<string, number>): boolean {
  return identifierTerms(sentence.option ?? '').some((term) => weights.has(term));
}

/** The best candidate, then the others that add question terms (see the module's documentation); the best first. */
function selectSentences(
  candidates: Candidate[],
  weights: Map<string, number>,
  totalWeight: number,
  superseded: ReadonlySet<number> = new Set(),
): Candidate[] {
  const ranked = [...candidates].sort(
    (left, right) =>
      right.support - left.support ||
      left.rank - right.rank ||
      left.sentence.position - right.sentence.position,
  );
  const first = ranked.find((candidate) => !superseded.has(candidate.passage.chunkId)) ?? ranked[0]!;
  const selected = [first];
  const covered = new Set(first.shown);
  for (const candidate of ranked) {
    if (candidate === first) continue;
    if (selected.length >= MAX_SENTENCES) break;
    if (candidate.support < MIN_RELATIVE_SUPPORT * first.support) break;
    if (candidate.passage.chunkId !== first.passage.chunkId && !mayJoin(first, candidate)) continue;
    const gain = sum([...candidate.shown].filter((term) => !covered.has(term)).map((term) => weights.get(term) ?? 0));
    if (gain / totalWeight < MIN_GAIN) continue;
    selected.push(candidate);
    for (const term of candidate.shown) covered.add(term);
  }
  return selected;
}

/**
 * Whether a sentence of another passage may join an answer whose best
 * sentence is `first`: it is nearly as well supported from a passage nearly
 * as high ranked and, in technical documentation, about the same subject:
 * the same document, and when the answer is led by an API's heading,
 * another API's section (shown under its own heading), not a topic section
 * of the same page.
 */
function mayJoin(first: Candidate, candidate: Candidate): boolean {
  if (candidate.passage.score < MIN_RELATIVE_PASSAGE_SCORE * first.passage.score) return false;
  if (candidate.support < MIN_RELATIVE_SUPPORT_ELSEWHERE * first.support) return false;
  if (!first.technical && !candidate.technical) return true;
  if (candidate.passage.docId !== first.passage.docId) return false;
  return !first.leads || candidate.apiSection || isSameSection(candidate.passage, first.passage);
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
