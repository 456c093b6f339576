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
export function runLength(run: Buffer): number {
  return new VarintReader(run).read();
}

/** Decodes runs into `into`, from posting `at` on; returns the position after the last. */
export function decodeRun(fieldCount: number, run: Buffer, into: DecodedPostings, at: number): number {
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
export function decodedPostings(fieldCount: number, count: number): DecodedPostings {
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
