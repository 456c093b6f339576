import { describe, expect, test } from 'vitest';
import type { IndexColumns } from './index-data.ts';
import { mergePostings, packSegment, type SegmentUnit } from './segment-codec.ts';
import { SegmentColumnsBuilder } from './segment-columns.ts';

/** Three passages of two documents, two fields each: unit id, document id, lengths, term frequencies. */
const UNITS: SegmentUnit[] = [
  { unitId: 12, documentId: 2, lengths: [3, 9], terms: new Map([['falcon', [1, 2]], ['river', [0, 1]]]) },
  { unitId: 5, documentId: 1, lengths: [2, 7], terms: new Map([['falcon', [0, 3]], ['heron', [1, 0]]]) },
  { unitId: 9, documentId: 1, lengths: [1, 4], terms: new Map([['river', [0, 70_000]]]) },
];

/**
 * The columns of `units` as the retrieval reads them (index-data.ts), the
 * plain way: units in ascending id are the slots; terms in byte order, each
 * term's postings in slot order.
 */
function rowColumns(units: readonly SegmentUnit[], version = 1): IndexColumns {
  const ordered = [...units].sort((left, right) => left.unitId - right.unitId);
  const terms = [...new Set(ordered.flatMap((unit) => [...unit.terms.keys()]))].sort();
  const postings = terms.flatMap((term) => ordered.flatMap((unit, slot) => (unit.terms.has(term) ? [{ slot, frequencies: unit.terms.get(term)! }] : [])));
  const starts: number[] = [];
  let start = 0;
  for (const term of terms) {
    starts.push(start);
    start += ordered.filter((unit) => unit.terms.has(term)).length;
  }
  return {
    version,
    fieldCount: 2,
    terms,
    termStarts: Uint32Array.from([...starts, postings.length]),
    postingChunks: Uint32Array.from(postings.map((posting) => posting.slot)),
    postingFrequencies: Uint16Array.from(postings.flatMap((posting) => posting.frequencies.map((frequency) => Math.min(frequency, 0xffff)))),
    chunkIds: Float64Array.from(ordered.map((unit) => unit.unitId)),
    chunkDocuments: Float64Array.from(ordered.map((unit) => unit.documentId)),
    chunkLengths: Uint32Array.from(ordered.flatMap((unit) => unit.lengths)),
  };
}

/** Columns read back from packed segments, rows grouped by term as PostgreSQL returns them. */
function segmentColumns(segments: readonly { id: number; units: SegmentUnit[] }[], deleted = new Map<number, Set<number>>()) {
  const rows = segments.flatMap(({ id, units }) => {
    const packed = packSegment(2, units);
    return packed.terms.map((term, index) => ({ term, id, postings: packed.postings[index]! }));
  });
  rows.sort((left, right) => (left.term === right.term ? left.id - right.id : left.term < right.term ? -1 : 1));
  const builder = new SegmentColumnsBuilder(1, 2, deleted);
  builder.add(rows.map((row) => [row.term, row.id, row.postings] as const));
  return builder.finish();
}

describe('index segments packed and read back', () => {
  test('one segment: the same columns as the same postings read a row each (frequencies capped alike)', () => {
    const columns = segmentColumns([{ id: 1, units: UNITS }]);

    expect(columns).toEqual(rowColumns(UNITS));
    expect(columns.terms).toEqual(['falcon', 'heron', 'river']);
    const river = columns.termStarts[2]!;
    expect([...columns.postingFrequencies.slice(river * 2, river * 2 + 2)]).toEqual([0, 0xffff]);
  });

  test("units numbered far apart (other knowledge bases' ids between them): the same columns", () => {
    const sparse = UNITS.map((unit, index) => ({ ...unit, unitId: unit.unitId + index * 5_000_000 }));

    expect(segmentColumns([{ id: 1, units: sparse }])).toEqual(rowColumns(sparse));
  });

  test('a term in several segments, their units interleaved: its postings in ascending unit order, as if written at once', () => {
    const columns = segmentColumns([
      { id: 1, units: [UNITS[0]!] },
      { id: 2, units: [UNITS[1]!, UNITS[2]!] },
    ]);

    expect(columns).toEqual(rowColumns(UNITS));
  });

  test("a deleted unit: its postings and length left out, a term found only in it gone, the unit's re-indexed postings in a newer segment kept", () => {
    const reindexed: SegmentUnit = { ...UNITS[1]!, lengths: [2, 5], terms: new Map([['falcon', [0, 1]]]) };

    const columns = segmentColumns(
      [
        { id: 1, units: UNITS },
        { id: 2, units: [reindexed] },
      ],
      new Map([[1, new Set([5])]]),
    );

    expect(columns).toEqual(rowColumns([UNITS[0]!, reindexed, UNITS[2]!]));
    expect(columns.terms).not.toContain('heron');
  });

  test('postings merged from two segments: deleted units dropped, the rest in ascending unit order', () => {
    const [first, second] = [packSegment(2, [UNITS[0]!]), packSegment(2, [UNITS[1]!, UNITS[2]!])];
    const falcon = (segment: typeof first) => segment.postings[segment.terms.indexOf('falcon')]!;
    const river = (segment: typeof first) => segment.postings[segment.terms.indexOf('river')]!;

    const merged = mergePostings(2, [{ postings: falcon(first) }, { postings: falcon(second) }]);
    const withoutDeleted = mergePostings(2, [{ postings: river(first), deleted: new Set([12]) }, { postings: river(second) }]);

    expect(merged.count).toBe(2);
    expect(merged.postings).toEqual(falcon(packSegment(2, UNITS)));
    expect(withoutDeleted.postings).toEqual(river(packSegment(2, [UNITS[2]!])));
  });
});
