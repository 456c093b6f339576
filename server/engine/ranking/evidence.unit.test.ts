import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  DEFAULT_ABSTENTION_THRESHOLD,
  EVIDENCE_COEFFICIENTS,
  EVIDENCE_FEATURES,
  evidenceScore,
  HYBRID_EVIDENCE_FEATURES,
  type EvidenceFeatures,
} from './evidence.ts';

/** A share in 0..1. */
const share = fc.double({ min: 0, max: 1, noNaN: true });
const features = fc.record({
  passageCoverage: share,
  unknownShare: share,
  normalizedScore: share,
  sentenceCoverage: share,
  phraseCoverage: share,
  questionLength: share,
  documentShare: share,
  documentMargin: fc.double({ min: -1, max: 1, noNaN: true }),
  headingShare: share,
  similarity: fc.double({ min: -1, max: 1, noNaN: true }),
  similarityMargin: fc.double({ min: -2, max: 2, noNaN: true }),
  retrieverAgreement: fc.constantFrom(0, 0.5, 1),
  documentSimilarity: fc.double({ min: -1, max: 1, noNaN: true }),
  documentSimilarityMargin: fc.double({ min: -2, max: 2, noNaN: true }),
  distantUnknownShare: share,
  sentenceSimilarity: fc.double({ min: -1, max: 1, noNaN: true }),
});

/** Features with every value given, the others 0. */
function featuresOf(values: Partial<EvidenceFeatures>): EvidenceFeatures {
  return {
    passageCoverage: 0,
    unknownShare: 0,
    normalizedScore: 0,
    sentenceCoverage: 0,
    phraseCoverage: 0,
    questionLength: 0,
    documentShare: 0,
    documentMargin: 0,
    headingShare: 0,
    similarity: 0,
    similarityMargin: 0,
    retrieverAgreement: 0,
    documentSimilarity: 0,
    documentSimilarityMargin: 0,
    distantUnknownShare: 0,
    sentenceSimilarity: 0,
    ...values,
  };
}

/** The logistic function written out, independently of the code under test. */
function logistic(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

describe('evidenceScore', () => {
  test('every feature at 0: the logistic of the intercept', () => {
    const score = evidenceScore(featuresOf({}));

    expect(score).toBeCloseTo(logistic(EVIDENCE_COEFFICIENTS.intercept), 12);
  });

  test('question fully covered by a passage scoring the most it could, nothing unknown: sum of the positive weights, answered', () => {
    const score = evidenceScore(
      featuresOf({
        passageCoverage: 1,
        normalizedScore: 1,
        sentenceCoverage: 1,
        phraseCoverage: 1,
        questionLength: 1,
        documentShare: 1,
        documentMargin: 1,
        headingShare: 1,
      }),
    );

    const { intercept, unknownShare, ...weights } = EVIDENCE_COEFFICIENTS;
    const positive = Object.values(weights).reduce((total, weight) => total + weight, 0);
    expect(unknownShare).toBeLessThan(0);
    expect(score).toBeCloseTo(logistic(intercept + positive), 12);
    expect(score).toBeGreaterThan(0.99);
  });

  test('short question fully covered by one sentence of a well-scored passage of a page well ahead of the others: answered', () => {
    const score = evidenceScore(
      featuresOf({ passageCoverage: 1, normalizedScore: 0.6, sentenceCoverage: 1, phraseCoverage: 1, questionLength: 0.3, documentShare: 0.7, documentMargin: 0.5 }),
    );

    expect(score).toBeGreaterThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('nothing covered, every term unknown to the knowledge base: abstained', () => {
    const score = evidenceScore(featuresOf({ unknownShare: 1 }));

    expect(score).toBeLessThan(0.001);
  });

  test('the same question when several pages score level with the first: abstained', () => {
    const ahead = featuresOf({ passageCoverage: 1, normalizedScore: 0.6, sentenceCoverage: 1, phraseCoverage: 1, questionLength: 0.3, documentShare: 0.7, documentMargin: 0.5 });
    const level = { ...ahead, documentShare: 0.2, documentMargin: 0 };

    expect(evidenceScore(level)).toBeLessThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('fully covered passage but half the question unknown to the knowledge base: below the threshold', () => {
    const score = evidenceScore(
      featuresOf({ passageCoverage: 0.5, unknownShare: 0.5, normalizedScore: 0.4, sentenceCoverage: 0.5, questionLength: 0.4, documentShare: 0.5 }),
    );

    expect(score).toBeLessThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('any features: a probability strictly between 0 and 1', () => {
    fc.assert(
      fc.property(features, (values: EvidenceFeatures) => {
        const score = evidenceScore(values);
        return score > 0 && score < 1;
      }),
    );
  });

  test.each([
    'passageCoverage',
    'normalizedScore',
    'sentenceCoverage',
    'phraseCoverage',
    'questionLength',
    'documentShare',
    'documentMargin',
    'headingShare',
  ] as const)('raising %s: never lowers the score', (feature) => {
    fc.assert(
      fc.property(features, share, (values, raised) => {
        fc.pre(raised >= values[feature]);
        return evidenceScore({ ...values, [feature]: raised }) >= evidenceScore(values);
      }),
    );
  });

  test('raising unknownShare: never raises the score', () => {
    fc.assert(
      fc.property(features, share, (values, raised) => {
        fc.pre(raised >= values.unknownShare);
        return evidenceScore({ ...values, unknownShare: raised }) <= evidenceScore(values);
      }),
    );
  });

  test('feature list: names every feature of the model once', () => {
    expect([...EVIDENCE_FEATURES].sort()).toEqual([
      'documentMargin',
      'documentShare',
      'headingShare',
      'normalizedScore',
      'passageCoverage',
      'phraseCoverage',
      'questionLength',
      'sentenceCoverage',
      'unknownShare',
    ]);
  });
});

describe('the hybrid evidence model (dense retrieval took part)', () => {
  test.each(['similarityMargin', 'retrieverAgreement', 'documentSimilarity', 'sentenceSimilarity'] as const)('raising %s: never lowers the score', (feature) => {
    fc.assert(
      fc.property(features, fc.double({ min: -1, max: 2, noNaN: true }), (values, raised) => {
        fc.pre(raised >= values[feature]);
        return evidenceScore({ ...values, [feature]: raised }, 'hybrid') >= evidenceScore(values, 'hybrid');
      }),
    );
  });

  test('a closer answering passage (its best sentence, its margin over other pages and its page\'s similarity rising with it): never lowers the score', () => {
    // The answering passage is one of its page's best 3, so its page's similarity rises by at least a third as much.
    fc.assert(
      fc.property(features, fc.double({ min: 0, max: 1, noNaN: true }), (values, raise) => {
        const closer = {
          ...values,
          similarity: values.similarity + raise,
          similarityMargin: values.similarityMargin + raise,
          sentenceSimilarity: values.sentenceSimilarity + raise,
          documentSimilarity: values.documentSimilarity + raise / 3,
          documentSimilarityMargin: values.documentSimilarityMargin + raise / 3,
        };
        return evidenceScore(closer, 'hybrid') >= evidenceScore(values, 'hybrid');
      }),
    );
  });

  test('a paraphrase that shares few words but whose page is clearly the closest in meaning clears the threshold', () => {
    const paraphrase = featuresOf({
      passageCoverage: 0.4,
      normalizedScore: 0.3,
      sentenceCoverage: 0.3,
      questionLength: 0.5,
      documentShare: 0.8,
      similarity: 0.65,
      similarityMargin: 0.25,
      retrieverAgreement: 1,
      documentSimilarity: 0.55,
      documentSimilarityMargin: 0.15,
      sentenceSimilarity: 0.7,
    });
    expect(evidenceScore(paraphrase, 'hybrid')).toBeGreaterThanOrEqual(DEFAULT_ABSTENTION_THRESHOLD);
    // The same page and passage, but none of its sentences near the question: a chance match, withheld.
    expect(evidenceScore({ ...paraphrase, sentenceSimilarity: 0.4 }, 'hybrid')).toBeLessThan(DEFAULT_ABSTENTION_THRESHOLD);
    // The lexical model, which cannot see meaning, abstains on the same words.
    expect(evidenceScore(paraphrase, 'lexical')).toBeLessThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('a question whose words are unknown to the knowledge base and whose nearest page is far: below the threshold', () => {
    const offTopic = featuresOf({
      passageCoverage: 0.3,
      unknownShare: 0.7,
      distantUnknownShare: 0.7 * (1 - 0.25),
      sentenceCoverage: 0.3,
      questionLength: 0.4,
      documentShare: 0.5,
      similarity: 0.3,
      similarityMargin: 0.02,
      documentSimilarity: 0.25,
      documentSimilarityMargin: 0.01,
      sentenceSimilarity: 0.35,
    });
    expect(evidenceScore(offTopic, 'hybrid')).toBeLessThan(DEFAULT_ABSTENTION_THRESHOLD);
  });

  test('feature list: the lexical features but the unknown share, then the dense ones, the distant unknown share among them', () => {
    expect(HYBRID_EVIDENCE_FEATURES).toEqual([
      ...EVIDENCE_FEATURES.filter((name) => name !== 'unknownShare'),
      'similarity',
      'similarityMargin',
      'retrieverAgreement',
      'documentSimilarity',
      'documentSimilarityMargin',
      'distantUnknownShare',
      'sentenceSimilarity',
    ]);
  });

  test('more words the knowledge base never uses never raise the score, and lower it less the closer the page is in meaning', () => {
    fc.assert(
      fc.property(features, share, share, fc.double({ min: 0, max: 1, noNaN: true }), (values, unknown, more, similarity) => {
        fc.pre(more >= unknown);
        // Compared as log-odds, where the model is linear.
        const at = (share: number, pageSimilarity: number) => {
          const score = evidenceScore({ ...values, unknownShare: share, documentSimilarity: pageSimilarity, distantUnknownShare: share * (1 - pageSimilarity) }, 'hybrid');
          return Math.log(score / (1 - score));
        };
        const closer = Math.min(1, similarity + 0.2);
        return at(more, similarity) <= at(unknown, similarity) + 1e-9 && at(unknown, similarity) - at(more, similarity) >= at(unknown, closer) - at(more, closer) - 1e-9;
      }),
    );
  });
});
