import { LRUCache } from 'lru-cache';
import { rescaleSimilarity, type QueryEmbedder } from './dense-retriever.ts';
import { RERANK_DEPTH } from './retrieval-plan.ts';
import type { RetrievalQuery, Retriever, SearchResult } from './retriever.ts';
import { dot } from '../embedding/embedder.ts';
import { embeddingTextHash, sentenceEmbeddingTexts } from '../embedding/passage-text.ts';
import type { ScoredPassage, Store } from '../store/store.ts';

/**
 * Sentence similarity: for each of the passages a search returns first,
 * the highest cosine similarity of one of its sentences to the question
 * (`ScoredPassage.sentenceSimilarity`). A passage vector averages what a
 * section says; a visitor's question usually asks for one thing it says -
 * "create a directory together with its missing parent directories" is one
 * sentence of `fs.mkdir`'s section - so the best sentence tells which of a
 * page's passages answers, and how surely (the second stage re-orders the
 * first page's passages by it, engine/ranking/passage-rerank.ts; the
 * evidence model weighs it, engine/ranking/evidence.ts). Sentences as units
 * of dense retrieval: Chen et al., "Dense X Retrieval", EMNLP 2024; here
 * they score what was retrieved, where as retrieval units alone they ranked
 * pages worse (eval/README.md "Where the documentation questions are lost").
 *
 * The sentences' vectors are computed with the passages' by the background
 * sweep (embedding/embed-passages.ts) and read from the embedding cache by
 * the hash of their text: at most {@link RERANK_DEPTH} passages' sentences,
 * about a hundred vectors, in one read per search. Only a search that
 * dense retrieval took part in (a passage carries a `similarity`) is
 * scored: dense retrieval takes part once every passage of the reach has
 * its vector, and so its sentences' (they are stored in one transaction).
 * Every passage scored lies inside the reach already: the inner retriever
 * applied it.
 */

/**
 * Passages whose sentence hashes a retriever keeps (least recently used
 * out): splitting 20 passages into sentences and hashing each costs about
 * 1 ms a search, and the passages a knowledge base's questions retrieve
 * come back often. About 2.5 MB at five sentences a passage.
 */
export const SENTENCE_HASH_CACHE_SIZE = 4_096;

/** What sentence similarity reads of the store: the embedding cache. */
export type SentenceVectorStore = Pick<Store, 'cachedVectors'>;

export interface SentenceSimilarityOptions {
  /** Key of the model whose vectors are read (embedding/model-manifest.ts `modelKey`); the dense retriever's. */
  modelKey: string;
  /** The question's embedding: the dense retriever's embedder, so that a cached one (embedding/query-embedder.ts) runs the model once per question. */
  embedQuery: QueryEmbedder;
  /** The model's similarity floor, rescaled above as the dense retriever does (retrieval/dense-retriever.ts); default 0. */
  similarityFloor?: number;
  /** Passages, from the first, whose sentences are scored; default {@link RERANK_DEPTH}, the second stage's. */
  depth?: number;
}

/**
 * @param retriever the search whose passages are scored (the hybrid retriever)
 * @returns a retriever returning the same passages, in the same order, the first `depth` with their `sentenceSimilarity`
 */
export function withSentenceSimilarity(retriever: Retriever, store: SentenceVectorStore, options: SentenceSimilarityOptions): Retriever {
  const depth = options.depth ?? RERANK_DEPTH;
  const floor = options.similarityFloor ?? 0;
  const known = new LRUCache<number, { text: string; hashes: string[] }>({ max: SENTENCE_HASH_CACHE_SIZE });
  /** A passage's sentence hashes, memoized by chunk id (a stored passage's text never changes under its id; checked all the same). */
  const sentenceHashes = (passage: ScoredPassage): string[] => {
    const entry = known.get(passage.chunkId);
    if (entry?.text === passage.text) return entry.hashes;
    const hashes = sentenceEmbeddingTexts(passage).map((text) => embeddingTextHash(text));
    known.set(passage.chunkId, { text: passage.text, hashes });
    return hashes;
  };
  return {
    async search(query: RetrievalQuery): Promise<SearchResult> {
      const result = await retriever.search(query);
      const question = query.question?.trim() ?? '';
      if (question === '' || !result.passages.some((passage) => passage.similarity !== undefined)) return result;
      const scored = result.passages.slice(0, depth);
      const hashes = scored.map(sentenceHashes);
      const [vector, vectors] = await Promise.all([options.embedQuery(question), store.cachedVectors(options.modelKey, hashes.flat())]);
      const passages = result.passages.map((passage, rank): ScoredPassage => {
        let best = Number.NEGATIVE_INFINITY;
        const similarities = (hashes[rank] ?? []).map((hash) => {
          const sentence = vectors.get(hash);
          if (!sentence) return Number.NaN;
          const similarity = rescaleSimilarity(dot(sentence, vector), floor);
          best = Math.max(best, similarity);
          return similarity;
        });
        return best === Number.NEGATIVE_INFINITY ? passage : { ...passage, sentenceSimilarity: best, sentenceSimilarities: similarities };
      });
      return { ...result, passages };
    },
  };
}
