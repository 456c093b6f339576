import { escapeLiteralMarkers } from '../../protocol/citation-markers.ts';
import { evidenceScore, type EvidenceFeatures } from './evidence.ts';
import { questionTermWeights, sentenceWeight, type RerankedSearch } from './passage-rerank.ts';
import { analyzePassage } from './passage-analysis.ts';
import { QuestionPairs } from './phrase-pairs.ts';
import type { Sentence } from './sentences.ts';
import { BM25_K1 } from '../retrieval/bm25f.ts';
import type { ScoredPassage } from '../store/store.ts';

/**
 * The `extractive` answerer (DESIGN.md "The engine"): offline and
 * deterministic. It picks the best-supported sentences of the retrieved
 * passages and composes a short answer with `[n]` citation markers.
 *
 * A sentence's support is the IDF-weighted share of the question's terms it
 * contains, with terms found only in its passage's heading path counted at
 * half weight (engine/passage-rerank.ts `sentenceWeight`), plus a prior for its passage's relevance
 * (the second ranking stage, engine/passage-rerank.ts) and a bonus for the question's term pairs it holds side by side
 * ({@link phraseCoverage}). The best sentence is taken, then up to {@link MAX_SENTENCES} - 1 more
 * while each adds question terms not yet covered, is nearly as well supported,
 * and comes from the same passage or one ranked nearly as high.
 */

/** Most sentences an answer quotes. */
export const MAX_SENTENCES = 3;
/** Passages (most relevant first) whose sentences are considered. */
export const CANDIDATE_PASSAGES = 5;
/**
 * Weight of the passage's relevance (engine/passage-rerank.ts, a share of
 * the best passage's) in a sentence's support. On the calibration half of
 * SQuAD open (README "Evaluation"), 1 and 2 quote the question's own
 * paragraph more often than 0.5; 1 is the smaller.
 */
const RANK_PRIOR = 1;
/**
 * Weight of the sentence's {@link phraseCoverage} (question term pairs it
 * holds side by side) in its support. On the calibration half of SQuAD open
 * (eval/, README "Evaluation"), weights 0.1 to 0.3 all quote the question's
 * own paragraph about one point more often than none; 0.2 is the middle.
 */
const PHRASE_WEIGHT = 0.2;
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
const DANGLING_PRONOUN = /^(It|This|That|These|Those|They|Its|Their)\b/;
/** A further sentence from another passage needs a BM25 score at least this share of the best passage's. */
const MIN_RELATIVE_PASSAGE_SCORE = 0.75;

/** A composed answer. */
export interface ExtractiveAnswer {
  /** Answer text with `[n]` markers; `n` is 1-based into `cited`. */
  text: string;
  /** The passages cited, in marker order. */
  cited: ScoredPassage[];
  /** Evidence score in 0..1 (engine/evidence.ts). */
  evidence: number;
  features: EvidenceFeatures;
}

/** Question terms counted by `questionLength`: longer questions count as this many. */
export const QUESTION_LENGTH_SATURATION = 10;

interface Candidate {
  sentence: Sentence;
  passage: ScoredPassage;
  passageRank: number;
  terms: Set<string>;
  /** IDF-weighted share of the question's terms in the sentence (heading-only terms at half weight: `sentenceWeight`). */
  coverage: number;
  support: number;
}

/**
 * @param questionTerms analyzed, distinct question terms
 * @param search the retrieval result in the second stage's order, with its
 *   relevance (`retrievePassages`, or `rerankPassages` of a BM25 result)
 * @returns the answer, or undefined when no passage has a quotable sentence
 */
export function composeExtractiveAnswer(questionTerms: readonly string[], search: RerankedSearch): ExtractiveAnswer | undefined {
  const weights = questionTermWeights(questionTerms, search);
  const totalWeight = sum([...weights.values()]);
  const passages = search.passages.slice(0, CANDIDATE_PASSAGES);
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
  passages.forEach((passage, passageRank) => {
    const analysis = analyzePassage(passage);
    const headingTerms = new Set([...analysis.headingTerms].filter((term) => weights.has(term)));
    const passageTerms = new Set(analysis.terms.filter((term) => weights.has(term)));
    passageCoverages.push(weightOf(new Set([...headingTerms, ...passageTerms])) / totalWeight);
    for (const { sentence, terms: sentenceTerms } of analysis.sentences) {
      const terms = new Set(sentenceTerms.filter((term) => weights.has(term)));
      const coverage = sentenceWeight(sentenceTerms, analysis.headingTerms, weights) / totalWeight;
      const support =
        coverage +
        RANK_PRIOR * (search.relevance[passageRank] ?? 0) +
        PHRASE_WEIGHT * pairs.coverage(sentenceTerms) -
        (sentence.text.length < 25 ? SHORT_PENALTY : 0) -
        (sentence.text.endsWith(':') ? COLON_PENALTY : 0) -
        (DANGLING_PRONOUN.test(sentence.text) ? DANGLING_PRONOUN_PENALTY : 0);
      candidates.push({ sentence, passage, passageRank, terms, coverage, support });
    }
  });
  if (candidates.length === 0) return undefined;

  const selected = selectSentences(candidates, weights, totalWeight);
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
  };
  const { text, cited } = compose(selected);
  return { text, cited, evidence: evidenceScore(features), features };
}

/**
 * Share of the question's adjacent term pairs (consecutive analyzed terms,
 * stop words already dropped) that are also adjacent somewhere in the
 * passage's analyzed text: a phrase-level match, which BM25's bag of words
 * cannot see.
 *
 * @param questionTerms the question's distinct analyzed terms, in question order
 * @param passageTerms analyzed text, in order, duplicates kept
 * @returns a share in 0..1; 0 for a question of fewer than two terms
 */
export function phraseCoverage(questionTerms: readonly string[], passageTerms: readonly string[]): number {
  return new QuestionPairs(questionTerms).coverage(passageTerms);
}

function selectSentences(candidates: Candidate[], weights: Map<string, number>, totalWeight: number): Candidate[] {
  const ranked = [...candidates].sort(
    (left, right) =>
      right.support - left.support ||
      left.passageRank - right.passageRank ||
      left.sentence.position - right.sentence.position,
  );
  const first = ranked[0]!;
  const selected = [first];
  const covered = new Set(first.terms);
  for (const candidate of ranked.slice(1)) {
    if (selected.length >= MAX_SENTENCES) break;
    if (candidate.support < MIN_RELATIVE_SUPPORT * first.support) break;
    const samePassage = candidate.passage.chunkId === first.passage.chunkId;
    if (
      !samePassage &&
      (candidate.passage.score < MIN_RELATIVE_PASSAGE_SCORE * first.passage.score ||
        candidate.support < MIN_RELATIVE_SUPPORT_ELSEWHERE * first.support)
    ) {
      continue;
    }
    const gain = sum([...candidate.terms].filter((term) => !covered.has(term)).map((term) => weights.get(term) ?? 0));
    if (gain / totalWeight < MIN_GAIN) continue;
    selected.push(candidate);
    for (const term of candidate.terms) covered.add(term);
  }
  return selected.sort(
    (left, right) => left.passageRank - right.passageRank || left.sentence.position - right.sentence.position,
  );
}

/** Joins the sentences, placing one `[n]` marker after each run of sentences from one passage. */
function compose(selected: Candidate[]): { text: string; cited: ScoredPassage[] } {
  const cited: ScoredPassage[] = [];
  const parts: string[] = [];
  selected.forEach((candidate, position) => {
    let index = cited.findIndex((passage) => passage.chunkId === candidate.passage.chunkId) + 1;
    if (index === 0) index = cited.push(candidate.passage);
    const next = selected[position + 1];
    const endsRun = !next || next.passage.chunkId !== candidate.passage.chunkId;
    const sentence = escapeLiteralMarkers(candidate.sentence.text);
    parts.push(endsRun ? withMarker(sentence, index) : sentence);
  });
  return { text: parts.join(' '), cited };
}

/** Puts ` [n]` before the sentence's closing punctuation (replacing any space before it), or after the sentence when it has none. */
function withMarker(sentence: string, index: number): string {
  const match = /([.?!:;]+)$/.exec(sentence);
  if (!match) return `${sentence} [${index}]`;
  return `${sentence.slice(0, match.index).trimEnd()} [${index}]${match[1]}`;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
