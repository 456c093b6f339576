import { describe, expect, test } from 'vitest';
import { areaUnderRoc, fitLogisticRegression, predictProbability } from './logistic-regression.ts';

describe('fitLogisticRegression', () => {
  test('one feature, overlapping classes: recovers the maximum-likelihood fit', () => {
    // x = 0: labels 0,0,0,1 (p = 1/4); x = 1: labels 0,1,1,1 (p = 3/4).
    // The MLE is intercept = ln(1/3), weight = ln(9): p(0) = 1/4, p(1) = 3/4.
    const features = [[0], [0], [0], [0], [1], [1], [1], [1]];
    const labels = [0, 0, 0, 1, 0, 1, 1, 1];

    const model = fitLogisticRegression(features, labels, { l2: 0 });

    expect(model.intercept).toBeCloseTo(Math.log(1 / 3), 6);
    expect(model.weights[0]).toBeCloseTo(Math.log(9), 6);
    expect(predictProbability(model, [1])).toBeCloseTo(0.75, 6);
  });

  test('example weights: doubling the weight of the positives doubles their odds', () => {
    const features = [[0], [0], [0], [0]];
    const labels = [0, 0, 0, 1];

    const model = fitLogisticRegression(features, labels, { l2: 0, exampleWeights: [1, 1, 1, 2] });

    // Weighted share of positives: 2 / 5.
    expect(predictProbability(model, [0])).toBeCloseTo(2 / 5, 6);
  });

  test('separable classes: the L2 penalty keeps the weights finite', () => {
    const model = fitLogisticRegression([[0], [1]], [0, 1]);

    expect(Number.isFinite(model.weights[0])).toBe(true);
    expect(predictProbability(model, [1])).toBeGreaterThan(0.9);
  });
});

describe('areaUnderRoc', () => {
  test('perfect separation: 1; reversed: 0', () => {
    expect(areaUnderRoc([3, 4], [1, 2])).toBe(1);
    expect(areaUnderRoc([1, 2], [3, 4])).toBe(0);
  });

  test('hand-computed case with a tie: pairs won plus half the ties', () => {
    // Pairs (p, n): (0.8,0.5) win, (0.8,0.8) tie, (0.4,0.5) loss, (0.4,0.8) loss -> (1 + 0.5) / 4.
    expect(areaUnderRoc([0.8, 0.4], [0.5, 0.8])).toBeCloseTo(0.375, 12);
  });
});
