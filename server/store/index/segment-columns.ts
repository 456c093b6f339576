import type { IndexColumns } from './index-data.ts';
import { decodedPostings, decodeRun, runLength } from './segment-codec.ts';

/**
 * Reading packed postings back (segment-codec.ts has their format): the term
 * rows of a knowledge base's segments, as one snapshot returned them, into
 * the {@link IndexColumns} retrieval scores.
 */

/** A `segment_terms` row as both backends' reads select it: term, segment id, packed postings. */
export type TermRow = readonly [term: string, segmentId: number, postings: Buffer];

/** Postings a term can have, as a power of two: a posting's position within its term rides in the low bits of its sort key. */
const POSITION_BITS = 2 ** 24;

/**
 * Builds {@link IndexColumns} from packed term rows read in one snapshot, the
 * postings of deleted units left out: the row mapping both backends share.
 * Rows come grouped by term (a term's
 * rows together, one per segment holding it); the units are those the live
 * postings name. The rows are kept as read and decoded once, at the end,
 * into typed arrays (no per-posting objects or map lookups: a search reads
 * tens of thousands of postings).
 */
export class SegmentColumnsBuilder {
  readonly #version: number;
  readonly #fieldCount: number;
  readonly #deleted: ReadonlyMap<number, ReadonlySet<number>>;
  readonly #rows: { term: string; segmentId: number; postings: Buffer; count: number }[] = [];
  #postingCount = 0;

  /** @param deleted segment id -> ids of the units whose postings in it are deleted */
  constructor(version: number, fieldCount: number, deleted: ReadonlyMap<number, ReadonlySet<number>>) {
    this.#version = version;
    this.#fieldCount = fieldCount;
    this.#deleted = deleted;
  }

  /** Adds term rows, each a term's packed postings in one segment, following those added before. */
  add(rows: Iterable<TermRow>): void {
    for (const [term, segmentId, postings] of rows) {
      const count = runLength(postings);
      this.#rows.push({ term, segmentId, postings, count });
      this.#postingCount += count;
    }
  }

  /** The columns of every live posting added; units in ascending id (their chunk slots). */
  finish(): IndexColumns {
    const fieldCount = this.#fieldCount;
    const rows = this.#rows;
    // Pass 1: every posting decoded, and which are live.
    const decoded = decodedPostings(fieldCount, this.#postingCount);
    const live = new Uint8Array(decoded.count);
    let liveCount = 0;
    let position = 0;
    for (const { segmentId, postings } of rows) {
      const end = decodeRun(fieldCount, postings, decoded, position);
      const deleted = this.#deleted.get(segmentId);
      for (; position < end; position++) {
        if (deleted?.has(decoded.unitIds[position]!)) continue;
        live[position] = 1;
        liveCount += 1;
      }
    }
    const { chunkIds, slotOf } = unitSlots(decoded.unitIds, live, liveCount);
    const unitCount = chunkIds.length;
    const chunkDocuments = new Float64Array(unitCount);
    const chunkLengths = new Uint32Array(unitCount * fieldCount);
    // Pass 2: term by term, each live posting's slot and frequencies, its unit's document and lengths.
    const postingChunks = new Uint32Array(liveCount);
    const postingFrequencies = new Uint16Array(liveCount * fieldCount);
    const terms: string[] = [];
    const termStarts: number[] = [];
    let written = 0;
    position = 0;
    for (let first = 0; first < rows.length; ) {
      let end = first + 1;
      while (end < rows.length && rows[end]!.term === rows[first]!.term) end += 1;
      const termStart = written;
      for (let row = first; row < end; row++) {
        const rowEnd = position + rows[row]!.count;
        for (; position < rowEnd; position++) {
          if (!live[position]) continue;
          const slot = slotOf(decoded.unitIds[position]!);
          chunkDocuments[slot] = decoded.documentIds[position]!;
          for (let field = 0; field < fieldCount; field++) {
            chunkLengths[slot * fieldCount + field] = decoded.lengths[position * fieldCount + field]!;
            postingFrequencies[written * fieldCount + field] = decoded.frequencies[position * fieldCount + field]!;
          }
          postingChunks[written] = slot;
          written += 1;
        }
      }
      // Terms with no live posting are left out, as a row-per-posting read would.
      if (written > termStart) {
        terms.push(rows[first]!.term);
        termStarts.push(termStart);
        if (end - first > 1 && !ascending(postingChunks, termStart, written)) orderBySlot(postingChunks, postingFrequencies, fieldCount, termStart, written);
      }
      first = end;
    }
    termStarts.push(written);
    return {
      version: this.#version,
      fieldCount,
      terms,
      termStarts: Uint32Array.from(termStarts),
      postingChunks,
      postingFrequencies,
      chunkIds,
      chunkDocuments,
      chunkLengths,
    };
  }
}

/**
 * The distinct unit ids of the live postings, ascending (their slots), and a
 * lookup from unit id to slot: a table indexed by id when the ids are dense
 * (a knowledge base's units are numbered mostly in sequence), else a binary
 * search over the sorted ids.
 */
function unitSlots(unitIds: Float64Array, live: Uint8Array, liveCount: number): { chunkIds: Float64Array; slotOf: (unitId: number) => number } {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (let position = 0; position < unitIds.length; position++) {
    if (!live[position]) continue;
    const unitId = unitIds[position]!;
    if (unitId < low) low = unitId;
    if (unitId > high) high = unitId;
  }
  const range = high - low + 1;
  if (liveCount > 0 && range <= 4 * liveCount + 1024) {
    const slots = new Int32Array(range).fill(-1);
    for (let position = 0; position < unitIds.length; position++) if (live[position]) slots[unitIds[position]! - low] = 0;
    let count = 0;
    for (let offset = 0; offset < range; offset++) if (slots[offset] === 0) slots[offset] = count++;
    const chunkIds = new Float64Array(count);
    for (let offset = 0; offset < range; offset++) if (slots[offset]! >= 0) chunkIds[slots[offset]!] = low + offset;
    return { chunkIds, slotOf: (unitId) => slots[unitId - low]! };
  }
  const sorted = new Float64Array(liveCount);
  let filled = 0;
  for (let position = 0; position < unitIds.length; position++) if (live[position]) sorted[filled++] = unitIds[position]!;
  sorted.sort();
  let count = 0;
  for (let index = 0; index < sorted.length; index++) {
    if (index === 0 || sorted[index] !== sorted[count - 1]) sorted[count++] = sorted[index]!;
  }
  const chunkIds = sorted.slice(0, count);
  return { chunkIds, slotOf: (unitId) => indexOf(chunkIds, unitId) };
}

/** Position of `value` in the ascending `sorted`, which holds it (binary search). */
function indexOf(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Whether `values[start]` to `values[end - 1]` ascend: segments written one after another hold ascending unit ids, so a term's runs usually follow on. */
function ascending(values: Uint32Array, start: number, end: number): boolean {
  for (let index = start + 1; index < end; index++) if (values[index]! < values[index - 1]!) return false;
  return true;
}

/**
 * Orders the postings `start` to `end - 1` by slot, their frequencies with
 * them: a term read from several segments, each run ascending, interleaved.
 * Sorts one number per posting (slot, then position within the term, in
 * one float64) natively instead of comparing objects.
 */
function orderBySlot(chunks: Uint32Array, frequencies: Uint16Array, fieldCount: number, start: number, end: number): void {
  const count = end - start;
  if (count > POSITION_BITS) throw new Error(`A term has ${count} postings, more than ${POSITION_BITS} can be ordered`);
  const keys = new Float64Array(count);
  for (let index = 0; index < count; index++) keys[index] = chunks[start + index]! * POSITION_BITS + index;
  keys.sort();
  const previous = frequencies.slice(start * fieldCount, end * fieldCount);
  for (let index = 0; index < count; index++) {
    const from = keys[index]! % POSITION_BITS;
    chunks[start + index] = (keys[index]! - from) / POSITION_BITS;
    for (let field = 0; field < fieldCount; field++) frequencies[(start + index) * fieldCount + field] = previous[from * fieldCount + field]!;
  }
}
