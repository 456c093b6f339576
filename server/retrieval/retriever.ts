import type { Reach, ScoredPassage } from '../store/store.ts';

/**
 * The seam between answering and finding passages (docs/design-decisions.md "The engine":
 * the engine reaches passages only through a `Retriever`). The lexical
 * retriever (retrieval/lexical-retriever.ts), the dense retriever
 * (retrieval/dense-retriever.ts) and their fusion (retrieval/hybrid-retriever.ts)
 * implement it.
 */

/** One search: analyzed query terms, within a reach. */
export interface RetrievalQuery {
  /** Whose documents may be searched. */
  reach: Reach;
  /** Analyzed, distinct query terms (retrieval/analyzer.ts), in question order. */
  terms: readonly string[];
  /**
   * Weight of a term (0..1) when it is not 1: an expansion of the question's
   * own terms counts for less than them. Terms absent here weigh 1.
   */
  termWeights?: ReadonlyMap<string, number>;
  /** Passages to return, best first. */
  topK: number;
  /** The question as asked, for a retriever that reads it whole (dense retrieval embeds it); lexical retrieval reads `terms`. */
  question?: string;
}

/** What a search returns: the passages and the statistics the answerer weighs terms with. */
export interface SearchResult {
  /** Best first, at most `topK`, all inside the reach. */
  passages: ScoredPassage[];
  /**
   * Passages inside the reach (N of the IDF). Every statistic here is
   * computed within the reach, never over the whole knowledge base, so that
   * no answer depends on documents the question cannot reach (docs/design-decisions.md
   * "Access rules"; server/access-rules.property.test.ts).
   */
  passageCount: number;
  /** Query term -> passages inside the reach holding it (0 when none does). */
  documentFrequencies: Record<string, number>;
}

/** Finds the passages that best match a query, inside its reach. */
export interface Retriever {
  /**
   * @returns the best `topK` passages inside the reach, with their scores and the reach's statistics
   * @throws StoreUnavailableError when the index cannot be read
   */
  search(query: RetrievalQuery): Promise<SearchResult>;
}
