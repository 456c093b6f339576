import { describe, expect, test } from 'vitest';
import { MAX_DELETED_SHARE, MERGE_FACTOR, selectMerge, type SegmentSize } from './merge-policy.ts';

/** Segments of `postings` postings each, ids from `firstId`, none deleted. */
function segments(count: number, postings: number, firstId = 1): SegmentSize[] {
  return Array.from({ length: count }, (_, index) => ({ id: firstId + index, units: 10, postings, deleted: 0 }));
}

describe('merge policy (Lucene LogMergePolicy)', () => {
  test(`fewer than ${MERGE_FACTOR} segments on every level: nothing merged`, () => {
    expect(selectMerge([...segments(MERGE_FACTOR - 1, 500), ...segments(MERGE_FACTOR - 1, 50_000, 100)])).toBeUndefined();
  });

  test(`${MERGE_FACTOR} segments of one level: the oldest ${MERGE_FACTOR} of them merged, the lowest full level first`, () => {
    const chosen = selectMerge([...segments(MERGE_FACTOR + 1, 50_000, 100), ...segments(MERGE_FACTOR, 500)]);

    expect(chosen).toEqual(segments(MERGE_FACTOR, 500).map((segment) => segment.id));
  });

  test('a large segment a quarter deleted: counted by its live postings, so merged with the segments of the level below', () => {
    const replaced = { id: 50, units: 100, postings: 12_000, deleted: 25 };

    const chosen = selectMerge([replaced, ...segments(MERGE_FACTOR - 1, 5_000)]);

    expect(chosen).toContain(50);
    expect(chosen).toHaveLength(MERGE_FACTOR);
  });

  test(`a segment more than ${Math.round(MAX_DELETED_SHARE * 100)} % deleted: rewritten alone before any level merge`, () => {
    const replaced = { id: 50, units: 100, postings: 50_000, deleted: 34 };

    expect(selectMerge([...segments(MERGE_FACTOR, 500), replaced])).toEqual([50]);
    expect(selectMerge([...segments(MERGE_FACTOR - 1, 500), { ...replaced, deleted: 33 }])).toBeUndefined();
  });
});
