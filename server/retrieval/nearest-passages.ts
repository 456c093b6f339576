import { scanSimilarities } from './dense-scan.ts';
import { approximateSimilarities, exactSimilarity } from './quantized-scan.ts';
import { topSlots } from './top-k.ts';
import { DOCUMENT_SIMILARITY_PASSAGES, type DenseIndex } from '../store/store.ts';

/**
 * The exact nearest passages of a question, and their pages' similarities,
 * found in two passes: the 8-bit scan (retrieval/quantized-scan.ts) scores
 * every vector approximately with a bound on its error, then every passage
 * whose approximate score could place it among the results is scored
 * exactly in double precision. The result is that of scoring every vector
 * exactly (a flat index, FAISS `IndexFlatIP`) - a re-ranking of quantized
 * candidates, as FAISS's `IndexRefine` does, but with the candidates chosen
 * by the error bound rather than a fixed count, so none can be missed.
 *
 * Why it is exact: the k passages of best approximate score, the k-th
 * being `t`, all score at least `t − bound` exactly; a passage whose
 * approximate score is below `t − 2 × bound` scores below `t − bound`
 * exactly, so it can be in no top k. Every other passage is scored
 * exactly, and the top k is taken over those exact scores. A page's
 * similarity (the mean of its best {@link DOCUMENT_SIMILARITY_PASSAGES})
 * follows the same argument within the page.
 *
 * Below {@link QUANTIZED_SCAN_MIN_PASSAGES} the float32 scan of every vector
 * (retrieval/dense-scan.ts) is as fast and its scores are taken as exact
 * (a bound of 0).
 */

/**
 * Passages from which the 8-bit pass is taken: 65,536 (96 MB of float32
 * vectors at 384 dimensions). Measured on the demo's vectors tiled (100
 * questions' top 50 and their pages, 2-core machine): at 39,192 passages
 * both passes take 2.2 ms (p50); at 78,384 the 8-bit one 4.7 against 5.2;
 * at 156,768 8.5 against 13.0; at 4,899 0.77 against 0.61.
 */
export const QUANTIZED_SCAN_MIN_PASSAGES = 65_536;

/** What {@link nearestPassages} found. */
export interface NearestPassages {
  /** Best first, at most `topK`: each passage's slot in the index and its exact cosine similarity. */
  passages: { slot: number; similarity: number }[];
  /** For each page of `passages` (document storage id), the mean of its best {@link DOCUMENT_SIMILARITY_PASSAGES} exact similarities, a missing one counting 0. */
  documents: Map<number, number>;
}

/**
 * @param index the knowledge base's vectors
 * @param query the question's unit vector, `index.dimensions` floats
 * @param candidates the slots inside the reach, each once; a page lies inside it entirely or not at all
 * @param topK passages wanted
 * @param quantizedFrom passages from which the 8-bit pass is taken; default {@link QUANTIZED_SCAN_MIN_PASSAGES}
 * @throws Error when the query's length is not the index's dimensions, or ONNX Runtime fails
 */
export async function nearestPassages(
  index: DenseIndex,
  query: Float32Array,
  candidates: Uint32Array,
  topK: number,
  quantizedFrom: number = QUANTIZED_SCAN_MIN_PASSAGES,
): Promise<NearestPassages> {
  if (candidates.length === 0 || topK <= 0) return { passages: [], documents: new Map() };
  const { scores, bound } =
    index.chunkIds.length >= quantizedFrom ? await approximateSimilarities(index, query) : { scores: await scanSimilarities(index, query), bound: 0 };
  // `scores` is this search's own array: each slot scored exactly replaces its approximation.
  const exact = new Uint8Array(scores.length);
  const makeExact = (slot: number) => {
    if (exact[slot] === 1) return;
    scores[slot] = exactSimilarity(index, slot, query);
    exact[slot] = 1;
  };

  const approximateBest = topSlots(scores, candidates, candidates.length, topK);
  const cut = scores[approximateBest.at(-1)!]! - 2 * bound;
  // Only the passages at or above the cut can be in the top k: they alone are scored exactly, and chosen from.
  const near: number[] = [];
  for (const slot of candidates) {
    if (scores[slot]! >= cut) {
      makeExact(slot);
      near.push(slot);
    }
  }
  const best = topSlots(scores, Uint32Array.from(near), near.length, topK);

  const { ordinalOf, documentIds, slotsOf } = documentSlots(index);
  const documents = new Map<number, number>();
  for (const slot of best) {
    const ordinal = ordinalOf[slot]!;
    if (documents.has(documentIds[ordinal]!)) continue;
    const page = slotsOf(ordinal);
    const pageCut = bestOf(scores, page)[DOCUMENT_SIMILARITY_PASSAGES - 1];
    // Fewer passages than are averaged: every one counts, each scored exactly.
    for (const pageSlot of page) if (pageCut === undefined || scores[pageSlot]! >= pageCut - 2 * bound) makeExact(pageSlot);
    const exactBest = bestOf(scores, page);
    documents.set(documentIds[ordinal]!, exactBest.reduce((total, score) => total + score, 0) / DOCUMENT_SIMILARITY_PASSAGES);
  }
  return { passages: best.map((slot) => ({ slot, similarity: scores[slot]! })), documents };
}

/** The best {@link DOCUMENT_SIMILARITY_PASSAGES} scores of the slots, best first. */
function bestOf(scores: Float32Array, slots: Uint32Array): number[] {
  const best: number[] = [];
  for (const slot of slots) {
    const score = scores[slot]!;
    if (best.length === DOCUMENT_SIMILARITY_PASSAGES && !(score > best[best.length - 1]!)) continue;
    let position = Math.min(best.length, DOCUMENT_SIMILARITY_PASSAGES - 1);
    while (position > 0 && best[position - 1]! < score) position--;
    best.splice(position, 0, score);
    if (best.length > DOCUMENT_SIMILARITY_PASSAGES) best.pop();
  }
  return best;
}

/** Each index's pages numbered 0.., each slot's page, and each page's slots, computed once per index read. */
export interface DocumentSlots {
  ordinalOf: Uint32Array;
  documentIds: number[];
  slotsOf(ordinal: number): Uint32Array;
}

const documentSlotsOf = new WeakMap<DenseIndex, DocumentSlots>();

/** The index's {@link DocumentSlots}, made on first use and kept while the index is held. */
export function documentSlots(index: DenseIndex): DocumentSlots {
  let known = documentSlotsOf.get(index);
  if (known !== undefined) return known;
  const numbers = new Map<number, number>();
  const ordinalOf = new Uint32Array(index.documentIds.length);
  index.documentIds.forEach((documentId, slot) => {
    let ordinal = numbers.get(documentId);
    if (ordinal === undefined) numbers.set(documentId, (ordinal = numbers.size));
    ordinalOf[slot] = ordinal;
  });
  // Each page's slots side by side (compressed sparse rows): page p's are slots[starts[p]..starts[p + 1]).
  const starts = new Uint32Array(numbers.size + 1);
  for (const ordinal of ordinalOf) starts[ordinal + 1]!++;
  for (let ordinal = 0; ordinal < numbers.size; ordinal++) starts[ordinal + 1]! += starts[ordinal]!;
  const slots = new Uint32Array(ordinalOf.length);
  const filled = starts.slice(0, numbers.size);
  ordinalOf.forEach((ordinal, slot) => {
    slots[filled[ordinal]!++] = slot;
  });
  known = { ordinalOf, documentIds: [...numbers.keys()], slotsOf: (ordinal) => slots.subarray(starts[ordinal]!, starts[ordinal + 1]!) };
  documentSlotsOf.set(index, known);
  return known;
}
