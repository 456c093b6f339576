/**
 * The one BM25 formula of kb-widget, shared by every storage backend so the
 * same question over the same corpus ranks the same passages in the same order.
 *
 * Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
 * BM25 and Beyond", 2009) with Lucene's always-positive IDF
 * `ln(1 + (N - df + 0.5) / (df + 0.5))` and the heading path as a boosted
 * field folded in the simple BM25F way: a term's frequency is
 * `tf_body + HEADING_WEIGHT * tf_heading` and a passage's length is
 * `len_body + HEADING_WEIGHT * len_heading`, saturated once.
 */

/** Term-frequency saturation; 0.9 is Anserini's default for the BEIR baselines. */
export const BM25_K1 = 0.9;
/** Length normalization; 0.4 is Anserini's default for the BEIR baselines. */
export const BM25_B = 0.4;
/** How much more a heading-path occurrence counts than a body occurrence. */
export const HEADING_WEIGHT = 2;
/** Most distinct query terms scored: bounds the postings read by a long question. */
export const MAX_QUERY_TERMS = 32;

/**
 * Lucene's BM25 inverse document frequency.
 *
 * @param documentCount passages in the knowledge base (N)
 * @param documentFrequency passages containing the term (df)
 * @returns a weight > 0
 */
export function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * Average field-weighted passage length of a knowledge base (BM25's avgdl).
 *
 * @param passageCount passages in the knowledge base
 * @param bodyLengthSum sum of the passages' text lengths, in terms
 * @param headingLengthSum sum of the passages' heading-path lengths, in terms
 * @returns average of `len_body + HEADING_WEIGHT * len_heading`; 1 for an empty knowledge base
 */
export function averageWeightedLength(passageCount: number, bodyLengthSum: number, headingLengthSum: number): number {
  if (passageCount === 0) return 1;
  return (bodyLengthSum + HEADING_WEIGHT * headingLengthSum) / passageCount;
}

/**
 * The BM25 contribution of one term to one passage (for tests and in-memory
 * scoring; the SQL backends compute the same expression).
 *
 * @param idf {@link inverseDocumentFrequency} of the term
 * @param termFrequency weighted term frequency in the passage
 * @param length weighted passage length, in terms
 * @param averageLength average weighted passage length over the knowledge base
 */
export function bm25TermScore(idf: number, termFrequency: number, length: number, averageLength: number): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength);
  return (idf * termFrequency * (BM25_K1 + 1)) / (termFrequency + norm);
}
