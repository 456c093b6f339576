/**
 * The evidence score: how likely it is that the retrieved passages answer the
 * question, as a probability in 0..1, and the abstention threshold on it.
 *
 * A logistic model (Platt scaling: J. Platt, "Probabilistic outputs for
 * support vector machines", 1999) over nine features of the question's
 * terms and the retrieved passages, each in 0..1 unless said:
 * - `passageCoverage`: IDF-weighted share of the question terms found in the
 *   best-covering passage (text or heading path);
 * - `unknownShare`: IDF-weighted share of question terms that no passage of
 *   the knowledge base contains (a strong sign the question is off-topic);
 * - `normalizedScore`: the first passage's BM25 score divided by the most any
 *   passage could score for these terms (Σ IDF × (k1 + 1));
 * - `sentenceCoverage`: IDF-weighted share of the question terms found in the
 *   best-covering sentence of the candidate passages (terms only in its
 *   passage's headings at half weight): an answer is usually one sentence;
 * - `phraseCoverage`: share of the question's adjacent term pairs that are
 *   adjacent in the first passage (phrase match);
 * - `questionLength`: the question's distinct terms, as a share of 10
 *   (saturating): a long question that matches is stronger evidence;
 * - `documentShare`: the share of the best passages' relevance held by the
 *   first passage's document (engine/ranking/passage-rerank.ts): the terms of a
 *   question the knowledge base answers meet in one document, its topic;
 *   those of one it does not are scattered over several;
 * - `documentMargin`: how far the answering passage's retrieval score stands
 *   above the best passage of any other page, as a share of it (1 when no
 *   other page was retrieved; negative when re-ranking put a lower-scored
 *   passage first): one page clearly ahead is what a right answer looks
 *   like in documentation, several pages level is what a guess looks like;
 * - `headingShare`: IDF-weighted share of the question's terms in the
 *   answering passage's heading path.
 *
 * Coefficients fitted by `npm run calibrate` (eval/calibrate-evidence.ts) on
 * the fit halves of three sources weighing the same, each class-balanced:
 * the Node.js dev set and the Kubernetes `q1` questions (label: the answer
 * cites a gold page; off-topic questions negative) and SQuAD 2.0 under the
 * open protocol (odd-positioned articles). docs/how-answers-are-made.md "The evidence
 * score" gives the method, eval/README.md "Calibration" the report-half figures.
 */

/** Features of one candidate answer, each in 0..1 (`documentMargin` and the dense ones may be negative). */
export interface EvidenceFeatures {
  passageCoverage: number;
  unknownShare: number;
  normalizedScore: number;
  sentenceCoverage: number;
  phraseCoverage: number;
  questionLength: number;
  documentShare: number;
  documentMargin: number;
  headingShare: number;
  /** Cosine similarity of the answering passage's embedding to the question's (0 without dense retrieval). */
  similarity: number;
  /** How far that similarity stands above the best passage of any other page (0 without dense retrieval). */
  similarityMargin: number;
  /** 1 when the answering page is both retrievers' first, 0.5 when one's, 0 when neither's (0 without dense retrieval). */
  retrieverAgreement: number;
  /** The answering passage's document similarity (store/store.ts `documentSimilarity`: its page's best 3 passages; 0 without dense retrieval). */
  documentSimilarity: number;
  /** How far that document similarity stands above any other retrieved page's (0 without dense retrieval). */
  documentSimilarityMargin: number;
  /**
   * `unknownShare` times how far the answering page is in meaning (1 minus
   * its document similarity, clamped to 0..1; 0 without dense retrieval):
   * words the knowledge base never uses say the question is off-topic
   * unless the page is close in meaning - then they are the visitor's
   * wording ("pretty-print" for `util.inspect`). It replaces `unknownShare`
   * in the hybrid model, so that more unknown words can never raise the score.
   */
  distantUnknownShare: number;
  /**
   * The answering passage's best sentence's cosine similarity to the
   * question (store/store.ts `sentenceSimilarity`; 0 without dense
   * retrieval, or for a passage with no quotable sentence): a passage one of
   * whose sentences says what was asked.
   */
  sentenceSimilarity: number;
}

/** The dense features, which only the hybrid model weighs. */
export const DENSE_EVIDENCE_FEATURES = [
  'similarity',
  'similarityMargin',
  'retrieverAgreement',
  'documentSimilarity',
  'documentSimilarityMargin',
  'distantUnknownShare',
  'sentenceSimilarity',
] as const satisfies readonly (keyof EvidenceFeatures)[];

/** Order in which the features enter the lexical model. */
export const EVIDENCE_FEATURES: readonly (keyof EvidenceFeatures)[] = [
  'passageCoverage',
  'unknownShare',
  'normalizedScore',
  'sentenceCoverage',
  'phraseCoverage',
  'questionLength',
  'documentShare',
  'documentMargin',
  'headingShare',
];

/**
 * Order in which the features enter the hybrid model: the lexical model's
 * but `unknownShare` (`distantUnknownShare` weighs it there), then the dense
 * ones. Fitted with both, the unknown share and its product with the page
 * similarity took weights of opposite sign (-21.0 and +38.8), so that past a
 * page similarity of 0.54 more unknown words raised the score; alone, the
 * product keeps the score monotone in them, at the same figures on the fit
 * halves within a question or two.
 */
export const HYBRID_EVIDENCE_FEATURES: readonly (keyof EvidenceFeatures)[] = [
  ...EVIDENCE_FEATURES.filter((name) => name !== 'unknownShare'),
  ...DENSE_EVIDENCE_FEATURES,
];

/** Logistic coefficients: intercept and one weight per feature of a model. */
export type EvidenceCoefficients = { intercept: number } & Partial<EvidenceFeatures>;

/** Logistic coefficients of the lexical model (retrieval by BM25F alone: a server without the embedding model). */
export const EVIDENCE_COEFFICIENTS: EvidenceCoefficients = {
  intercept: -4.702,
  passageCoverage: 0.029,
  unknownShare: -3.656,
  normalizedScore: 0.686,
  sentenceCoverage: 2.499,
  phraseCoverage: 0.794,
  questionLength: 2.139,
  documentShare: 1.932,
  documentMargin: 1.782,
  headingShare: 0.913,
};

/**
 * Answers whose evidence score is below this are withheld: the service abstains.
 *
 * The score is a class-balanced probability, so 0.5 would weigh a wrong
 * answer and a needless abstention alike. A wrong answer costs more (it is
 * cited, so it reads as grounded; an abstention only asks the person to
 * rephrase): counting it twice as costly, the service answers when the odds
 * p / (1 - p) are at least 2, i.e. p >= 2/3 (the Bayes decision rule for
 * unequal costs; Duda, Hart & Stork, "Pattern Classification", 2nd ed.,
 * section 2.2). eval/README.md "Calibration" gives the resulting figures.
 */
export const DEFAULT_ABSTENTION_THRESHOLD = 2 / 3;

/**
 * Logistic coefficients of the hybrid model (retrieval by BM25F and dense
 * retrieval fused), fitted by `npm run calibrate` as the lexical model is,
 * on the same fit halves, over {@link HYBRID_EVIDENCE_FEATURES}. The dense features
 * carry most of its weight: an answering passage one of whose sentences
 * says what was asked (`sentenceSimilarity`, the largest weight), clearly
 * closer than any other page's passages (`similarityMargin`), is what a
 * right answer looks like; the passage's own `similarity`, given those,
 * counts against (a passage whose vector is close while none of its
 * sentences is, is a chance match), and so, slightly, does its page's
 * margin, which the passage's margin already carries (fitted without it,
 * the fit halves cite a gold page one question less often and the report
 * halves are unchanged). Report halves at the threshold (`npm run
 * calibrate`): Node.js 0.533 citing a gold page / 0.037 another,
 * Kubernetes q2 0.060 / 0.095, SQuAD open answerable 0.882, abstains on
 * absent 0.925.
 */
export const HYBRID_EVIDENCE_COEFFICIENTS: EvidenceCoefficients = {
  intercept: -3.294,
  passageCoverage: 1.654,
  normalizedScore: 0.301,
  sentenceCoverage: -1.512,
  phraseCoverage: 0.947,
  questionLength: -0.736,
  documentShare: 0.262,
  documentMargin: 0.153,
  headingShare: 0.196,
  similarity: -7.519,
  similarityMargin: 6.583,
  retrieverAgreement: 1.044,
  documentSimilarity: 1.112,
  documentSimilarityMargin: -1.207,
  distantUnknownShare: -7.927,
  sentenceSimilarity: 9.721,
};

/** Which model scores a retrieval: `hybrid` when dense retrieval took part (some passage has a similarity). */
export type EvidenceModel = 'lexical' | 'hybrid';

/**
 * @returns the probability (0..1) that the answer is supported
 */
export function evidenceScore(features: EvidenceFeatures, model: EvidenceModel = 'lexical'): number {
  const coefficients = model === 'hybrid' ? HYBRID_EVIDENCE_COEFFICIENTS : EVIDENCE_COEFFICIENTS;
  let z = coefficients.intercept;
  for (const name of model === 'hybrid' ? HYBRID_EVIDENCE_FEATURES : EVIDENCE_FEATURES) z += (coefficients[name] ?? 0) * features[name];
  return 1 / (1 + Math.exp(-z));
}
