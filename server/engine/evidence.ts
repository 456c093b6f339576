/**
 * The evidence score: how likely it is that the selected passages answer the
 * question, as a probability in 0..1, and the abstention threshold on it.
 *
 * A logistic model (Platt scaling: J. Platt, "Probabilistic outputs for
 * support vector machines", 1999) over three features of the question's
 * IDF-weighted terms:
 * - `passageCoverage`: weight share of the question terms found in the best
 *   passage (text or heading path);
 * - `sentenceCoverage`: weight share found in the sentences the answer quotes;
 * - `unknownShare`: weight share of question terms that no passage of the
 *   knowledge base contains at all (a strong sign the question is off-topic).
 * The coefficients are fitted by `npm run eval` (README, "Calibration").
 */

/** Features of one candidate answer, each a weight share in 0..1. */
export interface EvidenceFeatures {
  passageCoverage: number;
  sentenceCoverage: number;
  unknownShare: number;
}

/** Logistic coefficients: intercept and one weight per feature. */
export const EVIDENCE_COEFFICIENTS = {
  intercept: -4,
  passageCoverage: 6,
  sentenceCoverage: 3,
  unknownShare: -4,
} as const;

/** Answers whose evidence score is below this are withheld: the service abstains. */
export const DEFAULT_ABSTENTION_THRESHOLD = 0.5;

/**
 * @returns the probability (0..1) that the answer is supported
 */
export function evidenceScore(features: EvidenceFeatures): number {
  const z =
    EVIDENCE_COEFFICIENTS.intercept +
    EVIDENCE_COEFFICIENTS.passageCoverage * features.passageCoverage +
    EVIDENCE_COEFFICIENTS.sentenceCoverage * features.sentenceCoverage +
    EVIDENCE_COEFFICIENTS.unknownShare * features.unknownShare;
  return 1 / (1 + Math.exp(-z));
}
