/**
 * Curated answers: question-answer pairs an editor wrote, answered as they
 * are (`qa_shortcut`) when a visitor asks the question. Their SQL is in
 * curated-answer-repository.ts.
 */

/** A curated question/answer pair (`qa_shortcut`). */
export interface FaqPair {
  question: string;
  answer: string;
  /** Documents (and optionally a heading inside them) the answer cites. */
  sources: { docId: string; heading?: string }[];
}

/** A stored curated pair with its id (stable until the pairs are replaced by `kb faq import`). */
export interface CuratedAnswer extends FaqPair {
  id: number;
}

/** Curated question-answer pairs (`qa_shortcut`). */
export interface CuratedAnswerRepository {
  /** Replaces the curated pairs of a KB in one transaction. */
  replaceFaq(kbId: string, pairs: FaqPair[]): Promise<void>;
  /** The pairs in order: as imported, then those added one by one. */
  listFaq(kbId: string): Promise<CuratedAnswer[]>;
  /**
   * Adds a pair after the others.
   *
   * @throws NotFoundError when the knowledge base does not exist
   */
  addFaqPair(kbId: string, pair: FaqPair): Promise<CuratedAnswer>;
  /** Replaces one pair's question, answer and sources; false when the knowledge base has no pair `id`. */
  updateFaqPair(kbId: string, id: number, pair: FaqPair): Promise<boolean>;
  /** Removes one pair; false when the knowledge base has no pair `id`. */
  removeFaqPair(kbId: string, id: number): Promise<boolean>;
}
