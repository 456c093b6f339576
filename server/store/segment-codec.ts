import type { IndexColumns } from './index-data.ts';

/**
 * The packed postings of an index segment (postgres-segments.ts): one byte
 * string per term and segment, so that a search reads a row per query term
 * and segment instead of a row per posting, and needs no join to find the
 * lengths of the units it scores.
 *
 * A term's postings, in ascending unit id, each `16 + 6 × fieldCount` bytes,
 * little-endian:
 *
 * | bytes | value |
 * |---|---|
 * | 8 | unit id (`chunks.id` for a passage, `documents.id` for a page), float64 |
 * | 8 | the unit's document id, float64 |
 * | 2 × fieldCount | the term's frequency in each field, uint16 (capped at 65,535) |
 * | 4 × fieldCount | the unit's length in each field, in analyzed terms, uint32 |
 *
 * The layout follows Lucene's postings in spirit (a term's postings stored
 * together, in unit order, read as one run; "Apache Lucene - Index File
 * Formats", `.doc` files), without its compression: PostgreSQL stores the
 * rows uncompressed (`STORAGE EXTERNAL`) so a read is a copy, and the lengths
 * ride along (norms inline) because a read of a few terms must not look up
 * tens of thousands of units elsewhere.
 */

/** Bytes of one posting with `fieldCount` fields. */
export function postingStride(fieldCount: number): number {
  return 16 + 6 * fieldCount;
}

/** Largest frequency a posting keeps per field, as in index-data.ts: more is no more evidence under BM25's saturation. */
const MAX_FREQUENCY = 0xffff;

/** One unit (passage or page) of a segment as it is written. */
export interface SegmentUnit {
  unitId: number;
  documentId: number;
  /** Length of each field, in analyzed terms. */
  lengths: readonly number[];
  /** Term -> its frequency in each field. */
  terms: ReadonlyMap<string, readonly number[]>;
}

/** A segment's postings, packed: `terms[i]`'s are `postings[i]`. */
export interface PackedSegment {
  /** Distinct terms, in byte order. */
  terms: string[];
  postings: Buffer[];
  /** Postings over all terms. */
  postingCount: number;
}

/**
 * Packs units' postings term by term, each term's in ascending unit id.
 *
 * @param units the segment's units, any order, each id once
 */
export function packSegment(fieldCount: number, units: readonly SegmentUnit[]): PackedSegment {
  const ordered = [...units].sort((left, right) => left.unitId - right.unitId);
  const counts = new Map<string, number>();
  for (const unit of ordered) for (const term of unit.terms.keys()) counts.set(term, (counts.get(term) ?? 0) + 1);
  const terms = [...counts.keys()].sort(compareBytes);
  const stride = postingStride(fieldCount);
  const buffers = new Map<string, { view: DataView; buffer: Buffer; offset: number }>();
  let postingCount = 0;
  for (const term of terms) {
    const buffer = Buffer.alloc(counts.get(term)! * stride);
    buffers.set(term, { buffer, view: new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength), offset: 0 });
  }
  for (const unit of ordered) {
    for (const [term, frequencies] of unit.terms) {
      const target = buffers.get(term)!;
      writePosting(target.view, target.offset, fieldCount, unit.unitId, unit.documentId, frequencies, unit.lengths);
      target.offset += stride;
      postingCount += 1;
    }
  }
  return { terms, postings: terms.map((term) => buffers.get(term)!.buffer), postingCount };
}

function writePosting(
  view: DataView,
  offset: number,
  fieldCount: number,
  unitId: number,
  documentId: number,
  frequencies: readonly number[],
  lengths: readonly number[],
): void {
  view.setFloat64(offset, unitId, true);
  view.setFloat64(offset + 8, documentId, true);
  for (let field = 0; field < fieldCount; field++) {
    view.setUint16(offset + 16 + 2 * field, Math.min(frequencies[field]!, MAX_FREQUENCY), true);
    view.setUint32(offset + 16 + 2 * fieldCount + 4 * field, lengths[field]!, true);
  }
}

/** Compares strings in UTF-8 byte order, the order of PostgreSQL's `"C"` collation. */
export function compareBytes(left: string, right: string): number {
  return Buffer.compare(Buffer.from(left), Buffer.from(right));
}

/** The unit id of the posting at `index` of a term's packed postings. */
export function postingUnitId(postings: Buffer, fieldCount: number, index: number): number {
  return postings.readDoubleLE(index * postingStride(fieldCount));
}

/**
 * Merges one term's packed postings from several segments into one run in
 * ascending unit id, leaving out the postings of deleted units.
 *
 * @param runs the term's postings in each segment, with that segment's deleted unit ids
 */
export function mergePostings(fieldCount: number, runs: readonly { postings: Buffer; deleted?: ReadonlySet<number> }[]): { postings: Buffer; count: number } {
  const stride = postingStride(fieldCount);
  const kept: { unitId: number; run: Buffer; offset: number }[] = [];
  for (const { postings, deleted } of runs) {
    for (let offset = 0; offset < postings.length; offset += stride) {
      const unitId = postings.readDoubleLE(offset);
      if (!deleted?.has(unitId)) kept.push({ unitId, run: postings, offset });
    }
  }
  if (runs.length > 1) kept.sort((left, right) => left.unitId - right.unitId);
  const merged = Buffer.allocUnsafe(kept.length * stride);
  kept.forEach((posting, index) => posting.run.copy(merged, index * stride, posting.offset, posting.offset + stride));
  return { postings: merged, count: kept.length };
}

/** Postings a term can have, as a power of two: a posting's position within its term rides in the low bits of its sort key. */
const POSITION_BITS = 2 ** 24;

/**
 * Builds {@link IndexColumns} from packed term rows read in one snapshot, the
 * postings of deleted units left out: the counterpart of index-data.ts's
 * `IndexColumnsBuilder` for segments. Rows come grouped by term (a term's
 * rows together, one per segment holding it); the units are those the live
 * postings name. The rows are kept as read and decoded once, at the end,
 * into typed arrays (no per-posting objects or map lookups: a search reads
 * tens of thousands of postings).
 */
export class SegmentColumnsBuilder {
  readonly #version: number;
  readonly #fieldCount: number;
  readonly #stride: number;
  readonly #deleted: ReadonlyMap<number, ReadonlySet<number>>;
  readonly #rows: { term: string; segmentId: number; postings: Buffer }[] = [];
  #postingCount = 0;

  /** @param deleted segment id -> ids of the units whose postings in it are deleted */
  constructor(version: number, fieldCount: number, deleted: ReadonlyMap<number, ReadonlySet<number>>) {
    this.#version = version;
    this.#fieldCount = fieldCount;
    this.#stride = postingStride(fieldCount);
    this.#deleted = deleted;
  }

  /** Adds one term's packed postings in one segment. */
  add(term: string, segmentId: number, postings: Buffer): void {
    this.#rows.push({ term, segmentId, postings });
    this.#postingCount += postings.length / this.#stride;
  }

  /** The columns of every live posting added; units in ascending id (their chunk slots). */
  finish(): IndexColumns {
    const fieldCount = this.#fieldCount;
    const stride = this.#stride;
    const rows = this.#rows;
    const total = this.#postingCount;
    // Pass 1: each posting's unit id, and which postings are live.
    const unitIds = new Float64Array(total);
    const live = new Uint8Array(total);
    let liveCount = 0;
    let position = 0;
    for (const { segmentId, postings } of rows) {
      const deleted = this.#deleted.get(segmentId);
      for (let offset = 0; offset < postings.length; offset += stride, position++) {
        const unitId = postings.readDoubleLE(offset);
        unitIds[position] = unitId;
        if (deleted?.has(unitId)) continue;
        live[position] = 1;
        liveCount += 1;
      }
    }
    const { chunkIds, slotOf } = unitSlots(unitIds, live, liveCount);
    const unitCount = chunkIds.length;
    const chunkDocuments = new Float64Array(unitCount);
    const chunkLengths = new Uint32Array(unitCount * fieldCount);
    const described = new Uint8Array(unitCount);
    // Pass 2: term by term, each live posting's slot and frequencies, its unit's document and lengths the first time.
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
        const { postings } = rows[row]!;
        for (let offset = 0; offset < postings.length; offset += stride, position++) {
          if (!live[position]) continue;
          const slot = slotOf(unitIds[position]!);
          if (!described[slot]) {
            described[slot] = 1;
            chunkDocuments[slot] = postings.readDoubleLE(offset + 8);
            for (let field = 0; field < fieldCount; field++) {
              chunkLengths[slot * fieldCount + field] = postings.readUInt32LE(offset + 16 + 2 * fieldCount + 4 * field);
            }
          }
          postingChunks[written] = slot;
          for (let field = 0; field < fieldCount; field++) {
            postingFrequencies[written * fieldCount + field] = postings.readUInt16LE(offset + 16 + 2 * field);
          }
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
