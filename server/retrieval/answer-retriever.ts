import { createDenseRetriever } from './dense-retriever.ts';
import { createHybridRetriever } from './hybrid-retriever.ts';
import type { IndexCacheOptions } from './index-cache.ts';
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
  /** ONNX Runtime threads of the question embedder (default 1, as each answer worker runs one). */
  embeddingThreads?: number;
}

export interface AnswerRetriever {
  retriever: Retriever;
  /** `hybrid` when the embedding model takes part, `lexical` otherwise. */
  mode: 'hybrid' | 'lexical';
  /** Frees the embedding model's ONNX session (a no-op for a lexical retriever). */
  release(): Promise<void>;
}

/**
 * @throws ModelIntegrityError when a file of the embedding model differs from its pinned sha256
 */
export async function createAnswerRetriever(store: Store, options: AnswerRetrieverOptions = {}): Promise<AnswerRetriever> {
  // The two retrievers of a hybrid search read the reach's statistics once between them.
  const shared = options.embedding ? sharedReachStatistics(store) : store;
  const lexical = createLexicalRetriever(shared, options.indexCache === undefined ? {} : { cache: options.indexCache });
  if (!options.embedding) return { retriever: lexical, mode: 'lexical', release: async () => undefined };
  const { model, folder } = options.embedding;
  const embedder: Embedder = await loadEmbedder(model, folder, options.embeddingThreads === undefined ? {} : { threads: options.embeddingThreads });
  const dense = {
    modelKey: modelKey(model),
    dimensions: model.dimensions,
    similarityFloor: model.similarityFloor,
    embedQuery: cachedQueryEmbedder(embedder),
  };
  const retriever = withSentenceSimilarity(createHybridRetriever(lexical, createDenseRetriever(shared, dense)), store, dense);
  return { retriever, mode: 'hybrid', release: () => embedder.release() };
}
