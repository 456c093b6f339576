/**
 * Ranked-retrieval metrics as BEIR reports them (Thakur et al., NeurIPS 2021),
 * which computes them with pytrec_eval, i.e. trec_eval's `ndcg_cut.k` and
 * `recall.k` measures:
 *
 * - nDCG@k (Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR
 *   techniques", TOIS 2002, in trec_eval's form): DCG@k = Σ_{i=1..k} rel_i /
 *   log2(i + 1), with the gain equal to the qrels relevance grade; the ideal
 *   DCG@k comes from the qrels' grades sorted descending, not from the run,
 *   so relevant documents the run misses lower the score.
 * - Recall@k: relevant documents among the first k retrieved, divided by all
 *   relevant documents of the query.
 *
 * Documents whose grade is 0 (or that are not in the qrels) are not
 * relevant. Both functions score one query; BEIR averages them over the
 * queries that have qrels.
 */

/** Relevance grades of one query: document id -> grade (> 0 relevant). */
export type QueryRelevance = ReadonlyMap<string, number>;

/**
 * @param ranked retrieved document ids, best first (duplicates are the caller's error; only the first k count)
 * @param relevance the query's qrels
 * @param k cut-off, a positive integer
 * @returns nDCG@k in 0..1; 0 when the query has no relevant document
 * @throws RangeError when k is not a positive integer
 */
export function ndcgAtK(ranked: readonly string[], relevance: QueryRelevance, k: number): number {
  checkCutoff(k);
  let dcg = 0;
  ranked.slice(0, k).forEach((docId, index) => {
    const grade = relevance.get(docId) ?? 0;
    if (grade > 0) dcg += grade / Math.log2(index + 2);
  });
  const ideal = [...relevance.values()]
    .filter((grade) => grade > 0)
    .sort((left, right) => right - left)
    .slice(0, k)
    .reduce((total, grade, index) => total + grade / Math.log2(index + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/**
 * @param ranked retrieved document ids, best first
 * @param relevance the query's qrels
 * @param k cut-off, a positive integer
 * @returns Recall@k in 0..1; 0 when the query has no relevant document
 * @throws RangeError when k is not a positive integer
 */
export function recallAtK(ranked: readonly string[], relevance: QueryRelevance, k: number): number {
  checkCutoff(k);
  const relevant = [...relevance.values()].filter((grade) => grade > 0).length;
  if (relevant === 0) return 0;
  const found = ranked.slice(0, k).filter((docId) => (relevance.get(docId) ?? 0) > 0).length;
  return found / relevant;
}

function checkCutoff(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`Cut-off k must be a positive integer, got ${k}`);
}
