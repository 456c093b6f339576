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
  const ranges: { term: number; start: number; end: number; weight: number }[] = [];
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
    if (frequency > 0 && weight > 0) ranges.push({ term: index, start, end, weight: weight * inverseDocumentFrequency(unitCount, frequency) });
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
  let combinedAverage = 0;
  for (let field = 0; field < fieldCount; field++) combinedAverage += weights[field]! * averageLengths[field]!;
  const constants = ranking.fields.map(({ b }, field) => (averageLengths[field]! > 0 ? 1 - b : 1));
  const slopes = ranking.fields.map(({ b }, field) => (averageLengths[field]! > 0 ? b / averageLengths[field]! : 0));
  let touchedCount = 0;
  const add = (slot: number, contribution: number): void => {
    if (stamps[slot] !== epoch) {
      stamps[slot] = epoch;
      sums[slot] = contribution;
      touched[touchedCount++] = slot;
    } else {
      sums[slot] = sums[slot]! + contribution;
    }
  };
  if (combined) {
    // Each passage's length normalization and each posting's weighted frequency, computed once (CombinedTables).
    const norms = combinedNorms(columns, ranking, combinedAverage);
    for (const { term, start, end, weight } of ranges) {
      const frequencies = combinedFrequencies(columns, ranking, term, start, end);
      for (let posting = start; posting < end; posting++) {
        const slot = postingChunks[posting]!;
        if (readable && readable[slot] === 0) continue;
        const frequency = frequencies[posting - start]!;
        if (frequency === 0) continue;
        add(slot, (weight * frequency * k1PlusOne) / (frequency + norms[slot]!));
      }
    }
  } else {
    for (const { start, end, weight } of ranges) {
      for (let posting = start; posting < end; posting++) {
        const slot = postingChunks[posting]!;
        if (readable && readable[slot] === 0) continue;
        const frequencyAt = posting * fieldCount;
        const lengthAt = slot * fieldCount;
        let pseudoFrequency = 0;
        for (let field = 0; field < fieldCount; field++) {
          const frequency = postingFrequencies[frequencyAt + field]!;
          if (frequency === 0 || weights[field] === 0) continue;
          pseudoFrequency += (weights[field]! * frequency) / (constants[field]! + slopes[field]! * chunkLengths[lengthAt + field]!);
        }
        if (pseudoFrequency === 0) continue;
        add(slot, (weight * pseudoFrequency * k1PlusOne) / (k1 + pseudoFrequency));
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

/**
 * The parts of combined-normalization BM25F that do not depend on the
 * question, for one columns object and ranking: per passage, `k1 × (1 − b +
 * b × length / average length)` over its weighted field lengths (for the
 * last few average lengths: each reach has its own); per posting of a term,
 * its weighted frequency (Σ field weight × frequency), made the first time a
 * search reads the term. The same arithmetic, in the same order, as
 * computing them at every posting of every search, so every score is the
 * same to the last bit. The frequencies kept are capped at a quarter of the
 * columns' postings (8 bytes each; all dropped, to be made again, when a
 * term would pass the cap).
 */
interface CombinedTables {
  ranking: FieldedBm25;
  /** Average weighted length -> each unit slot's normalization. */
  norms: Map<number, Float64Array>;
  /** Term position -> each of its postings' weighted frequency. */
  frequencies: Map<number, Float64Array>;
  frequenciesKept: number;
}

/** Average lengths whose normalizations a columns object keeps (a public visitor's reach, a signed-in one's, ...). */
const KEPT_NORMALIZATIONS = 4;

const combinedTablesOf = new WeakMap<IndexColumns, CombinedTables>();

function combinedTables(columns: IndexColumns, ranking: FieldedBm25): CombinedTables {
  let tables = combinedTablesOf.get(columns);
  if (tables?.ranking !== ranking) {
    tables = { ranking, norms: new Map(), frequencies: new Map(), frequenciesKept: 0 };
    combinedTablesOf.set(columns, tables);
  }
  return tables;
}

/** Each unit slot's length normalization for this average weighted length. */
function combinedNorms(columns: IndexColumns, ranking: FieldedBm25, average: number): Float64Array {
  const tables = combinedTables(columns, ranking);
  const known = tables.norms.get(average);
  if (known) return known;
  const { fieldCount, chunkLengths } = columns;
  const weights = ranking.fields.map((field) => field.weight);
  const k1 = ranking.k1;
  const b = ranking.fields[0]?.b ?? 0;
  const norms = new Float64Array(columns.chunkIds.length);
  for (let slot = 0; slot < norms.length; slot++) {
    let length = 0;
    for (let field = 0; field < fieldCount; field++) length += weights[field]! * chunkLengths[slot * fieldCount + field]!;
    norms[slot] = average > 0 ? k1 * (1 - b + (b * length) / average) : k1;
  }
  if (tables.norms.size >= KEPT_NORMALIZATIONS) tables.norms.delete(tables.norms.keys().next().value!);
  tables.norms.set(average, norms);
  return norms;
}

/** The weighted frequency of each posting of the term at `term` (its postings `start..end`). */
function combinedFrequencies(columns: IndexColumns, ranking: FieldedBm25, term: number, start: number, end: number): Float64Array {
  const tables = combinedTables(columns, ranking);
  const known = tables.frequencies.get(term);
  if (known) return known;
  const { fieldCount, postingFrequencies } = columns;
  const weights = ranking.fields.map((field) => field.weight);
  const table = new Float64Array(end - start);
  for (let posting = start; posting < end; posting++) {
    let frequency = 0;
    for (let field = 0; field < fieldCount; field++) frequency += weights[field]! * postingFrequencies[posting * fieldCount + field]!;
    table[posting - start] = frequency;
  }
  if (tables.frequenciesKept + table.length > columns.postingChunks.length / 4) {
    tables.frequencies.clear();
    tables.frequenciesKept = 0;
  }
  tables.frequencies.set(term, table);
  tables.frequenciesKept += table.length;
  return table;
}
