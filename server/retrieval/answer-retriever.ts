import { createDenseRetriever, type DenseRetrieverOptions } from './dense-retriever.ts';
import { createHybridRetriever, type HybridRetrieverOptions } from './hybrid-retriever.ts';
import type { IndexCache, IndexCacheOptions } from './index-cache.ts';
import { createLexicalRetriever } from './lexical-retriever.ts';
import type { Retriever } from './retriever.ts';
import { withSentenceSimilarity } from './sentence-similarity.ts';
import { sharedReachStatistics } from './shared-statistics.ts';
import { loadEmbedder, type Embedder } from '../embedding/embedder.ts';
import { modelKey, type ModelSpec } from '../embedding/model-manifest.ts';
import { cachedQueryEmbedder } from '../embedding/query-embedder.ts';
import type { Store } from '../store/store.ts';

/**
 * The retriever answers are prepared with, wherever they are prepared - a
 * server's answer worker and `kb ask` alike, so that the command line tries
 * the engine a visitor's question meets: lexical (BM25F) with its index held
 * in memory, fused with dense retrieval when the embedding model is given
 * (reciprocal rank fusion, retrieval/hybrid-retriever.ts), the first
 * passages' sentences scored against the question
 * (retrieval/sentence-similarity.ts). Dense retrieval still stays out of a
 * search until every passage of the reach has its vector
 * (retrieval/dense-retriever.ts).
 */

/** The embedding model, verified in its folder (embedding/model-files.ts). */
export interface AnswerEmbedding {
  model: ModelSpec;
  folder: string;
}

export interface AnswerRetrieverOptions {
  /** The lexical index's in-memory cache (retrieval/index-cache.ts); its defaults when absent. */
  indexCache?: IndexCacheOptions;
  /** The embedding model; without it, retrieval is lexical alone. */
  embedding?: AnswerEmbedding;
}

export interface AnswerRetriever {
  retriever: Retriever;
  /** Frees the embedding model's ONNX session (a no-op for a lexical retriever). */
  release(): Promise<void>;
}

/**
 * @throws ModelIntegrityError when a file of the embedding model differs from its pinned sha256
 */
export async function createAnswerRetriever(store: Store, options: AnswerRetrieverOptions = {}): Promise<AnswerRetriever> {
  const cache = options.indexCache;
  if (!options.embedding) return { retriever: composeAnswerRetriever(store, { cache }), release: async () => undefined };
  const { model, folder } = options.embedding;
  const embedder: Embedder = await loadEmbedder(model, folder);
  const dense = {
    modelKey: modelKey(model),
    dimensions: model.dimensions,
    similarityFloor: model.similarityFloor,
    embedQuery: cachedQueryEmbedder(embedder),
  };
  return { retriever: composeAnswerRetriever(store, { cache, dense }), release: () => embedder.release() };
}

/**
 * The retrievers composed as answers use them, with the question's vector
 * from `dense.embedQuery` (a loaded model, or the bench's vectors computed
 * beforehand): BM25F alone without `dense`; else BM25F and dense retrieval
 * fused, reading the reach's statistics once between them, the first
 * passages' sentences scored.
 *
 * @param options.cache the lexical index's in-memory cache, or its options
 * @param options.fusion how the two lists are fused (reciprocal rank fusion unless said: the evaluation compares others)
 */
export function composeAnswerRetriever(
  store: Store,
  options: { cache?: IndexCacheOptions | IndexCache; dense?: DenseRetrieverOptions; fusion?: HybridRetrieverOptions },
): Retriever {
  const { cache, dense } = options;
  const shared = dense ? sharedReachStatistics(store) : store;
  const lexical = createLexicalRetriever(shared, cache === undefined ? {} : { cache });
  if (!dense) return lexical;
  return withSentenceSimilarity(createHybridRetriever(lexical, createDenseRetriever(shared, dense), options.fusion), store, dense);
}
