/**
 * The ranking formulas of kb-widget's lexical retrieval: BM25 over the
 * fields of a passage or a page, in the two forms of S. Robertson and
 * H. Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond"
 * (Foundations and Trends in IR 3(4), 2009), section 3.2, with Lucene's
 * always-positive IDF `ln(1 + (N - df + 0.5) / (df + 0.5))` over the units
 * inside the reach (N of them, df holding the term in any field) and `q(t)`
 * the query term's weight (1, or less for an expansion term):
 *
 * - `combined` (the simple BM25F, as Lucene's `CombinedFieldQuery`): the
 *   fields' frequencies and lengths are added with the fields' weights and
 *   normalized once, with one `b`:
 *
 *       tf~ = Σ_f w_f · tf_f,   len~ = Σ_f w_f · len_f,   avglen~ = Σ_f w_f · avglen_f
 *       score = Σ_t q(t) · idf(t) · tf~ · (k1 + 1) / (tf~ + k1 · (1 - b + b · len~ / avglen~))
 *
 * - `per-field` (BM25F proper): each field is normalized with its own `b`,
 *   then the pseudo-frequency is saturated once:
 *
 *       tf~ = Σ_f w_f · tf_f / ((1 - b_f) + b_f · len_f / avglen_f)
 *       score = Σ_t q(t) · idf(t) · tf~ · (k1 + 1) / (k1 + tf~)
 *
 * Scored in TypeScript only (retrieval/index-scorer.ts), so every storage
 * backend ranks the same units in the same order by construction.
 */

/** Weight and length normalization of one field. */
export interface FieldParameters {
  /** How much one occurrence counts (0: the field is ignored). */
  weight: number;
  /** Length normalization, 0 (none) to 1 (full); with `combined`, only the first field's `b` is used. */
  b: number;
}

/** The parameters of one fielded BM25 ranking. */
export interface FieldedBm25 {
  normalization: 'combined' | 'per-field';
  /** Term-frequency saturation. */
  k1: number;
  /** One entry per field of the index it ranks, in the index's field order. */
  fields: readonly FieldParameters[];
}

/**
 * How passages are ranked: the heading path counts twice as much as the
 * text (the page title is the path's first heading), normalized once, with
 * Anserini's BEIR defaults k1 0.9 and b 0.4; the page's description is
 * left to the page ranking. Fields: title, description, section headings, text
 * (retrieval/index-fields.ts).
 */
export const PASSAGE_RANKING: FieldedBm25 = {
  normalization: 'combined',
  k1: 0.9,
  fields: [
    { weight: 2, b: 0.4 },
    { weight: 0, b: 0.4 },
    { weight: 2, b: 0.4 },
    { weight: 1, b: 0.4 },
  ],
};

/**
 * How pages are ranked, as evidence added to their passages' scores
 * (retrieval/lexical-retriever.ts): BM25F proper over a page's title,
 * description, lead paragraph (when it has no description), headings,
 * text and path words (retrieval/index-fields.ts `indexPage`), with a large
 * k1 so that a page naming the subject many times keeps gaining. Weights, b
 * and k1 fitted by coordinate ascent on the fit halves of the documentation
 * sets (Kubernetes `q1`, Node.js `fit`; eval/README.md), never on
 * their report halves.
 */
export const PAGE_RANKING: FieldedBm25 = {
  normalization: 'per-field',
  k1: 10,
  fields: [
    { weight: 3, b: 0.3 },
    { weight: 4, b: 0.3 },
    { weight: 1, b: 0.3 },
    { weight: 4, b: 0.9 },
    { weight: 1, b: 0.6 },
    { weight: 1, b: 0.3 },
  ],
};

/**
 * Weight of a passage's page score in its retrieval score (passage score +
 * this × page score), added over the best `PASSAGE_POOL` passages
 * (retrieval/retrieval-plan.ts): fitted with {@link PAGE_RANKING}.
 */
export const PAGE_EVIDENCE_WEIGHT = 0.3;

/** Term-frequency saturation of the passage ranking, for features that compare with it. */
export const BM25_K1 = PASSAGE_RANKING.k1;

/** Most distinct query terms scored: bounds the postings read by a long question. */
export const MAX_QUERY_TERMS = 32;

/**
 * Lucene's BM25 inverse document frequency.
 *
 * @param count units inside the reach (N)
 * @param documentFrequency units inside the reach holding the term (df)
 * @returns a weight > 0
 */
export function inverseDocumentFrequency(count: number, documentFrequency: number): number {
  return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * The most a query term can add to any unit's score: its weight times
 * `k1 + 1`, the limit of a term's contribution as its frequency grows.
 */
export function maximumTermScore(ranking: FieldedBm25, weight: number): number {
  return weight * (ranking.k1 + 1);
}
