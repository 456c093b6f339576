import { FIELD_COUNT, PAGE_FIELD_COUNT, type FieldCounts, type IndexedPage, type IndexedPassage, type PageFieldCounts } from './index-data.ts';
import type { ChunkInput, DocumentInput } from '../documents/documents.ts';

/**
 * A prepared document in the form that crosses from an ingest worker to the
 * thread that writes it (ingest/pipeline/prepare-worker.ts): the index of its
 * passages and of its page in flat typed arrays over one list of the
 * document's distinct terms, instead of a map of term to counts per passage.
 * A structured clone copies a typed array at once where it rebuilt every
 * map entry and array of counts one object at a time: at 16 copies of the
 * Node.js docs (78,000 passages), receiving prepared documents took about
 * 3.5 s of the writing thread and left it 2.4 s of garbage collection.
 *
 * The writing thread wraps the arrays ({@link fromWire}) without rebuilding
 * the maps: each passage's `index` is a {@link PackedIndex}, which the
 * segment writer (segment-codec.ts `packSegment`) reads posting by posting
 * from the arrays, and which builds its `terms` map only if something else
 * asks for it.
 */

/** A document's index in flat arrays. Each posting is a term's index in `terms`, then its frequency in each field. */
export interface DocumentIndexWire {
  /** The document's distinct terms, over its passages and its page. */
  terms: string[];
  /** Passage `p`'s postings are postings `passageStarts[p]` to `passageStarts[p + 1] - 1` of `passagePostings`. */
  passageStarts: Uint32Array;
  /** `1 + FIELD_COUNT` numbers a posting. */
  passagePostings: Uint32Array;
  /** `FIELD_COUNT` lengths a passage. */
  passageLengths: Uint32Array;
  /** `1 + PAGE_FIELD_COUNT` numbers a posting. */
  pagePostings: Uint32Array;
  /** `PAGE_FIELD_COUNT` lengths. */
  pageLengths: Uint32Array;
}

/** A {@link DocumentInput} with its index flattened ({@link DocumentIndexWire}). */
export type DocumentInputWire = Omit<DocumentInput, 'chunks' | 'page'> & {
  chunks: Omit<ChunkInput, 'index'>[];
  index: DocumentIndexWire;
};

/** Postings of one unit in a document's flat arrays: what the segment writer reads. */
export interface PackedPostings {
  /** The document's terms, which the postings' first numbers index. */
  readonly termList: readonly string[];
  /** `1 + fieldCount` numbers a posting: term index, frequencies. */
  readonly postings: Uint32Array;
  /** This unit's postings: `start` to `end - 1`. */
  readonly start: number;
  readonly end: number;
}

/**
 * One unit's (passage's or page's) index over a document's flat arrays, as
 * {@link IndexedPassage} or {@link IndexedPage}: `terms` is built on first
 * use; the segment writer reads `packed` instead.
 */
export class PackedIndex<Counts extends readonly number[]> {
  readonly lengths: Counts;
  readonly packed: PackedPostings;
  #terms: Map<string, Counts> | undefined;

  constructor(lengths: Counts, packed: PackedPostings) {
    this.lengths = lengths;
    this.packed = packed;
  }

  /** Term -> its frequency in each field. */
  get terms(): Map<string, Counts> {
    if (this.#terms === undefined) {
      const { termList, postings, start, end } = this.packed;
      const stride = this.lengths.length + 1;
      this.#terms = new Map();
      for (let posting = start; posting < end; posting++) {
        const at = posting * stride;
        this.#terms.set(termList[postings[at]!]!, Array.from(postings.subarray(at + 1, at + stride)) as unknown as Counts);
      }
    }
    return this.#terms;
  }
}

/** Flattens a prepared document's index (in the worker that prepared it); counts are non-negative integers below 2^32. */
export function toWire(input: DocumentInput): DocumentInputWire {
  const termIndexes = new Map<string, number>();
  const termIndex = (term: string): number => {
    let index = termIndexes.get(term);
    if (index === undefined) termIndexes.set(term, (index = termIndexes.size));
    return index;
  };
  const postingCount = input.chunks.reduce((sum, chunk) => sum + chunk.index.terms.size, 0);
  const passageStarts = new Uint32Array(input.chunks.length + 1);
  const passagePostings = new Uint32Array(postingCount * (1 + FIELD_COUNT));
  const passageLengths = new Uint32Array(input.chunks.length * FIELD_COUNT);
  let posting = 0;
  input.chunks.forEach((chunk, position) => {
    passageStarts[position] = posting;
    posting = writePostings(chunk.index.terms, FIELD_COUNT, passagePostings, posting, termIndex);
    passageLengths.set(chunk.index.lengths, position * FIELD_COUNT);
  });
  passageStarts[input.chunks.length] = posting;
  const pagePostings = new Uint32Array(input.page.terms.size * (1 + PAGE_FIELD_COUNT));
  writePostings(input.page.terms, PAGE_FIELD_COUNT, pagePostings, 0, termIndex);
  const { chunks, page: _page, ...document } = input;
  return {
    ...document,
    chunks: chunks.map(({ index: _index, ...chunk }) => chunk),
    index: { terms: [...termIndexes.keys()], passageStarts, passagePostings, passageLengths, pagePostings, pageLengths: Uint32Array.from(input.page.lengths) },
  };
}

/** Writes a unit's postings from posting `at` on; returns the position after them. */
function writePostings(
  terms: ReadonlyMap<string, readonly number[]>,
  fieldCount: number,
  into: Uint32Array,
  at: number,
  termIndex: (term: string) => number,
): number {
  let posting = at;
  for (const [term, frequencies] of terms) {
    const offset = posting * (1 + fieldCount);
    into[offset] = termIndex(term);
    into.set(frequencies, offset + 1);
    posting += 1;
  }
  return posting;
}

/** The document a worker flattened, its index wrapped ({@link PackedIndex}), on the thread that writes it. */
export function fromWire(wire: DocumentInputWire): DocumentInput {
  const { chunks, index, ...document } = wire;
  const { terms, passageStarts, passagePostings, passageLengths, pagePostings, pageLengths } = index;
  return {
    ...document,
    chunks: chunks.map((chunk, position) => ({
      ...chunk,
      index: new PackedIndex(
        Array.from(passageLengths.subarray(position * FIELD_COUNT, (position + 1) * FIELD_COUNT)) as unknown as FieldCounts,
        { termList: terms, postings: passagePostings, start: passageStarts[position]!, end: passageStarts[position + 1]! },
      ) satisfies IndexedPassage,
    })),
    page: new PackedIndex(Array.from(pageLengths) as unknown as PageFieldCounts, {
      termList: terms,
      postings: pagePostings,
      start: 0,
      end: pagePostings.length / (1 + PAGE_FIELD_COUNT),
    }) satisfies IndexedPage,
  };
}

/** The flat postings of a unit's index when it is a {@link PackedIndex}. */
export function packedPostingsOf(index: IndexedPassage | IndexedPage): PackedPostings | undefined {
  return index instanceof PackedIndex ? index.packed : undefined;
}
