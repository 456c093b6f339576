import type { IndexColumns } from './index-data.ts';
import type { PackedPostings } from './packed-index.ts';

/**
 * The packed postings of an index segment (index-segments.ts): one byte
 * string per term and segment, so that a search reads a row per query term
 * and segment instead of a row per posting, and needs no join to find the
 * lengths of the units it scores.
 *
 * A term's postings in one segment, in ascending unit id, as variable-length
 * integers (Lucene's VInt: seven bits a byte, low bits first, the high bit
 * set on every byte but the last; "Apache Lucene - Index File Formats"):
 *
 * - the number of postings;
 * - per posting: the unit id (`chunks.id` for a passage, `documents.id` for
 *   a page) minus the previous posting's (the first: minus 0); the unit's
 *   document id minus the previous posting's, zigzag-encoded (it may go
 *   down); the term's frequency in each field (capped at 65,535); the unit's
 *   length in each field, in analyzed terms.
 *
 * Most numbers fit in a byte, so a posting of a passage (four fields) takes
 * about ten bytes where fixed-width numbers took forty: a search moves a
 * quarter of the bytes. The lengths ride along (norms inline) because a read
 * of a few terms must not look up tens of thousands of units elsewhere.
 * PostgreSQL stores the rows uncompressed (`STORAGE EXTERNAL`): a read is a
 * copy, not a decompression.
 */

/** Largest frequency a posting keeps per field (the columns' uint16 range): more is no more evidence under BM25's saturation. */
const MAX_FREQUENCY = 0xffff;

/** One unit (passage or page) of a segment as it is written. */
export interface SegmentUnit {
  unitId: number;
  documentId: number;
  /** Length of each field, in analyzed terms. */
  lengths: readonly number[];
  /** Term -> its frequency in each field (not read when `packed` is given). */
  terms: ReadonlyMap<string, readonly number[]>;
  /** The same postings in a document's flat arrays (packed-index.ts), read instead of `terms` when given. */
  packed?: PackedPostings;
}

/** A segment's postings, packed: `terms[i]`'s are `postings[i]`. */
export interface PackedSegment {
  /** Distinct terms, in no particular order. */
  terms: string[];
  postings: Buffer[];
  /** Postings over all terms. */
  postingCount: number;
}

/** Postings decoded into columns: per posting its unit, document, and `fieldCount` frequencies and lengths. */
interface DecodedPostings {
  count: number;
  unitIds: Float64Array;
  documentIds: Float64Array;
  frequencies: Uint16Array;
  lengths: Uint32Array;
}

/** A growing byte string of variable-length integers. */
class VarintWriter {
  #bytes = Buffer.allocUnsafe(64);
  #length = 0;

  /** Appends a non-negative integer below 2^53. */
  write(value: number): void {
    if (this.#length + 8 > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(this.#bytes.length * 2);
      this.#bytes.copy(grown, 0, 0, this.#length);
      this.#bytes = grown;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.#bytes[this.#length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.#bytes[this.#length++] = rest;
  }

  /** The bytes written, in a buffer of their own, after `prefix` (a count). */
  finish(prefix: number): Buffer {
    const head = new VarintWriter();
    head.write(prefix);
    return Buffer.concat([head.#bytes.subarray(0, head.#length), this.#bytes.subarray(0, this.#length)]);
  }
}

/** A reader of variable-length integers from `bytes`, at `offset`. */
class VarintReader {
  offset = 0;
  readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  read(): number {
    const bytes = this.bytes;
    let byte = bytes[this.offset++]!;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    do {
      byte = bytes[this.offset++]!;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    return value;
  }
}

/** Zigzag encoding (as protobuf's): small magnitudes, either sign, to small non-negative integers. */
function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/** One term's run being written, posting by posting in ascending unit id (the format above). */
class RunWriter {
  readonly #fieldCount: number;
  readonly #writer = new VarintWriter();
  #count = 0;
  #previousUnit = 0;
  #previousDocument = 0;

  constructor(fieldCount: number) {
    this.#fieldCount = fieldCount;
  }

  /**
   * Appends a posting: its frequencies are `fieldCount` values of
   * `frequencies` from `offset`, its unit's lengths as many of `lengths`
   * from `lengthOffset`.
   */
  add(unitId: number, documentId: number, frequencies: ArrayLike<number>, lengths: ArrayLike<number>, offset = 0, lengthOffset = offset): void {
    const writer = this.#writer;
    writer.write(unitId - this.#previousUnit);
    writer.write(zigzag(documentId - this.#previousDocument));
    for (let field = 0; field < this.#fieldCount; field++) writer.write(Math.min(frequencies[offset + field]!, MAX_FREQUENCY));
    for (let field = 0; field < this.#fieldCount; field++) writer.write(lengths[lengthOffset + field]!);
    this.#previousUnit = unitId;
    this.#previousDocument = documentId;
    this.#count += 1;
  }

  /** The run: its count, then its postings. */
  finish(): Buffer {
    return this.#writer.finish(this.#count);
  }
}

/** Encodes decoded postings `indexes` (ascending unit id) as one term's run. */
function encodeRun(fieldCount: number, postings: DecodedPostings, indexes: ArrayLike<number>): Buffer {
  const run = new RunWriter(fieldCount);
  for (let position = 0; position < indexes.length; position++) {
    const index = indexes[position]!;
    run.add(postings.unitIds[index]!, postings.documentIds[index]!, postings.frequencies, postings.lengths, index * fieldCount);
  }
  return run.finish();
}

/** The number of postings of a term's run. */
function runLength(run: Buffer): number {
  return new VarintReader(run).read();
}

/** Decodes runs into `into`, from posting `at` on; returns the position after the last. */
function decodeRun(fieldCount: number, run: Buffer, into: DecodedPostings, at: number): number {
  const reader = new VarintReader(run);
  const count = reader.read();
  let unitId = 0;
  let documentId = 0;
  for (let index = at; index < at + count; index++) {
    unitId += reader.read();
    documentId += unzigzag(reader.read());
    into.unitIds[index] = unitId;
    into.documentIds[index] = documentId;
    for (let field = 0; field < fieldCount; field++) into.frequencies[index * fieldCount + field] = reader.read();
    for (let field = 0; field < fieldCount; field++) into.lengths[index * fieldCount + field] = reader.read();
  }
  return at + count;
}

/** Empty columns for `count` postings. */
function decodedPostings(fieldCount: number, count: number): DecodedPostings {
  return {
    count,
    unitIds: new Float64Array(count),
    documentIds: new Float64Array(count),
    frequencies: new Uint16Array(count * fieldCount),
    lengths: new Uint32Array(count * fieldCount),
  };
}

/**
 * Packs units' postings term by term, each term's in ascending unit id.
 *
 * @param units the segment's units, any order, each id once
 */
export function packSegment(fieldCount: number, units: readonly SegmentUnit[]): PackedSegment {
  const ordered = [...units].sort((left, right) => left.unitId - right.unitId);
  const runs = new Map<string, RunWriter>();
  const runOf = (term: string) => {
    let run = runs.get(term);
    if (!run) runs.set(term, (run = new RunWriter(fieldCount)));
    return run;
  };
  // Packed units: each document's term list is mapped to runs once, not each posting's term looked up.
  const runsByTermList = new Map<readonly string[], (RunWriter | undefined)[]>();
  const stride = fieldCount + 1;
  let postingCount = 0;
  for (const unit of ordered) {
    if (unit.packed) {
      const { termList, postings, start, end } = unit.packed;
      let listRuns = runsByTermList.get(termList);
      if (!listRuns) runsByTermList.set(termList, (listRuns = new Array<RunWriter | undefined>(termList.length)));
      for (let posting = start; posting < end; posting++) {
        const at = posting * stride;
        const termIndex = postings[at]!;
        const run = (listRuns[termIndex] ??= runOf(termList[termIndex]!));
        run.add(unit.unitId, unit.documentId, postings, unit.lengths, at + 1, 0);
      }
      postingCount += end - start;
      continue;
    }
    for (const [term, frequencies] of unit.terms) {
      runOf(term).add(unit.unitId, unit.documentId, frequencies, unit.lengths);
      postingCount += 1;
    }
  }
  const terms = [...runs.keys()];
  return { terms, postings: terms.map((term) => runs.get(term)!.finish()), postingCount };
}

/**
 * Merges one term's packed postings from several segments into one run in
 * ascending unit id, leaving out the postings of deleted units.
 *
 * @param runs the term's postings in each segment, with that segment's deleted unit ids
 */
export function mergePostings(fieldCount: number, runs: readonly { postings: Buffer; deleted?: ReadonlySet<number> }[]): { postings: Buffer; count: number } {
  const decoded = decodedPostings(
    fieldCount,
    runs.reduce((sum, run) => sum + runLength(run.postings), 0),
  );
  const kept: number[] = [];
  let at = 0;
  for (const { postings, deleted } of runs) {
    const end = decodeRun(fieldCount, postings, decoded, at);
    for (let index = at; index < end; index++) if (!deleted?.has(decoded.unitIds[index]!)) kept.push(index);
    at = end;
  }
  if (runs.length > 1) kept.sort((left, right) => decoded.unitIds[left]! - decoded.unitIds[right]!);
  return { postings: encodeRun(fieldCount, decoded, kept), count: kept.length };
}

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
