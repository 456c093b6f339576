import { isReplacementSection, sectionDeprecation } from '../passages/deprecation.ts';
import type { RerankedSearch } from './passage-rerank.ts';
import { analyze } from '../../retrieval/analyzer.ts';
import { REPLACEMENT_SEARCH_DEPTH } from '../../retrieval/retrieval-plan.ts';
import type { Retriever } from '../../retrieval/retriever.ts';
import type { Reach, ScoredPassage } from '../../store/store.ts';

/**
 * The recommended API first: when the best passage's section is marked
 * deprecated and the docs name its replacement (engine/passages/deprecation.ts), the
 * replacement's section takes the first place - found among the retrieved
 * passages, or else by searching the reach for the replacement's name - and
 * the deprecated section steps down to second. The relevance list is left
 * as it was (the first place keeps the first relevance), so the answerer
 * anchors on the replacement; the deprecated section stays a candidate, and
 * an answer that quotes it says so (engine/extractive/answer-composition.ts). When the
 * replacement's section cannot be found, the order is kept: nothing else
 * is known to do what was asked.
 *
 * @param search the second stage's result (engine/ranking/passage-rerank.ts)
 * @param retriever searched for the replacement's name when no retrieved passage is its section
 * @returns the search, re-ordered when the rule applied (a new object), else as given
 * @throws StoreUnavailableError from the retriever
 */
export async function preferRecommended(search: RerankedSearch, retriever: Retriever, reach: Reach): Promise<RerankedSearch> {
  const first = search.passages[0];
  const deprecation = first ? sectionDeprecation(first, search.passages) : undefined;
  if (!first || !deprecation?.replacementSubject) return search;
  let replacement: ScoredPassage | undefined = search.passages.find((passage) => isReplacementSection(passage, deprecation));
  if (!replacement) {
    const terms = [...new Set(analyze(deprecation.replacementSubject))];
    if (terms.length === 0) return search;
    const found = await retriever.search({ reach, terms, topK: REPLACEMENT_SEARCH_DEPTH });
    replacement = found.passages.find((passage) => isReplacementSection(passage, deprecation));
    if (!replacement) return search;
  }
  const chosen = replacement;
  const rest = search.passages.filter((passage) => passage.chunkId !== chosen.chunkId);
  const passages = [chosen, ...rest].slice(0, Math.max(search.passages.length, 1));
  return { ...search, passages, relevance: search.relevance.slice(0, passages.length) };
}
