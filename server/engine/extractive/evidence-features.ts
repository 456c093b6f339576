import type { DENSE_EVIDENCE_FEATURES, EvidenceFeatures } from '../ranking/evidence.ts';
import type { RerankedSearch } from '../ranking/passage-rerank.ts';
import type { ScoredPassage } from '../../store/store.ts';
import { QuestionPairs } from '../ranking/phrase-pairs.ts';

/**
 * Evidence features the extractive answerer reads off a search beside the
 * sentences it quotes (the evidence model is engine/ranking/evidence.ts):
 * the phrase coverage of a passage, the lexical margin of the first page,
 * and the dense features.
 */

/**
 * How far the first passage's retrieval score stands above the best passage
 * of any other document, as a share of it (1 when no other document was
 * retrieved; negative when re-ranking put a lower-scored passage first).
 */
export function documentMargin(best: ScoredPassage, passages: readonly ScoredPassage[]): number {
  // A first passage that only dense retrieval found has no lexical margin.
  if (best.score <= 0) return passages.some((passage) => passage.score > 0) ? -1 : 0;
  const other = passages.find((passage) => passage.docId !== best.docId);
  if (!other) return 1;
  return (best.score - other.score) / best.score;
}

/**
 * The dense evidence (engine/ranking/evidence.ts): the first passage's cosine
 * similarity to the question, its margin over the most similar passage of
 * another page, whether its page is first for each retriever (most
 * similar passage's page; highest BM25F passage's page), its page's
 * similarity and that one's margin over any other page's, the unknown
 * share weighted by the page's distance in meaning, and its best sentence's
 * similarity. All 0 when dense
 * retrieval did not take part.
 *
 * @param unknownShare the question's IDF-weighted share of terms no passage of the reach holds
 */
export function denseFeatures(best: ScoredPassage, search: RerankedSearch, unknownShare: number): Pick<EvidenceFeatures, (typeof DENSE_EVIDENCE_FEATURES)[number]> {
  const { passages } = search;
  const scored = passages.filter((passage) => passage.similarity !== undefined);
  if (scored.length === 0) return { similarity: 0, similarityMargin: 0, retrieverAgreement: 0, documentSimilarity: 0, documentSimilarityMargin: 0, distantUnknownShare: 0, sentenceSimilarity: 0 };
  const similarity = best.similarity ?? 0;
  const documentSimilarity = best.documentSimilarity ?? 0;
  const denseFirst = scored.reduce((top, passage) => (passage.similarity! > top.similarity! ? passage : top));
  const lexicalFirst = passages.reduce((top, passage) => (passage.score > top.score ? passage : top));
  const agreement = (denseFirst.docId === best.docId ? 0.5 : 0) + (lexicalFirst.score > 0 && lexicalFirst.docId === best.docId ? 0.5 : 0);
  return {
    similarity,
    similarityMargin: similarity - search.otherPages.similarity,
    retrieverAgreement: agreement,
    documentSimilarity,
    documentSimilarityMargin: documentSimilarity - search.otherPages.documentSimilarity,
    distantUnknownShare: unknownShare * (1 - Math.min(1, Math.max(0, documentSimilarity))),
    sentenceSimilarity: best.sentenceSimilarity ?? 0,
  };
}

/**
 * Share of the question's adjacent term pairs (consecutive analyzed terms,
 * stop words already dropped) that are also adjacent somewhere in the
 * passage's analyzed text: a phrase-level match, which BM25's bag of words
 * cannot see.
 *
 * @param questionTerms the question's distinct analyzed terms, in question order
 * @param passageTerms analyzed text, in order, duplicates kept
 * @returns a share in 0..1; 0 for a question of fewer than two terms
 */
export function phraseCoverage(questionTerms: readonly string[], passageTerms: readonly string[]): number {
  return new QuestionPairs(questionTerms).coverage(passageTerms);
}
