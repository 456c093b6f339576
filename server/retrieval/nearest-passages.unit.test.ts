import { describe, expect, test } from 'vitest';
import { nearestPassages } from './nearest-passages.ts';
import { approximateSimilarities } from './quantized-scan.ts';
import { topSlots } from './top-k.ts';
import { clusteredIndex, dotProducts } from '../testing/dense-vectors.ts';
import { DOCUMENT_SIMILARITY_PASSAGES, type DenseIndex } from '../store/store.ts';

const DIMENSIONS = 384;
/** The 8-bit pass whatever the index's size (it is taken from 65,536 passages by default). */
const EIGHT_BIT = 0;

/** The reference page similarity: the mean of the page's best 3 readable scores, a missing one counting 0. */
function referencePage(index: DenseIndex, scores: Float64Array, readable: Uint32Array, documentId: number): number {
  const page = [...readable].filter((slot) => index.documentIds[slot] === documentId).map((slot) => scores[slot]!);
  page.sort((left, right) => right - left);
  return page.slice(0, DOCUMENT_SIMILARITY_PASSAGES).reduce((total, score) => total + score, 0) / DOCUMENT_SIMILARITY_PASSAGES;
}

describe('the nearest passages', () => {
  test('are those of scoring every vector exactly, where the 8-bit scan alone would rank some of them otherwise', async () => {
    const index = clusteredIndex(4_000, DIMENSIONS, 17);
    const all = Uint32Array.from({ length: 4_000 }, (_, slot) => slot);
    let approximateOrderDiffered = 0;
    for (let question = 0; question < 12; question++) {
      // A question near a passage but not one of them.
      const query = index.vectors.slice(question * 331 * DIMENSIONS, (question * 331 + 1) * DIMENSIONS);
      query[question]! += 0.05;
      const reference = dotProducts(index, query);
      const expected = topSlots(reference, all, all.length, 50);

      const found = await nearestPassages(index, query, all, 50, EIGHT_BIT);

      expect(found.passages.map(({ slot }) => slot)).toEqual(expected);
      for (const { slot, similarity } of found.passages) expect(similarity).toBeCloseTo(reference[slot]!, 6);
      const { scores } = await approximateSimilarities(index, query);
      if (topSlots(scores, all, all.length, 50).some((slot, rank) => slot !== expected[rank])) approximateOrderDiffered++;
    }
    // Otherwise this test could not tell the exact scoring from the approximate one.
    expect(approximateOrderDiffered).toBeGreaterThan(0);
  });

  test("give each result's page its similarity, the mean of its 3 best passages inside the reach, and nothing outside the reach", async () => {
    const index = clusteredIndex(2_100, DIMENSIONS, 23);
    // Page 3 lies outside the reach.
    const readable = Uint32Array.from({ length: 2_100 }, (_, slot) => slot).filter((slot) => index.documentIds[slot] !== 3);
    for (const questionSlot of [3, 10, 500]) {
      const query = index.vectors.slice(questionSlot * DIMENSIONS, (questionSlot + 1) * DIMENSIONS);
      const reference = dotProducts(index, query);

      const found = await nearestPassages(index, query, readable, 20, EIGHT_BIT);

      expect(found.passages.map(({ slot }) => slot)).toEqual(topSlots(reference, readable, readable.length, 20));
      expect(found.passages.some(({ slot }) => index.documentIds[slot] === 3)).toBe(false);
      expect([...found.documents.keys()].sort()).toEqual([...new Set(found.passages.map(({ slot }) => index.documentIds[slot]!))].sort());
      for (const [documentId, similarity] of found.documents) expect(similarity).toBeCloseTo(referencePage(index, reference, readable, documentId), 6);
    }
  });

  test('count a missing passage as 0 in the similarity of a page shorter than 3 passages', async () => {
    // Pages 10 (four passages), 20 (one), 30 (two).
    const index: DenseIndex = { ...clusteredIndex(7, 16, 5), documentIds: [10, 10, 10, 10, 20, 30, 30] };
    const query = index.vectors.slice(4 * 16, 5 * 16);
    const all = Uint32Array.from({ length: 7 }, (_, slot) => slot);
    const reference = dotProducts(index, query);

    const found = await nearestPassages(index, query, all, 7, EIGHT_BIT);

    expect(found.documents.get(20)).toBeCloseTo(reference[4]! / 3, 6);
    expect(found.documents.get(30)).toBeCloseTo((reference[5]! + reference[6]!) / 3, 6);
    expect(found.documents.get(10)).toBeCloseTo(referencePage(index, reference, all, 10), 6);
  });

  test('are scored by the float32 scan below the size the 8-bit pass pays from, with the same results', async () => {
    const index = clusteredIndex(2_000, DIMENSIONS, 29);
    const all = Uint32Array.from({ length: 2_000 }, (_, slot) => slot);
    const query = index.vectors.slice(40 * DIMENSIONS, 41 * DIMENSIONS);
    query[3]! += 0.05;
    const reference = dotProducts(index, query);

    const found = await nearestPassages(index, query, all, 30);

    expect(found.passages.map(({ slot }) => slot)).toEqual(topSlots(reference, all, all.length, 30));
    expect(await nearestPassages(index, query, all, 30, EIGHT_BIT)).toEqual({
      passages: found.passages.map(({ slot, similarity }) => ({ slot, similarity: expect.closeTo(similarity, 6) })),
      documents: new Map([...found.documents].map(([documentId, similarity]) => [documentId, expect.closeTo(similarity, 6)])),
    });
  });

  test('find nothing among no candidates', async () => {
    const index = clusteredIndex(10, 16, 5);
    expect(await nearestPassages(index, index.vectors.slice(0, 16), new Uint32Array(0), 5)).toEqual({ passages: [], documents: new Map() });
  });
});
