import { inverseDocumentFrequency, type FieldedBm25 } from './bm25f.ts';
import { topSlots } from './top-k.ts';
import type { IndexColumns } from '../store/index/index-data.ts';

/**
 * Fielded BM25 top-k over index columns held in memory (store/index-data.ts),
 * the whole index of a knowledge base or the postings of a question's terms,
 * of passages or of pages: each query term's document frequency within the
 * reach, then each readable posting's contribution (retrieval/bm25f.ts)
 * accumulated per unit, then the best `topK` units, by score descending and
 * storage id ascending (a total order, so every backend returns the same list).
 */

/** A query term and its weight (1 for the question's own terms, less for expansions). */
export interface QueryTerm {
  term: string;
  weight: number;
}

/** What {@link scoreColumns} returns. */
export interface ScoredColumns {
  /** Query term -> units inside the reach holding it. */
  documentFrequencies: Record<string, number>;
  /** Storage ids of the best units, best first. */
  chunkIds: number[];
  /** Their documents' storage ids, aligned with `chunkIds`. */
  documentIds: number[];
  /** Their scores, aligned with `chunkIds`. */
  scores: number[];
}

/** Per-chunk accumulators reused from search to search of one columns object (valid where `stamps[slot] === epoch`). */
interface Scratch {
  sums: Float64Array;
  stamps: Uint32Array;
  touched: Uint32Array;
  epoch: number;
}

const scratches = new WeakMap<IndexColumns, Scratch>();

/**
 * @param columns the index, whole or for the query's terms
 * @param ranking the formula and its parameters, one field entry per field of `columns`
 * @param query distinct query terms with their weights
 * @param unitCount units inside the reach (N, > 0)
 * @param averageLengths average field lengths inside the reach, one per field
 * @param readable per unit slot, 1 when its document is inside the reach; absent when the reach covers every unit
 * @param topK units wanted
 */
export function scoreColumns(
  columns: IndexColumns,
  ranking: FieldedBm25,
  query: readonly QueryTerm[],
  unitCount: number,
  averageLengths: readonly number[],
  readable: Uint8Array | undefined,
  topK: number,
): ScoredColumns {
  const fieldCount = columns.fieldCount;
  if (ranking.fields.length !== fieldCount) throw new Error(`The ranking has ${ranking.fields.length} fields, the index ${fieldCount}`);
  const documentFrequencies: Record<string, number> = {};
  const ranges: { start: number; end: number; weight: number }[] = [];
  for (const { term, weight } of query) {
    const index = termPosition(columns, term);
    if (index < 0) {
      documentFrequencies[term] = 0;
      continue;
    }
    const start = columns.termStarts[index]!;
    const end = columns.termStarts[index + 1]!;
    const frequency = readable ? countReadable(columns, start, end, readable) : end - start;
    documentFrequencies[term] = frequency;
    if (frequency > 0 && weight > 0) ranges.push({ start, end, weight: weight * inverseDocumentFrequency(unitCount, frequency) });
  }
  if (ranges.length === 0 || topK <= 0) return { documentFrequencies, chunkIds: [], documentIds: [], scores: [] };

  const scratch = scratchOf(columns);
  scratch.epoch = scratch.epoch === 0xffffffff ? 1 : scratch.epoch + 1;
  if (scratch.epoch === 1) scratch.stamps.fill(0);
  const { sums, stamps, touched, epoch } = scratch;
  const { postingChunks, postingFrequencies, chunkLengths } = columns;
  const weights = ranking.fields.map((field) => field.weight);
  const k1 = ranking.k1;
  const k1PlusOne = k1 + 1;
  // Per field, the length normalization's two terms: (1 - b) and b / avglen (per-field);
  // for `combined`, one b over the weighted length sum.
  const combined = ranking.normalization === 'combined';
  const combinedB = ranking.fields[0]?.b ?? 0;
  let combinedAverage = 0;
  for (let field = 0; field < fieldCount; field++) combinedAverage += weights[field]! * averageLengths[field]!;
  const constants = ranking.fields.map(({ b }, field) => (averageLengths[field]! > 0 ? 1 - b : 1));
  const slopes = ranking.fields.map(({ b }, field) => (averageLengths[field]! > 0 ? b / averageLengths[field]! : 0));
  let touchedCount = 0;
  for (const { start, end, weight } of ranges) {
    for (let posting = start; posting < end; posting++) {
      const slot = postingChunks[posting]!;
      if (readable && readable[slot] === 0) continue;
      const frequencyAt = posting * fieldCount;
      const lengthAt = slot * fieldCount;
      let contribution: number;
      if (combined) {
        let frequency = 0;
        let length = 0;
        for (let field = 0; field < fieldCount; field++) {
          frequency += weights[field]! * postingFrequencies[frequencyAt + field]!;
          length += weights[field]! * chunkLengths[lengthAt + field]!;
        }
        if (frequency === 0) continue;
        const norm = combinedAverage > 0 ? k1 * (1 - combinedB + (combinedB * length) / combinedAverage) : k1;
        contribution = (weight * frequency * k1PlusOne) / (frequency + norm);
      } else {
        let pseudoFrequency = 0;
        for (let field = 0; field < fieldCount; field++) {
          const frequency = postingFrequencies[frequencyAt + field]!;
          if (frequency === 0 || weights[field] === 0) continue;
          pseudoFrequency += (weights[field]! * frequency) / (constants[field]! + slopes[field]! * chunkLengths[lengthAt + field]!);
        }
        if (pseudoFrequency === 0) continue;
        contribution = (weight * pseudoFrequency * k1PlusOne) / (k1 + pseudoFrequency);
      }
      if (stamps[slot] !== epoch) {
        stamps[slot] = epoch;
        sums[slot] = contribution;
        touched[touchedCount++] = slot;
      } else {
        sums[slot] = sums[slot]! + contribution;
      }
    }
  }
  const best = topSlots(sums, touched, touchedCount, topK);
  return {
    documentFrequencies,
    chunkIds: best.map((slot) => columns.chunkIds[slot]!),
    documentIds: best.map((slot) => columns.chunkDocuments[slot]!),
    scores: best.map((slot) => sums[slot]!),
  };
}

/**
 * Marks the chunk slots whose documents are inside a reach.
 *
 * @param readableDocuments storage ids of the documents inside the reach
 */
export function readableChunks(columns: IndexColumns, readableDocuments: Iterable<number>): Uint8Array {
  const documents = new Set(readableDocuments);
  const readable = new Uint8Array(columns.chunkIds.length);
  for (let slot = 0; slot < readable.length; slot++) readable[slot] = documents.has(columns.chunkDocuments[slot]!) ? 1 : 0;
  return readable;
}

const termIndexes = new WeakMap<IndexColumns, Map<string, number>>();

/** Position of `term` in `columns.terms`, or -1 (a map built once per columns object; the order of the terms does not matter). */
function termPosition(columns: IndexColumns, term: string): number {
  let index = termIndexes.get(columns);
  if (!index) {
    index = new Map(columns.terms.map((candidate, position) => [candidate, position]));
    termIndexes.set(columns, index);
  }
  return index.get(term) ?? -1;
}

function countReadable(columns: IndexColumns, start: number, end: number, readable: Uint8Array): number {
  let count = 0;
  for (let posting = start; posting < end; posting++) count += readable[columns.postingChunks[posting]!]!;
  return count;
}

function scratchOf(columns: IndexColumns): Scratch {
  let scratch = scratches.get(columns);
  if (!scratch) {
    const chunks = columns.chunkIds.length;
    scratch = { sums: new Float64Array(chunks), stamps: new Uint32Array(chunks), touched: new Uint32Array(chunks), epoch: 0 };
    scratches.set(columns, scratch);
  }
  return scratch;
}
