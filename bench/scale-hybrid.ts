import { embedPendingPassages } from '../server/embedding/embed-passages.ts';
import { composeAnswerRetriever } from '../server/retrieval/answer-retriever.ts';
import type { IndexCache } from '../server/retrieval/index-cache.ts';
import type { Retriever } from '../server/retrieval/retriever.ts';
import type { Store } from '../server/store/store.ts';

/**
 * Hybrid search at scale (bench/README.md "Scale"): the scale table's
 * store given a vector for every passage by the server's own sweep
 * (embedding/embed-passages.ts `embedPendingPassages`), then its questions
 * searched by BM25F and dense retrieval fused, their first passages'
 * sentences scored, as a server's answer worker searches.
 *
 * The "model" the sweep runs is the demo's vectors, looked up by embedding
 * text (a copy of a page embeds as the page does, its sentences too), so no corpus is embedded
 * again; only the few texts the demo lacks (a copy's index page is titled
 * by its folder) go to the real model. Questions come with their vectors,
 * computed once.
 */
export interface ScaleEmbedding {
  modelKey: string;
  dimensions: number;
  /** Passage texts to vectors: the demo's vector of the same text, else the model's. */
  embedPassages(texts: readonly string[]): Promise<Float32Array[]>;
  /** A question's vector. */
  questionVector(question: string): Float32Array;
}

/** Gives every passage of `kbId` its vector, through the server's sweep with `embedding` as its model. */
export async function storeScaleVectors(store: Store, kbId: string, embedding: ScaleEmbedding): Promise<void> {
  await embedPendingPassages(store, { modelKey: embedding.modelKey, kbId, embed: (texts) => embedding.embedPassages(texts) });
}

/**
 * The hybrid retriever over a store whose passages all have vectors, with
 * sentence similarity (retrieval/sentence-similarity.ts), as a server's
 * answer worker builds it (retrieval/answer-retriever.ts): the reach's
 * statistics read once for both retrievers.
 *
 * @param cache the lexical index, held as a server's worker holds it
 */
export function scaleHybridRetriever(store: Store, cache: IndexCache, embedding: ScaleEmbedding): Retriever {
  const dense = {
    modelKey: embedding.modelKey,
    dimensions: embedding.dimensions,
    embedQuery: async (question: string) => embedding.questionVector(question),
  };
  return composeAnswerRetriever(store, { cache, dense });
}
