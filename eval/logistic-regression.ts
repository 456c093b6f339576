/**
 * Binary logistic regression fitted by Newton's method (iteratively
 * reweighted least squares; Hastie, Tibshirani & Friedman, "The Elements of
 * Statistical Learning", 2nd ed., section 4.4.1), with optional per-example
 * weights and a small L2 penalty that keeps the fit finite when the classes
 * separate.
 */

/** A fitted model: `p(y = 1 | x) = 1 / (1 + exp(-(intercept + Σ weights[i] x[i])))`. */
export interface LogisticModel {
  intercept: number;
  weights: number[];
}

export interface LogisticOptions {
  /** Per-example weights (default 1 each), e.g. to balance the classes. */
  exampleWeights?: readonly number[];
  /** L2 penalty on the feature weights (not the intercept). Default 1e-3. */
  l2?: number;
  /** Newton steps at most. Default 50. */
  maxIterations?: number;
}

/** @returns the model's probability for one feature vector */
export function predictProbability(model: LogisticModel, features: readonly number[]): number {
  let z = model.intercept;
  model.weights.forEach((weight, index) => {
    z += weight * (features[index] ?? 0);
  });
  return 1 / (1 + Math.exp(-z));
}

/**
 * @param features one vector per example, all the same length
 * @param labels 0 or 1 per example
 * @throws RangeError when the inputs are empty or their lengths differ
 */
export function fitLogisticRegression(
  features: readonly (readonly number[])[],
  labels: readonly number[],
  options: LogisticOptions = {},
): LogisticModel {
  const count = features.length;
  if (count === 0 || labels.length !== count) throw new RangeError('Need one label per example and at least one example');
  const dimension = features[0]!.length + 1;
  const l2 = options.l2 ?? 1e-3;
  const exampleWeights = options.exampleWeights ?? features.map(() => 1);
  let beta: number[] = new Array(dimension).fill(0);
  const row = (index: number): number[] => [1, ...features[index]!];

  for (let iteration = 0; iteration < (options.maxIterations ?? 50); iteration += 1) {
    const gradient: number[] = new Array(dimension).fill(0);
    const hessian: number[][] = Array.from({ length: dimension }, () => new Array(dimension).fill(0));
    for (let index = 0; index < count; index += 1) {
      const x = row(index);
      const p = 1 / (1 + Math.exp(-x.reduce((sum, value, k) => sum + value * beta[k]!, 0)));
      const weight = exampleWeights[index]!;
      for (let k = 0; k < dimension; k += 1) {
        gradient[k]! += weight * (labels[index]! - p) * x[k]!;
        for (let j = 0; j < dimension; j += 1) hessian[k]![j]! += weight * p * (1 - p) * x[k]! * x[j]!;
      }
    }
    for (let k = 1; k < dimension; k += 1) {
      gradient[k]! -= l2 * beta[k]!;
      hessian[k]![k]! += l2;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((value, k) => value + step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return { intercept: beta[0]!, weights: beta.slice(1) };
}

/** Solves `A x = b` by Gaussian elimination with partial pivoting. */
function solve(matrix: number[][], vector: number[]): number[] {
  const size = vector.length;
  const a = matrix.map((line, index) => [...line, vector[index]!]);
  for (let column = 0; column < size; column += 1) {
    let pivot = column;
    for (let candidate = column + 1; candidate < size; candidate += 1) {
      if (Math.abs(a[candidate]![column]!) > Math.abs(a[pivot]![column]!)) pivot = candidate;
    }
    [a[column], a[pivot]] = [a[pivot]!, a[column]!];
    const lead = a[column]![column]!;
    if (Math.abs(lead) < 1e-12) continue;
    for (let other = 0; other < size; other += 1) {
      if (other === column) continue;
      const factor = a[other]![column]! / lead;
      for (let k = column; k <= size; k += 1) a[other]![k]! -= factor * a[column]![k]!;
    }
  }
  return a.map((line, index) => (Math.abs(line[index]!) < 1e-12 ? 0 : line[size]! / line[index]!));
}

/**
 * Area under the ROC curve: the probability that a random positive scores
 * above a random negative, ties counting half (Mann-Whitney U / (n+ n-)).
 *
 * @throws RangeError when either class is empty
 */
export function areaUnderRoc(positiveScores: readonly number[], negativeScores: readonly number[]): number {
  if (positiveScores.length === 0 || negativeScores.length === 0) throw new RangeError('Need scores of both classes');
  const all = [
    ...positiveScores.map((score) => ({ score, positive: true })),
    ...negativeScores.map((score) => ({ score, positive: false })),
  ].sort((left, right) => left.score - right.score);
  let rankSum = 0;
  for (let start = 0; start < all.length; ) {
    let end = start;
    while (end + 1 < all.length && all[end + 1]!.score === all[start]!.score) end += 1;
    const averageRank = (start + end) / 2 + 1;
    for (let index = start; index <= end; index += 1) if (all[index]!.positive) rankSum += averageRank;
    start = end + 1;
  }
  const positives = positiveScores.length;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negativeScores.length);
}
