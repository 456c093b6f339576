import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DEFAULT_ABSTENTION_THRESHOLD, evidenceScore, type EvidenceFeatures } from './evidence.ts';

/** A weight share in 0..1. */
const share = fc.double({ min: 0, max: 1, noNaN: true });
const features = fc.record({ passageCoverage: share, sentenceCoverage: share, unknownShare: share });

describe('evidenceScore', () => {
  test('question fully covered, nothing unknown: z = -4 + 6 + 3 = 5, score 1 / (1 + e^-5)', () => {
    const score = evidenceScore({ passageCoverage: 1, sentenceCoverage: 1, unknownShare: 0 });

    expect(score).toBeCloseTo(1 / (1 + Math.exp(-5)), 12);
    expect(score).toBeGreaterThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('nothing covered, everything unknown: z = -8, far below the abstention threshold', () => {
    const score = evidenceScore({ passageCoverage: 0, sentenceCoverage: 0, unknownShare: 1 });

    expect(score).toBeCloseTo(1 / (1 + Math.exp(8)), 12);
    expect(score).toBeLessThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('half the question covered by passage and sentence: z = -4 + 3 + 1.5 = 0.5, just above the threshold', () => {
    const score = evidenceScore({ passageCoverage: 0.5, sentenceCoverage: 0.5, unknownShare: 0 });

    expect(score).toBeCloseTo(1 / (1 + Math.exp(-0.5)), 12);
    expect(score).toBeGreaterThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('full coverage but a third of the weight unknown to the knowledge base: score lowered', () => {
    const known = evidenceScore({ passageCoverage: 1, sentenceCoverage: 1, unknownShare: 0 });

    const withUnknown = evidenceScore({ passageCoverage: 1, sentenceCoverage: 1, unknownShare: 1 / 3 });

    expect(withUnknown).toBeLessThan(known);
    expect(withUnknown).toBeCloseTo(1 / (1 + Math.exp(-(5 - 4 / 3))), 12);
  });

  test('any features in 0..1: score strictly between 0 and 1', () => {
    fc.assert(
      fc.property(features, (sample) => {
        const score = evidenceScore(sample);

        expect(score).toBeGreaterThan(0);
        expect(score).toBeLessThan(1);
      }),
    );
  });

  test.each(['passageCoverage', 'sentenceCoverage'] as const)('raising %s: never lowers the score', (feature) => {
    fc.assert(
      fc.property(features, share, share, (sample, first, second) => {
        const [lower, higher] = first <= second ? [first, second] : [second, first];
        const before: EvidenceFeatures = { ...sample, [feature]: lower };
        const after: EvidenceFeatures = { ...sample, [feature]: higher };

        expect(evidenceScore(after)).toBeGreaterThanOrEqual(evidenceScore(before));
      }),
    );
  });

  test('raising unknownShare: never raises the score', () => {
    fc.assert(
      fc.property(features, share, share, (sample, first, second) => {
        const [lower, higher] = first <= second ? [first, second] : [second, first];

        const before = evidenceScore({ ...sample, unknownShare: lower });
        const after = evidenceScore({ ...sample, unknownShare: higher });

        expect(after).toBeLessThanOrEqual(before);
      }),
    );
  });

  test('clearly better coverage (by 0.1): strictly higher score', () => {
    fc.assert(
      fc.property(features, (sample) => {
        const base = { ...sample, passageCoverage: sample.passageCoverage * 0.9 };

        const better = evidenceScore({ ...base, passageCoverage: base.passageCoverage + 0.1 });

        expect(better).toBeGreaterThan(evidenceScore(base));
      }),
    );
  });
});
