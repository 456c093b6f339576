import { embeddingTextHash, passageEmbeddingText } from '../server/embedding/passage-text.ts';
import { createDenseRetriever } from '../server/retrieval/dense-retriever.ts';
import { createHybridRetriever } from '../server/retrieval/hybrid-retriever.ts';
import type { Retriever } from '../server/retrieval/retriever.ts';
import type { Store } from '../server/store/store.ts';

/**
 * Hybrid search at scale (bench/README.md "Scale"): the scale table's
 * store given a vector for every passage, then its questions searched by
 * BM25F and dense retrieval fused, as a server's answer worker searches.
 *
 * The vectors are the demo's own, looked up by the passage's embedding text
 * (a copy of a page embeds as the page does; the store's embedding cache
 * would give the same vectors without the model), so no corpus is embedded
 * again; only the few passages whose text the demo lacks (a copy's index
 * page is titled by its folder) are embedded. Questions come with their
 * vectors, computed once.
 */
export interface ScaleEmbedding {
  modelKey: string;
  dimensions: number;
  /** A passage's vector by the sha256 of its embedding text (embedding/passage-text.ts), undefined when the demo has none. */
  vectorOf(textHash: string): Float32Array | undefined;
  /** A question's vector. */
  questionVector(question: string): Float32Array;
  /** Embeds passage texts the demo has no vector for. */
  embedPassages(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Vectors written per transaction. */
const BATCH = 4096;

/**
 * Gives every passage of `kbId` its vector from `embedding` (embedding the
 * texts the demo has none for).
 *
 * @returns passages given one, and of those how many were embedded
 */
export async function storeScaleVectors(store: Store, kbId: string, embedding: ScaleEmbedding): Promise<{ written: number; embedded: number }> {
  let written = 0;
  let embedded = 0;
  for (;;) {
    const passages = await store.passagesWithoutVector(embedding.modelKey, BATCH, kbId);
    if (passages.length === 0) return { written, embedded };
    const texts = passages.map((passage) => passageEmbeddingText(passage));
    const hashes = texts.map((text) => embeddingTextHash(text));
    const missing = [...new Set(hashes.filter((hash) => embedding.vectorOf(hash) === undefined))];
    const computed = new Map<string, Float32Array>();
    if (missing.length > 0) {
      const textOf = new Map(hashes.map((hash, position) => [hash, texts[position]!]));
      const vectors = await embedding.embedPassages(missing.map((hash) => textOf.get(hash)!));
      missing.forEach((hash, position) => computed.set(hash, vectors[position]!));
      embedded += missing.length;
    }
    await store.putPassageVectors(
      embedding.modelKey,
      passages.map((passage, position) => {
        const textHash = hashes[position]!;
        return { chunkId: passage.chunkId, textHash, vector: embedding.vectorOf(textHash) ?? computed.get(textHash)! };
      }),
    );
    written += passages.length;
  }
}

/**
 * The hybrid retriever over a store whose passages all have vectors.
 *
 * @param lexical the lexical retriever, its index held as a server's worker holds it
 */
export function scaleHybridRetriever(store: Store, lexical: Retriever, embedding: ScaleEmbedding): Retriever {
  const dense = createDenseRetriever(store, {
    modelKey: embedding.modelKey,
    dimensions: embedding.dimensions,
    embedQuery: async (question) => embedding.questionVector(question),
  });
  return createHybridRetriever(lexical, dense);
}
