/**
 * ROUGE-L (C.-Y. Lin, "ROUGE: A Package for Automatic Evaluation of
 * Summaries", ACL Workshop 2004, section 3.1): with LCS the length of the
 * longest common subsequence of the candidate's and the reference's tokens,
 * recall R = LCS / |reference|, precision P = LCS / |candidate| and
 * F = (1 + β²) R P / (R + β² P). As Google's `rouge-score` package does,
 * β = 1 (F = 2 P R / (P + R)) and tokens are its default tokenizer's:
 * lower case, every run of characters other than `a-z0-9` a separator, no
 * stemming.
 */

/**
 * @param text any text
 * @returns `rouge-score`'s default tokens
 */
export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token !== '');
}

/**
 * Length of the longest common subsequence, by dynamic programming in
 * O(|left| × |right|) time and O(|right|) memory.
 */
export function longestCommonSubsequence(left: readonly string[], right: readonly string[]): number {
  let previous = new Array<number>(right.length + 1).fill(0);
  for (const token of left) {
    const current = new Array<number>(right.length + 1).fill(0);
    for (let column = 1; column <= right.length; column += 1) {
      current[column] =
        right[column - 1] === token ? previous[column - 1]! + 1 : Math.max(previous[column]!, current[column - 1]!);
    }
    previous = current;
  }
  return previous[right.length]!;
}

/**
 * @param candidate the system's text
 * @param reference the reference text
 * @returns ROUGE-L F1 in 0..1; 0 when either text has no token
 */
export function rougeL(candidate: string, reference: string): number {
  const candidateTokens = rougeTokens(candidate);
  const referenceTokens = rougeTokens(reference);
  if (candidateTokens.length === 0 || referenceTokens.length === 0) return 0;
  const common = longestCommonSubsequence(candidateTokens, referenceTokens);
  if (common === 0) return 0;
  const precision = common / candidateTokens.length;
  const recall = common / referenceTokens.length;
  return (2 * precision * recall) / (precision + recall);
}
