/**
 * Answer-text normalisation of the official SQuAD evaluator
 * (`evaluate-v2.0.py`, rajpurkar/SQuAD-explorer, function `normalize_answer`):
 * lower case, punctuation removed, the articles "a", "an", "the" removed as
 * whole words, whitespace collapsed to single spaces.
 *
 * Python's `string.punctuation` is the 32 ASCII punctuation characters; the
 * official script removes exactly those (other symbols, e.g. curly quotes,
 * are kept), and so does {@link normalizeAnswer}.
 */

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** Python's `\b` in a str pattern is Unicode-aware: a word character is a letter, a digit or `_`. */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

/**
 * @param text any answer text
 * @returns the text as the SQuAD evaluator compares it
 */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(PUNCTUATION, '')
    .replace(ARTICLES, ' ')
    .split(/\s+/)
    .filter((word) => word !== '')
    .join(' ');
}

/**
 * Whether an answer contains a gold answer: some gold answer, normalised,
 * appears in the normalised answer as a run of whole words. A gold answer
 * that normalises to nothing (e.g. "the") never counts.
 *
 * @param answer the system's answer text (citation markers removed by the caller)
 * @param golds the gold answer texts
 */
export function containsGoldAnswer(answer: string, golds: readonly string[]): boolean {
  const haystack = ` ${normalizeAnswer(answer)} `;
  return golds.some((gold) => {
    const needle = normalizeAnswer(gold);
    return needle !== '' && haystack.includes(` ${needle} `);
  });
}
