import { performance } from 'node:perf_hooks';
import { quantile } from './figures.ts';
import { documentSimilarities } from '../server/retrieval/dense-retriever.ts';
import { scanSimilarities } from '../server/retrieval/dense-scan.ts';
import { topSlots } from '../server/retrieval/top-k.ts';
import type { DenseIndex } from '../server/store/store.ts';

/**
 * Dense search at scale (bench/README.md "Dense search at scale"): the
 * demo's real passage vectors tiled `copies` times, each copy its own
 * documents (as the scale table's copies of the Node.js docs are), searched
 * for real question vectors by what the dense retriever does per question -
 * score every vector, take the top k of the reach, compute each document's
 * similarity - once with the exact scan (retrieval/dense-scan.ts) and once
 * with the JavaScript loop it replaced (the baseline, kept here), on this
 * thread as an answer worker runs it.
 */
export interface DenseScanFigures {
  passages: number;
  p50Ms: number;
  p95Ms: number;
  baselineP50Ms: number;
  baselineP95Ms: number;
  /** Questions whose top 10 passages are the same by both (exact both: all of them, or a tie ordered otherwise). */
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
  const search = (scores: Float32Array | Float64Array) => {
    const best = topSlots(scores, slots, slots.length, TOP_K);
    documentSimilarities(tiled, scores, slots);
    return best;
  };
  // Once through each before the timed passes (JIT, the scan's session).
  await scanSimilarities(tiled, questions[0]!);
  search(loopSimilarities(tiled, questions[0]!));
  const times: number[] = [];
  const baselineTimes: number[] = [];
  let sameTopTen = 0;
  for (const question of questions) {
    let mark = performance.now();
    const scanned = search(await scanSimilarities(tiled, question));
    times.push(performance.now() - mark);
    mark = performance.now();
    const looped = search(loopSimilarities(tiled, question));
    baselineTimes.push(performance.now() - mark);
    if (scanned.slice(0, 10).every((slot, rank) => slot === looped[rank])) sameTopTen++;
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

/** The baseline: each dot product by a JavaScript loop, as dense retrieval scored before the exact scan. */
function loopSimilarities(index: DenseIndex, query: Float32Array): Float64Array {
  const { dimensions, vectors } = index;
  const count = index.chunkIds.length;
  const scores = new Float64Array(count);
  for (let slot = 0, offset = 0; slot < count; slot++, offset += dimensions) {
    let sum = 0;
    for (let dimension = 0; dimension < dimensions; dimension++) sum += vectors[offset + dimension]! * query[dimension]!;
    scores[slot] = sum;
  }
  return scores;
}
