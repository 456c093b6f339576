/**
 * The question's adjacent term pairs (consecutive analyzed terms, stop words
 * already dropped) and where a text holds them side by side, in order: the
 * ordered-bigram evidence of the sequential dependence model (D. Metzler &
 * W. B. Croft, "A Markov random field model for term dependencies", SIGIR
 * 2005), which BM25's bag of words cannot see.
 *
 * Built once per question and matched against many texts without
 * allocating: question terms are distinct, so each term starts at most one
 * pair.
 */
export class QuestionPairs {
  /** The question's distinct analyzed terms, in question order. */
  readonly terms: readonly string[];
  /** Number of pairs: `terms.length - 1`, or 0. */
  readonly count: number;
  /** First term of a pair -> index of its second term in {@link terms}. */
  readonly #secondOf = new Map<string, number>();
  /** Per pair (indexed by its second term's index), the stamp of the last match that found it. */
  readonly #foundAt: Uint32Array;
  #stamp = 0;

  /** @param questionTerms the question's distinct analyzed terms, in question order */
  constructor(questionTerms: readonly string[]) {
    this.terms = questionTerms;
    this.count = Math.max(0, questionTerms.length - 1);
    for (let index = 1; index < questionTerms.length; index += 1) this.#secondOf.set(questionTerms[index - 1]!, index);
    this.#foundAt = new Uint32Array(questionTerms.length);
  }

  /**
   * Visits each of the question's pairs that the text holds side by side,
   * once per pair.
   *
   * @param textTerms analyzed text, in order, duplicates kept
   * @param visit called with the index (1..count) of the pair's second term
   */
  forEachFound(textTerms: readonly string[], visit: (secondIndex: number) => void): void {
    if (this.count === 0) return;
    this.#stamp += 1;
    for (let index = 1; index < textTerms.length; index += 1) {
      const second = this.#secondOf.get(textTerms[index - 1]!);
      if (second !== undefined && textTerms[index] === this.terms[second] && this.#foundAt[second] !== this.#stamp) {
        this.#foundAt[second] = this.#stamp;
        visit(second);
      }
    }
  }

  /**
   * @param textTerms analyzed text, in order, duplicates kept
   * @returns the share (0..1) of the question's pairs the text holds side
   *   by side; 0 for a question of fewer than two terms
   */
  coverage(textTerms: readonly string[]): number {
    if (this.count === 0) return 0;
    let found = 0;
    this.forEachFound(textTerms, () => {
      found += 1;
    });
    return found / this.count;
  }
}
