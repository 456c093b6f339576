import { analyzePassage, type PassageAnalysis } from '../passages/passage-analysis.ts';
import { QuestionPairs } from './phrase-pairs.ts';
import { preferRecommended } from './recommended-first.ts';
import { correctMisspelledTerms } from './spelling-correction.ts';
import { inverseDocumentFrequency } from '../../retrieval/bm25f.ts';
import { RERANK_DEPTH } from '../../retrieval/retrieval-plan.ts';
import type { Retriever, SearchResult } from '../../retrieval/retriever.ts';
import type { Reach, ScoredPassage, Store } from '../../store/store.ts';

/**
 * The second ranking stage: the store's BM25 (first stage, identical on every
 * backend) returns the best {@link RERANK_DEPTH} passages, and this module
 * re-orders them in TypeScript, so the result is the same on SQLite and
 * PostgreSQL, with evidence a bag of words cannot see: where the question's
 * terms stand relative to one another.
 *
 * A passage's relevance is
 *
 *     BM25 / best BM25
 *       + DENSE_WEIGHT × similarity / best similarity (with dense retrieval)
 *       + DOCUMENT_WEIGHT × document similarity / best document similarity (with dense retrieval)
 *       + SENTENCE_WEIGHT × sentence coverage
 *       + PAIR_WEIGHT × pair coverage
 *       + WINDOW_WEIGHT × window coverage
 *       + HEADING_WEIGHT × heading coverage
 *
 * each coverage an IDF-weighted share (0..1) of the question's analyzed terms.
 * Then, with sentence similarities (retrieval/sentence-similarity.ts), the
 * first page's passages are re-ordered among their own positions by their
 * relevance share + SENTENCE_SIMILARITY_WEIGHT × sentence similarity; the
 * relevance stays with the positions (the first is 1).
 *
 * The coverages:
 * - sentence coverage: the best single sentence's share (terms found only in
 *   the passage's heading path at half weight), since an answer mostly lies
 *   within one sentence;
 * - pair coverage: the share of the question's adjacent term pairs that are
 *   adjacent, in order, in the passage (a pair weighs the smaller IDF of its
 *   two terms): the ordered-bigram feature of the sequential dependence
 *   model (D. Metzler & W. B. Croft, "A Markov random field model for term
 *   dependencies", SIGIR 2005);
 * - window coverage: the largest share found within any
 *   {@link PROXIMITY_WINDOW} consecutive terms of the passage, a span-based
 *   proximity measure (T. Tao & C. Zhai, "An exploration of proximity
 *   measures in information retrieval", SIGIR 2007; S. Büttcher, C. Clarke &
 *   B. Lushman, "Term proximity scoring for ad-hoc retrieval on very large
 *   text collections", SIGIR 2006);
 * - heading coverage: the share held by the subject of the passage's own
 *   section heading (`` `fs.rename(oldPath, newPath, callback)` `` is about
 *   `fs.rename`: engine/passages/section-heading.ts), identifiers split at case
 *   changes; none for a passage directly under the document's title.
 *
 * The first three weights were chosen on the calibration half of SQuAD 2.0 under the
 * open protocol (odd-positioned articles, `npm run eval -- --only squad
 * --squad-half calibration`; eval/README.md), never on the report half.
 */

/** Weight of the best sentence's IDF-weighted coverage. */
export const SENTENCE_WEIGHT = 0.5;
/** Weight of the IDF-weighted share of question term pairs found side by side. */
export const PAIR_WEIGHT = 1;
/** Weight of the best window's IDF-weighted coverage. */
export const WINDOW_WEIGHT = 0.5;
/**
 * Weight of the IDF-weighted share of the question's terms in the subject of
 * the passage's own section heading (`PassageAnalysis.subjectTerms`: an API
 * reference names its sections for the API, a guide for the task). Chosen on
 * the fit halves of the documentation sets (eval/README.md): 0, 0.5
 * and 1 (the answerer's subject weight at 1.5) gave Node.js right 0.308,
 * 0.299 and 0.290 and Kubernetes cited gold 0.125, 0.140 and 0.125; 0.5 has
 * the best sum, within noise. SQuAD (calibration half), whose section
 * headings are "Paragraph n", is level.
 */
export const HEADING_WEIGHT = 0.5;
/**
 * Weight of a passage's cosine similarity to the question, as a share of the
 * most similar retrieved passage's, when dense retrieval took part
 * (retrieval/hybrid-retriever.ts): the evidence of meaning that shares no
 * word with the question. Chosen with {@link DOCUMENT_WEIGHT} on the fit
 * halves of the documentation sets by the share of answerable questions
 * whose first re-ranked passage lies on a gold page (a grid of the lexical
 * weight 0.5 or 1, this 1, 2, 3 or 5, the document weight 0 to 8): lexical
 * 1, dense 2, document 8 put it there for 0.832 of the Node.js questions
 * and 0.240 of the Kubernetes ones, against 0.710 and 0.185 with dense 3
 * and no document term (report halves: 0.822 and 0.225, against 0.738 and
 * 0.210). Nearby settings (document 5 to 8, dense 1 to 3) are within two
 * questions of it.
 */
export const DENSE_WEIGHT = 2;
/**
 * Weight of a passage's document similarity (store/store.ts
 * `documentSimilarity`: its page's 3 passages nearest the question) as a
 * share of the best retrieved passage's, when dense retrieval took part: a
 * visitor's question is about one page, and a page several of whose
 * passages are near it is that page more often than the page of the single
 * nearest passage. Chosen with {@link DENSE_WEIGHT} (see there).
 */
export const DOCUMENT_WEIGHT = 8;
/**
 * Weight of a passage's sentence similarity (store/store.ts
 * `sentenceSimilarity`: its best sentence against the question) beside its
 * relevance share (0..1) when the first page's passages are re-ordered
 * among themselves (`rerankPassages`): which page answers is the relevance's
 * to say, which of its passages answers is mostly the best sentence's.
 * Chosen on the fit halves of the documentation sets among 0.5, 1 and 2
 * with the evidence model refitted for each (eval/README.md "The best
 * sentence's similarity as evidence"): 2 gave the fewest wrong answers on
 * both sets and the most answers citing a gold page on the Node.js set
 * (Kubernetes: 0.080 against 0.085 at 1, one question).
 */
export const SENTENCE_SIMILARITY_WEIGHT = 2;
/** Terms (after stop words) in the proximity window. */
export const PROXIMITY_WINDOW = 10;
/** Share of a term's weight earned when it appears only in the passage's headings (here and in the extractive answerer). */
export const HEADING_CONTEXT_WEIGHT = 0.5;

/**
 * Passages, from the first after re-ranking, over which
 * {@link RerankedSearch.documentShare} is computed. Chosen by five-fold
 * cross-validation of the evidence model over the calibration articles of
 * SQuAD open (eval/README.md "Calibration"): log-loss 0.181 at 10, 0.182 at 8, 14
 * and 20, 0.187 at 5.
 */
export const DOCUMENT_SHARE_DEPTH = 10;

/**
 * {@link RerankedSearch.documentShare} of a retrieval whose first passage is
 * its document's only passage: no concentration in one document can be
 * observed then (a knowledge base of one-passage documents, such as
 * ClapNQ's, would otherwise look scattered for every question), so the
 * feature takes its class-balanced mean on the calibration set of SQuAD open
 * (answerable 0.696, absent 0.256), and the other features decide: mean
 * imputation of a missing value.
 */
export const UNOBSERVED_DOCUMENT_SHARE = 0.476;

/** A search result in the second stage's order. */
export interface RerankedSearch extends SearchResult {
  /**
   * Relevance of each passage, aligned with `passages` (best first), as a
   * share of the first passage's: the first is 1, the others in 0..1.
   */
  relevance: number[];
  /**
   * Share (0..1) of the relevance of the first {@link DOCUMENT_SHARE_DEPTH}
   * passages held by passages of the first passage's document: near 1 when
   * the question's terms meet in one document (its topic), small when they
   * are scattered over unrelated ones (evidence feature, engine/ranking/evidence.ts).
   * Computed before any top-k cut, so it does not depend on the top-k asked for.
   */
  documentShare: number;
  /**
   * The highest cosine similarity, and the highest document similarity
   * (store/store.ts `documentSimilarity`), of any re-ranked passage of
   * another page than the first passage's; 0 when none, or without dense
   * retrieval. Computed before any top-k cut, like {@link documentShare}:
   * the evidence model's margins to the next page (engine/ranking/evidence.ts).
   */
  otherPages: { similarity: number; documentSimilarity: number };
}

/** Where {@link retrievePassages} finds passages: the retriever, and the store for a document's passage count. */
export interface RetrievalSources {
  retriever: Retriever;
  store: Pick<Store, 'countPassages'>;
}

/** What {@link retrievePassages} found, and with which terms. */
export interface Retrieval extends RerankedSearch {
  /** The terms searched: the question's, misspellings corrected (engine/ranking/spelling-correction.ts). */
  terms: string[];
}

/**
 * Re-orders a search result by relevance (see the module's documentation);
 * passages of equal relevance keep their BM25 order. Scores stay BM25 scores.
 *
 * @param questionTerms the question's analyzed, distinct terms, in question order
 * @param search the first stage's result, best BM25 first
 * @returns the same passages and statistics, re-ordered, with their relevance
 */
export function rerankPassages(questionTerms: readonly string[], search: SearchResult): RerankedSearch {
  const bestScore = search.passages[0]?.score ?? 0;
  const weights = questionTermWeights(questionTerms, search);
  let totalWeight = 0;
  for (const weight of weights.values()) totalWeight += weight;
  let pairWeight = 0;
  for (let index = 1; index < questionTerms.length; index += 1) pairWeight += pairWeightAt(questionTerms, weights, index);
  const pairs = new QuestionPairs(questionTerms);

  const bestSimilarity = Math.max(0, ...search.passages.map((passage) => passage.similarity ?? 0));
  const bestDocumentSimilarity = Math.max(0, ...search.passages.map((passage) => passage.documentSimilarity ?? 0));
  const scored = search.passages.map((passage, rank) => {
    let relevance = bestScore > 0 ? passage.score / bestScore : 0;
    if (bestSimilarity > 0) relevance += DENSE_WEIGHT * (Math.max(0, passage.similarity ?? 0) / bestSimilarity);
    if (bestDocumentSimilarity > 0) relevance += DOCUMENT_WEIGHT * (Math.max(0, passage.documentSimilarity ?? 0) / bestDocumentSimilarity);
    if (totalWeight > 0) {
      const analysis = analyzePassage(passage);
      relevance +=
        SENTENCE_WEIGHT * bestSentenceCoverage(analysis, weights, totalWeight) +
        WINDOW_WEIGHT * (windowWeight(analysis.terms, weights) / totalWeight) +
        (pairWeight > 0 ? PAIR_WEIGHT * (adjacentPairWeight(pairs, analysis.terms, weights) / pairWeight) : 0) +
        HEADING_WEIGHT * (termsWeight(analysis.subjectTerms, weights) / totalWeight);
    }
    return { passage, rank, relevance };
  });
  scored.sort((left, right) => right.relevance - left.relevance || left.rank - right.rank);
  const top = scored[0]?.relevance ?? 0;
  const relevance = scored.map((entry) => (top > 0 ? entry.relevance / top : 0));
  const passages = firstPageBySentence(scored.map((entry, position) => ({ passage: entry.passage, share: relevance[position]!, rank: entry.rank })));
  return {
    ...search,
    passages,
    relevance,
    documentShare: documentShare(scored),
    otherPages: otherPages(passages),
  };
}

/**
 * The first page's passages re-ordered among the positions they hold, by
 * relevance share + {@link SENTENCE_SIMILARITY_WEIGHT} × sentence
 * similarity (store/store.ts `sentenceSimilarity`; 0 for a passage without
 * one); the other pages' passages keep their positions. Unchanged when no
 * passage has a sentence similarity (no dense retrieval).
 */
function firstPageBySentence(ranked: readonly { passage: ScoredPassage; share: number; rank: number }[]): ScoredPassage[] {
  const passages = ranked.map((entry) => entry.passage);
  const first = passages[0];
  if (!first || !passages.some((passage) => passage.sentenceSimilarity !== undefined)) return passages;
  const positions = ranked.flatMap((entry, position) => (entry.passage.docId === first.docId ? [position] : []));
  const key = (entry: (typeof ranked)[number]) => entry.share + SENTENCE_SIMILARITY_WEIGHT * (entry.passage.sentenceSimilarity ?? 0);
  const reordered = positions.map((position) => ranked[position]!).sort((left, right) => key(right) - key(left) || left.rank - right.rank);
  positions.forEach((position, index) => (passages[position] = reordered[index]!.passage));
  return passages;
}

/** {@link RerankedSearch.otherPages} of passages in their re-ranked order. */
export function otherPages(passages: readonly ScoredPassage[]): RerankedSearch['otherPages'] {
  const first = passages[0];
  let similarity = 0;
  let documentSimilarity = 0;
  for (const passage of passages) {
    if (!first || passage.docId === first.docId) continue;
    similarity = Math.max(similarity, passage.similarity ?? 0);
    documentSimilarity = Math.max(documentSimilarity, passage.documentSimilarity ?? 0);
  }
  return { similarity, documentSimilarity };
}

function documentShare(scored: readonly { passage: { docId: string }; relevance: number }[]): number {
  const first = scored[0];
  if (!first) return 0;
  let total = 0;
  let same = 0;
  for (const { passage, relevance } of scored.slice(0, DOCUMENT_SHARE_DEPTH)) {
    total += relevance;
    if (passage.docId === first.passage.docId) same += relevance;
  }
  return total > 0 ? same / total : 0;
}

/**
 * Both stages: BM25F from the retriever for at least {@link RERANK_DEPTH}
 * passages, re-ranked ({@link rerankPassages}), the first `topK` kept. The
 * retrieval every answer and the evaluation use. When a question term is
 * in no passage of the reach and one retrieved passage holds a term one edit
 * from it (engine/ranking/spelling-correction.ts), the corrected terms are searched
 * again and that second search is the result. When the first passage's
 * section is marked deprecated and the docs name its replacement, the
 * replacement's section comes first (engine/ranking/recommended-first.ts). When the first passage is its
 * document's only one, the document share is {@link UNOBSERVED_DOCUMENT_SHARE}.
 *
 * @param questionTerms the question's analyzed, distinct terms, in question order
 * @param topK passages wanted (1..20 from requests)
 * @param question the question as asked (a dense retriever embeds it)
 * @throws StoreUnavailableError from the retriever or the store
 */
export async function retrievePassages(
  sources: RetrievalSources,
  reach: Reach,
  questionTerms: string[],
  topK: number,
  question?: string,
): Promise<Retrieval> {
  const depth = Math.max(topK, RERANK_DEPTH);
  let terms = questionTerms;
  const asked = question === undefined ? {} : { question };
  let search = await sources.retriever.search({ reach, terms, topK: depth, ...asked });
  const corrected = correctMisspelledTerms(terms, search);
  if (corrected) {
    terms = corrected;
    search = await sources.retriever.search({ reach, terms, topK: depth, ...asked });
  }
  const ranked = rerankPassages(terms, search);
  const reranked = await preferRecommended(ranked, sources.retriever, reach);
  // A replacement put first changes the page the others are measured against.
  if (reranked !== ranked) reranked.otherPages = otherPages(reranked.passages);
  // Only a first passage retrieved without another of its document needs the store's count.
  const first = reranked.passages[0];
  if (first && !reranked.passages.some((passage, rank) => rank > 0 && passage.docId === first.docId)) {
    if ((await sources.store.countPassages(reach, first.docId)) < 2) reranked.documentShare = UNOBSERVED_DOCUMENT_SHARE;
  }
  return { ...reranked, terms, passages: reranked.passages.slice(0, topK), relevance: reranked.relevance.slice(0, topK) };
}

/**
 * Each question term's weight: its IDF within the reach (store/bm25.ts), as
 * BM25 weighs it; 0 for a term no passage of the reach holds.
 *
 * @param questionTerms the question's analyzed, distinct terms
 * @param search the retrieval's statistics (passage count, document frequencies)
 */
export function questionTermWeights(questionTerms: readonly string[], search: SearchResult): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of questionTerms) {
    weights.set(term, inverseDocumentFrequency(search.passageCount, search.documentFrequencies[term] ?? 0));
  }
  return weights;
}

/**
 * Weight of the question's terms a sentence holds: the full weight of those
 * in the sentence, {@link HEADING_CONTEXT_WEIGHT} of it for those found only
 * in its passage's heading path (the heading says what the sentence is about).
 *
 * @param sentenceTerms the sentence's analyzed terms
 * @param headingTerms the analyzed terms of its passage's heading path
 * @param weights the question's terms and their weights ({@link questionTermWeights})
 */
export function sentenceWeight(
  sentenceTerms: readonly string[],
  headingTerms: ReadonlySet<string>,
  weights: ReadonlyMap<string, number>,
): number {
  let covered = 0;
  for (const [term, weight] of weights) {
    if (sentenceTerms.includes(term)) covered += weight;
    else if (headingTerms.has(term)) covered += HEADING_CONTEXT_WEIGHT * weight;
  }
  return covered;
}

/** Weight of the question's pair ending at `index`: the smaller IDF of its two terms. */
function pairWeightAt(questionTerms: readonly string[], weights: Map<string, number>, index: number): number {
  return Math.min(weights.get(questionTerms[index - 1]!) ?? 0, weights.get(questionTerms[index]!) ?? 0);
}

/** Weight of the question's adjacent term pairs that are adjacent, in order, in the text. */
function adjacentPairWeight(pairs: QuestionPairs, terms: readonly string[], weights: Map<string, number>): number {
  let found = 0;
  pairs.forEachFound(terms, (second) => {
    found += pairWeightAt(pairs.terms, weights, second);
  });
  return found;
}

/** Largest weight of distinct question terms within {@link PROXIMITY_WINDOW} consecutive terms (a sliding window). */
function windowWeight(terms: readonly string[], weights: Map<string, number>): number {
  const counts = new Map<string, number>();
  let current = 0;
  let best = 0;
  for (let index = 0; index < terms.length; index += 1) {
    const entering = terms[index]!;
    const enteringWeight = weights.get(entering);
    if (enteringWeight !== undefined) {
      const count = (counts.get(entering) ?? 0) + 1;
      counts.set(entering, count);
      if (count === 1) current += enteringWeight;
    }
    if (index >= PROXIMITY_WINDOW) {
      const leaving = terms[index - PROXIMITY_WINDOW]!;
      const leavingWeight = weights.get(leaving);
      if (leavingWeight !== undefined) {
        const count = counts.get(leaving)! - 1;
        counts.set(leaving, count);
        if (count === 0) current -= leavingWeight;
      }
    }
    if (current > best) best = current;
  }
  return best;
}

/** IDF-weighted share of the question's terms in the passage's best sentence ({@link sentenceWeight}). */
function bestSentenceCoverage(analysis: PassageAnalysis, weights: ReadonlyMap<string, number>, totalWeight: number): number {
  let best = 0;
  for (const sentence of analysis.sentences) best = Math.max(best, sentenceWeight(sentence.terms, analysis.headingTerms, weights));
  return best / totalWeight;
}

/** Weight of the question's terms that a set of terms holds. */
export function termsWeight(terms: ReadonlySet<string>, weights: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const [term, weight] of weights) if (terms.has(term)) total += weight;
  return total;
}
