import type { RetrievalQuery, Retriever, SearchResult } from './retriever.ts';
import { scanSimilarities } from './dense-scan.ts';
import { topSlots } from './top-k.ts';
import { DOCUMENT_SIMILARITY_PASSAGES, type DenseIndex, type ScoredPassage, type Store } from '../store/store.ts';

/**
 * Dense retrieval: the question's embedding against every passage vector of
 * the knowledge base, by cosine similarity (dot product of unit vectors),
 * exact - every vector is scored, as a flat index does (FAISS
 * `IndexFlatIP`), by one matrix-vector product (retrieval/dense-scan.ts); an
 * approximate index earns its place only where exact search misses the
 * latency targets (`npm run bench`).
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
      const scores = await scanSimilarities(index, vector);
      const best = topSlots(scores, candidates, candidates.length, query.topK);
      const documents = documentSimilarities(index, scores, candidates);
      const floor = options.similarityFloor ?? 0;
      const rescaled = (cosine: number) => (cosine - floor) / (1 - floor);
      const chunkIds = best.map((slot) => index.chunkIds[slot]!);
      const rows = new Map((await store.passagesById(kbId, chunkIds)).map((row) => [row.chunkId, row]));
      const passages: ScoredPassage[] = [];
      best.forEach((slot) => {
        // A passage removed since the vectors were read is left out.
        const row = rows.get(index.chunkIds[slot]!);
        if (row) passages.push({ ...row, score: scores[slot]!, similarity: rescaled(scores[slot]!), documentSimilarity: rescaled(documents.get(index.documentIds[slot]!) ?? floor) });
      });
      return { ...empty, passages };
    },
  };
}

/**
 * Each document's similarity to the question: the mean of its
 * {@link DOCUMENT_SIMILARITY_PASSAGES} best passage similarities among the
 * readable slots (missing ones count 0), by document storage id.
 *
 * One pass over the slots keeping each document's best scores in a typed
 * array (the index's documents numbered once per index), so that it costs
 * a few milliseconds at 313,536 passages rather than a map lookup and a
 * sort per passage.
 */
export function documentSimilarities(index: DenseIndex, scores: Float32Array | Float64Array, slots: Uint32Array): Map<number, number> {
  const { ofSlot, documentIds } = documentOrdinals(index);
  const kept = DOCUMENT_SIMILARITY_PASSAGES;
  const best = new Float64Array(documentIds.length * kept).fill(Number.NEGATIVE_INFINITY);
  const seen = new Uint8Array(documentIds.length);
  for (const slot of slots) {
    const ordinal = ofSlot[slot]!;
    const score = scores[slot]!;
    const first = ordinal * kept;
    seen[ordinal] = 1;
    if (!(score > best[first + kept - 1]!)) continue;
    // Insertion into the document's scores, kept best first.
    let position = kept - 1;
    while (position > 0 && best[first + position - 1]! < score) {
      best[first + position] = best[first + position - 1]!;
      position--;
    }
    best[first + position] = score;
  }
  const documents = new Map<number, number>();
  for (let ordinal = 0; ordinal < documentIds.length; ordinal++) {
    if (seen[ordinal] === 0) continue;
    let total = 0;
    for (let rank = 0; rank < kept; rank++) {
      const score = best[ordinal * kept + rank]!;
      if (score !== Number.NEGATIVE_INFINITY) total += score;
    }
    documents.set(documentIds[ordinal]!, total / kept);
  }
  return documents;
}

/** Each index's documents numbered 0.., and each slot's number, computed once per index read. */
const ordinalsOf = new WeakMap<DenseIndex, { ofSlot: Uint32Array; documentIds: number[] }>();

function documentOrdinals(index: DenseIndex): { ofSlot: Uint32Array; documentIds: number[] } {
  let known = ordinalsOf.get(index);
  if (known === undefined) {
    const numbers = new Map<number, number>();
    const ofSlot = new Uint32Array(index.documentIds.length);
    index.documentIds.forEach((documentId, slot) => {
      let ordinal = numbers.get(documentId);
      if (ordinal === undefined) numbers.set(documentId, (ordinal = numbers.size));
      ofSlot[slot] = ordinal;
    });
    known = { ofSlot, documentIds: [...numbers.keys()] };
    ordinalsOf.set(index, known);
  }
  return known;
}

/** The index's slots whose document lies inside the reach (all when `readableDocuments` is absent). */
function readableSlots(index: DenseIndex, readableDocuments: readonly number[] | undefined): Uint32Array {
  const count = index.chunkIds.length;
  if (readableDocuments === undefined) {
    const slots = new Uint32Array(count);
    for (let slot = 0; slot < count; slot++) slots[slot] = slot;
    return slots;
  }
  const readable = new Set(readableDocuments);
  const slots: number[] = [];
  for (let slot = 0; slot < count; slot++) if (readable.has(index.documentIds[slot]!)) slots.push(slot);
  return Uint32Array.from(slots);
}
