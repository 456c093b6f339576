/**
 * The evidence score: how likely it is that the retrieved passages answer the
 * question, as a probability in 0..1, and the abstention threshold on it.
 *
 * A logistic model (Platt scaling: J. Platt, "Probabilistic outputs for
 * support vector machines", 1999) over four features of the question's terms,
 * each in 0..1:
 * - `passageCoverage`: IDF-weighted share of the question terms found in the
 *   best-covering passage (text or heading path);
 * - `termCoverage`: unweighted share of the question terms found in the best
 *   BM25 passage;
 * - `unknownShare`: IDF-weighted share of question terms that no passage of
 *   the knowledge base contains (a strong sign the question is off-topic);
 * - `normalizedScore`: the best passage's BM25 score divided by the most any
 *   passage could score for these terms (Σ IDF × (k1 + 1)).
 *
 * Coefficients fitted by `npm run calibrate` (eval/calibrate-evidence.ts) on
 * SQuAD 2.0 under the open protocol, class-balanced, on the odd-positioned
 * articles; README "Calibration" gives the method and the report-set figures.
 */

/** Features of one candidate answer, each in 0..1. */
export interface EvidenceFeatures {
  passageCoverage: number;
  termCoverage: number;
  unknownShare: number;
  normalizedScore: number;
}

/** Order in which the features enter the model. */
export const EVIDENCE_FEATURES: readonly (keyof EvidenceFeatures)[] = [
  'passageCoverage',
  'termCoverage',
  'unknownShare',
  'normalizedScore',
];

/** Logistic coefficients: intercept and one weight per feature. */
export const EVIDENCE_COEFFICIENTS: { intercept: number } & EvidenceFeatures = {
  intercept: -7.14,
  passageCoverage: 4.124,
  termCoverage: 2.176,
  unknownShare: -7.639,
  normalizedScore: 11.815,
};

/** Answers whose evidence score is below this are withheld: the service abstains. */
export const DEFAULT_ABSTENTION_THRESHOLD = 0.5;

/**
 * @returns the probability (0..1) that the answer is supported
 */
export function evidenceScore(features: EvidenceFeatures): number {
  let z = EVIDENCE_COEFFICIENTS.intercept;
  for (const name of EVIDENCE_FEATURES) z += EVIDENCE_COEFFICIENTS[name] * features[name];
  return 1 / (1 + Math.exp(-z));
}
