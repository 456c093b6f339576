import type { RetrievalQuery, Retriever, SearchResult } from './retriever.ts';
import { nearestPassages } from './nearest-passages.ts';
import type { DenseIndex, ScoredPassage, Store } from '../store/store.ts';

/**
 * Dense retrieval: the question's embedding against every passage vector of
 * the knowledge base, by cosine similarity (dot product of unit vectors),
 * exact - the result of scoring every vector, as a flat index does (FAISS
 * `IndexFlatIP`): an 8-bit scan with an error bound chooses which passages
 * to score exactly (retrieval/nearest-passages.ts); an approximate index
 * earns its place only where exact search misses the latency targets
 * (`npm run bench`).
 *
 * The reach is applied before the top k is taken: the scan scores every
 * vector of the knowledge base in one product, but only the reach's slots
 * are read from its result (top k, document similarities), so a restricted
 * passage can neither take a visitor's slot nor show through a score.
 *
 * Dense retrieval takes part only once every passage of the reach has its
 * vector: with part of the knowledge base embedded (the minutes after a
 * first start or a large ingest, while the background sweep runs), the
 * passages without one would lose every similarity-weighted comparison
 * and the evidence model's dense features would read a half index, so
 * the question is answered by BM25F alone until the sweep is done.
 *
 * Each thread holds the vectors of the knowledge bases it searched in
 * memory, read again when the knowledge base's content version changes
 * (every ingest, and every batch of new vectors, moves it).
 */

/** What the dense retriever reads of the store. */
export type DenseIndexStore = Pick<Store, 'reachStatistics' | 'readDenseIndex' | 'passagesById' | 'contentVersion'>;

/** The question's embedding, from the model the passages were embedded with. */
export type QueryEmbedder = (question: string) => Promise<Float32Array>;

export interface DenseRetrieverOptions {
  /** Key of the model whose vectors are read (embedding/model-manifest.ts `modelKey`). */
  modelKey: string;
  dimensions: number;
  embedQuery: QueryEmbedder;
  /**
   * The cosine similarity the model gives unrelated texts (embedding/
   * model-manifest.ts `similarityFloor`; 0 when absent). Similarities are
   * reported rescaled from [floor, 1] to [0, 1] - `(cosine - floor) / (1 -
   * floor)` - so that the weights and thresholds downstream mean the same for
   * every model: a model whose vectors share a common direction
   * (anisotropy, Ethayarajh 2019; multilingual-e5-small puts unrelated texts
   * near 0.8) would otherwise press every passage into a narrow band.
   */
  similarityFloor?: number;
}

/** A dense search's result: passages scored by cosine similarity (in -1..1, higher closer), `similarity` rescaled above the model's floor. */
export function createDenseRetriever(store: DenseIndexStore, options: DenseRetrieverOptions): Retriever {
  const held = new Map<string, { version: string; index: Promise<DenseIndex> }>();

  async function indexOf(kbId: string): Promise<DenseIndex | undefined> {
    const version = await store.contentVersion(kbId);
    if (version === undefined) return undefined;
    let entry = held.get(kbId);
    if (entry?.version !== version) {
      entry = { version, index: store.readDenseIndex(kbId, options.modelKey, options.dimensions) };
      held.set(kbId, entry);
      entry.index.catch(() => held.delete(kbId));
    }
    return entry.index;
  }

  return {
    async search(query: RetrievalQuery): Promise<SearchResult> {
      const { kbId } = query.reach;
      const [statistics, index] = await Promise.all([store.reachStatistics(query.reach), indexOf(kbId)]);
      const empty: SearchResult = { passages: [], passageCount: statistics.passageCount, documentFrequencies: {} };
      const question = query.question?.trim() ?? '';
      if (!index || index.chunkIds.length === 0 || question === '' || query.topK <= 0) return empty;
      const candidates = readableSlots(index, statistics.readableDocuments);
      // Until every passage of the reach has its vector (the background sweep after a start or an ingest), dense retrieval stays out.
      if (candidates.length < statistics.passageCount) return empty;
      const vector = await options.embedQuery(question);
      const nearest = await nearestPassages(index, vector, candidates, query.topK);
      const floor = options.similarityFloor ?? 0;
      const rescaled = (cosine: number) => rescaleSimilarity(cosine, floor);
      const chunkIds = nearest.passages.map(({ slot }) => index.chunkIds[slot]!);
      const rows = new Map((await store.passagesById(kbId, chunkIds)).map((row) => [row.chunkId, row]));
      const passages: ScoredPassage[] = [];
      for (const { slot, similarity } of nearest.passages) {
        // A passage removed since the vectors were read is left out.
        const row = rows.get(index.chunkIds[slot]!);
        const documentSimilarity = nearest.documents.get(index.documentIds[slot]!) ?? floor;
        if (row) passages.push({ ...row, score: similarity, similarity: rescaled(similarity), documentSimilarity: rescaled(documentSimilarity) });
      }
      return { ...empty, passages };
    },
  };
}

/**
 * A cosine similarity rescaled from [floor, 1] to [0, 1] (see
 * {@link DenseRetrieverOptions.similarityFloor}): how every similarity the
 * retrievers report is scaled, a passage's, its page's and its best
 * sentence's (retrieval/sentence-similarity.ts).
 *
 * @param floor the model's similarity floor, below 1
 */
export function rescaleSimilarity(cosine: number, floor: number): number {
  return (cosine - floor) / (1 - floor);
}

/** Every slot of an index, made once per index read (a reach that covers the whole knowledge base searches them all; read only). */
const allSlotsOf = new WeakMap<DenseIndex, Uint32Array>();

/** The index's slots whose document lies inside the reach (all when `readableDocuments` is absent). */
function readableSlots(index: DenseIndex, readableDocuments: readonly number[] | undefined): Uint32Array {
  const count = index.chunkIds.length;
  if (readableDocuments === undefined) {
    let slots = allSlotsOf.get(index);
    if (slots === undefined) {
      slots = new Uint32Array(count);
      for (let slot = 0; slot < count; slot++) slots[slot] = slot;
      allSlotsOf.set(index, slots);
    }
    return slots;
  }
  const readable = new Set(readableDocuments);
  const slots: number[] = [];
  for (let slot = 0; slot < count; slot++) if (readable.has(index.documentIds[slot]!)) slots.push(slot);
  return Uint32Array.from(slots);
}
