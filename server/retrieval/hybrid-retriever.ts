import { FUSION_DEPTH } from './retrieval-plan.ts';
import type { RetrievalQuery, Retriever, SearchResult } from './retriever.ts';
import type { ScoredPassage } from '../store/store.ts';

/**
 * Hybrid retrieval: the lexical (BM25F) and the dense retriever's lists
 * fused by reciprocal rank fusion - a passage scores Σ 1 / (k + rank) over
 * the lists that hold it (G. V. Cormack, C. L. A. Clarke & S. Büttcher,
 * "Reciprocal rank fusion outperforms Condorcet and individual rank learning
 * methods", SIGIR 2009; k = 60 there).
 *
 * Each passage keeps its lexical score (`score`, 0 when only the dense list
 * held it) and its cosine `similarity` to the question (computed for every
 * fused passage that the dense list held), so that the second stage and the
 * evidence model can weigh both. The statistics (`passageCount`,
 * `documentFrequencies`) are the lexical retriever's.
 */

/** Cormack et al.'s constant. */
export const RRF_K = 60;

export interface HybridRetrieverOptions {
  /**
   * Passages each retriever returns for fusion, when the caller wants fewer;
   * default {@link FUSION_DEPTH}.
   */
  depth?: number;
  /** The RRF constant; default {@link RRF_K}. */
  k?: number;
  /** Weight of the dense list's reciprocal ranks (the lexical list's is 1); default 1. */
  denseWeight?: number;
  /**
   * When given, the lists are fused by {@link fuseConvex} with this weight
   * (0..1) of the dense scores instead of by reciprocal ranks. The server
   * fuses by reciprocal ranks; the two are compared by `npm run eval --
   * --fusion convex:<weight>` (eval/README.md "Fusion: reciprocal ranks or a convex combination").
   */
  convexDenseWeight?: number;
}

/** How a hybrid retriever with these options fuses, for reports: `RRF` or `convex 0.5`. */
export function fusionName(options: HybridRetrieverOptions = {}): string {
  return options.convexDenseWeight === undefined ? 'RRF' : `convex ${options.convexDenseWeight}`;
}

export function createHybridRetriever(lexical: Retriever, dense: Retriever, options: HybridRetrieverOptions = {}): Retriever {
  const depth = options.depth ?? FUSION_DEPTH;
  const k = options.k ?? RRF_K;
  const denseWeight = options.denseWeight ?? 1;
  return {
    async search(query: RetrievalQuery): Promise<SearchResult> {
      const wanted = Math.max(query.topK, depth);
      const [lexicalResult, denseResult] = await Promise.all([lexical.search({ ...query, topK: wanted }), dense.search({ ...query, topK: wanted })]);
      const fused =
        options.convexDenseWeight === undefined
          ? fuseRanks(lexicalResult.passages, denseResult.passages, { k, denseWeight })
          : fuseConvex(lexicalResult.passages, denseResult.passages, options.convexDenseWeight);
      return { ...lexicalResult, passages: fused.slice(0, query.topK) };
    },
  };
}

/**
 * Min-max normalisation over a list's scores (Bruch et al. 2023, "MM"): the
 * lowest maps to 0, the highest to 1; every score to 1 when they are all equal.
 *
 * @returns the normalising function of that list
 */
export function minMaxScaler(scores: readonly number[]): (value: number) => number {
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  return (value) => (high > low ? (value - low) / (high - low) : 1);
}

/**
 * Convex combination of the two lists' scores, each min-max normalised over
 * its list (S. Bruch, S. Gai & A. Ingber, "An analysis of fusion functions
 * for hybrid retrieval", ACM TOIS 2023): a passage scores
 * `denseWeight × dense' + (1 − denseWeight) × lexical'`, a list that did not
 * hold it counting 0. Keeps `score` and `similarity` as {@link fuseRanks} does.
 *
 * @param denseWeight in 0..1
 * @returns the union, best fused score first (ties in {@link fuseRanks}'s order)
 */
export function fuseConvex(lexical: readonly ScoredPassage[], dense: readonly ScoredPassage[], denseWeight: number): ScoredPassage[] {
  const lexicalShare = minMaxScaler(lexical.map((passage) => passage.score));
  const denseShare = minMaxScaler(dense.map((passage) => passage.similarity ?? passage.score));
  const fused = new Map<number, number>();
  lexical.forEach((passage) => fused.set(passage.chunkId, (1 - denseWeight) * lexicalShare(passage.score)));
  dense.forEach((passage) => fused.set(passage.chunkId, (fused.get(passage.chunkId) ?? 0) + denseWeight * denseShare(passage.similarity ?? passage.score)));
  const order = fuseRanks(lexical, dense);
  const rankOf = new Map(order.map((passage, rank) => [passage.chunkId, rank]));
  return order.sort((left, right) => fused.get(right.chunkId)! - fused.get(left.chunkId)! || rankOf.get(left.chunkId)! - rankOf.get(right.chunkId)!);
}

/**
 * Reciprocal rank fusion of a lexical and a dense list (each best first).
 *
 * @returns the union, best fused score first (ties by lexical rank, then chunk id), each with its lexical `score` (0 if absent from that list) and its `similarity` when the dense list held it
 */
export function fuseRanks(
  lexical: readonly ScoredPassage[],
  dense: readonly ScoredPassage[],
  options: { k?: number; denseWeight?: number } = {},
): ScoredPassage[] {
  const k = options.k ?? RRF_K;
  const denseWeight = options.denseWeight ?? 1;
  const entries = new Map<number, { passage: ScoredPassage; fused: number; lexicalRank: number }>();
  lexical.forEach((passage, rank) => {
    entries.set(passage.chunkId, { passage: { ...passage }, fused: 1 / (k + rank + 1), lexicalRank: rank });
  });
  dense.forEach((passage, rank) => {
    const share = denseWeight / (k + rank + 1);
    const known = entries.get(passage.chunkId);
    if (known) {
      known.fused += share;
      known.passage.similarity = passage.similarity ?? passage.score;
    } else {
      const { pageEvidence: _unscored, ...rest } = passage;
      entries.set(passage.chunkId, { passage: { ...rest, score: 0, similarity: passage.similarity ?? passage.score }, fused: share, lexicalRank: Number.POSITIVE_INFINITY });
    }
  });
  // A document's similarity is known for every passage of it once the dense list held one.
  const documentSimilarity = new Map<string, number>();
  for (const passage of dense) if (passage.documentSimilarity !== undefined) documentSimilarity.set(passage.docId, passage.documentSimilarity);
  for (const entry of entries.values()) {
    const known = documentSimilarity.get(entry.passage.docId);
    if (known !== undefined) entry.passage.documentSimilarity = known;
  }
  return [...entries.values()]
    .sort((left, right) => right.fused - left.fused || left.lexicalRank - right.lexicalRank || left.passage.chunkId - right.passage.chunkId)
    .map((entry) => entry.passage);
}
