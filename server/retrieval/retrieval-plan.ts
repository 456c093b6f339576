/**
 * The retrieval plan: how many candidates each step of a search takes, in
 * one place (docs/how-answers-are-made.md "Retrieve" and "Re-rank"). A
 * question's search narrows as it goes:
 *
 * 1. the lexical retriever scores every passage of the reach with BM25F and
 *    keeps the best {@link PASSAGE_POOL}, to which it adds their pages'
 *    evidence (retrieval/lexical-retriever.ts);
 * 2. with the embedding model, the lexical and the dense retriever each
 *    give their best {@link FUSION_DEPTH} for reciprocal rank fusion
 *    (retrieval/hybrid-retriever.ts);
 * 3. the best {@link RERANK_DEPTH} of that are re-ranked, and the evidence
 *    model's margins and document share are read over them
 *    (engine/ranking/passage-rerank.ts);
 * 4. the first `top_k` of the re-ranked ({@link DEFAULT_TOP_K} when the
 *    request does not say; at most `MAX_TOP_K`, protocol/query-terms.ts)
 *    are the answer's passages (engine/answer-engine.ts).
 *
 * A step asked for more than its size (a `top_k` over it) takes that many.
 * Besides, when the best passage's section is deprecated and its replacement
 * was not retrieved, the reach is searched for the replacement's name
 * ({@link REPLACEMENT_SEARCH_DEPTH}, engine/ranking/recommended-first.ts).
 *
 * Sizes of windows over these candidates that belong to one feature stay
 * with it: the evidence model's document share (`DOCUMENT_SHARE_DEPTH`,
 * engine/ranking/passage-rerank.ts) and the passages whose sentences the
 * extractive answerer weighs (`CANDIDATE_PASSAGES`,
 * engine/extractive/extractive-answerer.ts).
 *
 * Every figure measured by the evaluation (eval/README.md) and every fitted
 * weight and coefficient was taken with these sizes: changing one may move them.
 */

/**
 * Passages scored by the passage ranking before their page evidence is added
 * (the candidates of a search; retrieval/lexical-retriever.ts, or top k when
 * larger). Introduced with the page evidence (retrieval/bm25f.ts
 * `PAGE_EVIDENCE_WEIGHT`), whose gain was measured over the best 200 passages
 * on the fit halves of the documentation sets (Kubernetes `q1` Hit@5 0.345
 * to 0.43, Node.js fit Hit@1 0.617 to 0.636; CHANGELOG.md).
 */
export const PASSAGE_POOL = 200;

/**
 * Passages taken from each retriever for fusion: 50, so that a passage one
 * retriever ranks far down (1 / (60 + 50) from it) can still join the
 * second stage's 20 ({@link RERANK_DEPTH}) when the other ranks it well
 * (retrieval/hybrid-retriever.ts `createHybridRetriever`).
 */
export const FUSION_DEPTH = 50;

/**
 * Passages the first stage (BM25, or the hybrid retrieval) returns for
 * re-ranking, when the caller wants fewer (engine/ranking/passage-rerank.ts
 * `retrievePassages`). Equal to the largest `top_k` a request may ask
 * (`MAX_TOP_K`), so the passages re-ranked, and the evidence features read
 * over them, never depend on the `top_k` asked. The re-ranking weights and
 * the evidence model were fitted over these 20 (CHANGELOG.md: "the best 20
 * BM25 passages are re-ranked ...; the evidence score is refitted on it").
 */
export const RERANK_DEPTH = 20;

/**
 * Passages retrieved when the request does not say (`top_k` omitted;
 * docs/specification.md), for the answer engine (engine/answer-engine.ts)
 * and the evaluation (eval/). Set with the first query service; no
 * comparison with other values is recorded.
 */
export const DEFAULT_TOP_K = 8;

/**
 * Passages searched for the replacement's section by its name
 * (engine/ranking/recommended-first.ts): an API's section is among the
 * first that name it.
 */
export const REPLACEMENT_SEARCH_DEPTH = 10;
