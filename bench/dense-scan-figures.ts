import { performance } from 'node:perf_hooks';
import { quantile } from './figures.ts';
import { scanSimilarities } from '../server/retrieval/dense-scan.ts';
import { documentSlots, nearestPassages } from '../server/retrieval/nearest-passages.ts';
import { topSlots } from '../server/retrieval/top-k.ts';
import { DOCUMENT_SIMILARITY_PASSAGES, type DenseIndex } from '../server/store/store.ts';

/**
 * Dense search at scale (bench/README.md "Dense search at scale"): the
 * demo's real passage vectors tiled `copies` times, each copy its own
 * documents (as the scale table's copies of the Node.js docs are), searched
 * for real question vectors by what the dense retriever does per question -
 * take the top k of the reach and the similarity of each of their pages -
 * once as it does (retrieval/nearest-passages.ts: an 8-bit scan, then exact
 * scores where they can matter) and once by the float32 scan of every
 * vector it replaced (retrieval/dense-scan.ts, with the page similarities
 * computed over every slot as they were: the baseline, kept here), on this
 * thread as an answer worker runs it.
 */
export interface DenseScanFigures {
  passages: number;
  p50Ms: number;
  p95Ms: number;
  baselineP50Ms: number;
  baselineP95Ms: number;
  /** Questions whose top 10 passages are the same by both (exact both: all of them, or a tie ordered otherwise, or two scores a float32 rounding apart). */
  sameTopTen: number;
}

/** Passages the dense retriever takes into the fusion (retrieval/retrieval-plan.ts FUSION_DEPTH). */
const TOP_K = 50;

/**
 * @param index the demo's vectors, as the store reads them
 * @param copies times the vectors are tiled
 * @param questions question vectors (unit, `index.dimensions` long)
 */
export async function measureDenseScan(index: DenseIndex, copies: number, questions: readonly Float32Array[]): Promise<DenseScanFigures> {
  const tiled = tile(index, copies);
  const slots = new Uint32Array(tiled.chunkIds.length);
  for (let slot = 0; slot < slots.length; slot++) slots[slot] = slot;
  const search = async (question: Float32Array) => (await nearestPassages(tiled, question, slots, TOP_K)).passages.map(({ slot }) => slot);
  const baseline = async (question: Float32Array) => {
    const scores = await scanSimilarities(tiled, question);
    const best = topSlots(scores, slots, slots.length, TOP_K);
    pageSimilarities(tiled, scores);
    return best;
  };
  // Once through each before the timed passes (JIT, the scans' sessions, the 8-bit copy of the vectors).
  await search(questions[0]!);
  await baseline(questions[0]!);
  const times: number[] = [];
  const baselineTimes: number[] = [];
  let sameTopTen = 0;
  for (const question of questions) {
    let mark = performance.now();
    const found = await search(question);
    times.push(performance.now() - mark);
    mark = performance.now();
    const scanned = await baseline(question);
    baselineTimes.push(performance.now() - mark);
    if (found.slice(0, 10).every((slot, rank) => slot === scanned[rank])) sameTopTen++;
  }
  return {
    passages: tiled.chunkIds.length,
    p50Ms: quantile(times, 0.5),
    p95Ms: quantile(times, 0.95),
    baselineP50Ms: quantile(baselineTimes, 0.5),
    baselineP95Ms: quantile(baselineTimes, 0.95),
    sameTopTen,
  };
}

/** The index tiled `copies` times: copy c's chunk and document ids offset past copy c - 1's. */
function tile(index: DenseIndex, copies: number): DenseIndex {
  const count = index.chunkIds.length;
  const chunkStride = Math.max(0, ...index.chunkIds) + 1;
  const documentStride = Math.max(0, ...index.documentIds) + 1;
  const vectors = new Float32Array(count * copies * index.dimensions);
  const chunkIds: number[] = [];
  const documentIds: number[] = [];
  for (let copy = 0; copy < copies; copy++) {
    vectors.set(index.vectors, copy * index.vectors.length);
    for (let slot = 0; slot < count; slot++) {
      chunkIds.push(index.chunkIds[slot]! + copy * chunkStride);
      documentIds.push(index.documentIds[slot]! + copy * documentStride);
    }
  }
  return { chunkIds, documentIds, vectors, dimensions: index.dimensions };
}

/**
 * The baseline's page similarities: every page's mean of its best
 * {@link DOCUMENT_SIMILARITY_PASSAGES} scores over every slot, in one pass
 * keeping each page's best scores in a typed array, as the dense retriever
 * computed them before it scored only its results' pages exactly.
 */
function pageSimilarities(index: DenseIndex, scores: Float32Array): Float64Array {
  const { ordinalOf: ofSlot, documentIds } = documentSlots(index);
  const pages = documentIds.length;
  const kept = DOCUMENT_SIMILARITY_PASSAGES;
  const best = new Float64Array(pages * kept).fill(Number.NEGATIVE_INFINITY);
  for (let slot = 0; slot < ofSlot.length; slot++) {
    const first = ofSlot[slot]! * kept;
    const score = scores[slot]!;
    if (!(score > best[first + kept - 1]!)) continue;
    let position = kept - 1;
    while (position > 0 && best[first + position - 1]! < score) {
      best[first + position] = best[first + position - 1]!;
      position--;
    }
    best[first + position] = score;
  }
  const means = new Float64Array(pages);
  for (let page = 0; page < pages; page++) {
    let total = 0;
    for (let rank = 0; rank < kept; rank++) if (best[page * kept + rank] !== Number.NEGATIVE_INFINITY) total += best[page * kept + rank]!;
    means[page] = total / kept;
  }
  return means;
}
