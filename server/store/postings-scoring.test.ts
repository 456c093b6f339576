import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { KnowledgeBasePostings } from './postings-cache.ts';
import { scoreTopK, type WeightedTerm } from './postings-scoring.ts';

/** One posting of a hand-made corpus. */
interface PostingSpec {
  term: number;
  chunk: number;
  document: number;
  termFrequency: number;
  length: number;
}

/** Lays out hand-made postings as the cache does: grouped by term, chunk slots in ascending chunk id. */
function postingsOf(specs: readonly PostingSpec[], termCount: number): KnowledgeBasePostings {
  const sorted = [...specs].sort((left, right) => left.term - right.term || left.chunk - right.chunk);
  const chunkIds = Float64Array.from(new Set(sorted.map((spec) => spec.chunk))).sort();
  const documentSlotOf = new Map<number, number>();
  for (const spec of sorted) if (!documentSlotOf.has(spec.document)) documentSlotOf.set(spec.document, documentSlotOf.size);
  const termStarts = new Uint32Array(termCount + 1);
  for (const spec of sorted) termStarts[spec.term + 1]!++;
  for (let term = 0; term < termCount; term++) termStarts[term + 1]! += termStarts[term]!;
  return {
    kbId: 'kb',
    version: 1,
    termIndex: new Map(Array.from({ length: termCount }, (_, term) => [`t${term}`, term])),
    termStarts,
    chunkSlots: Uint32Array.from(sorted.map((spec) => chunkIds.indexOf(spec.chunk))),
    documentSlots: Uint32Array.from(sorted.map((spec) => documentSlotOf.get(spec.document)!)),
    termFrequencies: Float64Array.from(sorted.map((spec) => spec.termFrequency)),
    lengths: Float64Array.from(sorted.map((spec) => spec.length)),
    chunkIds,
    documentSlotOf,
    postingCount: sorted.length,
    lastUsedAt: 0,
  };
}

/** Every candidate scored and sorted: the plain definition {@link scoreTopK} must agree with. */
function sortedCandidates(
  postings: KnowledgeBasePostings,
  terms: readonly WeightedTerm[],
  readable: Uint8Array | undefined,
  averageLength: number,
): { chunkId: number; score: number }[] {
  const contributions = new Map<number, number[]>();
  for (const { start, end, idf } of terms) {
    for (let posting = start; posting < end; posting++) {
      if (readable && readable[postings.documentSlots[posting]!] === 0) continue;
      const termFrequency = postings.termFrequencies[posting]!;
      const contribution = (idf * termFrequency * 1.9) / (termFrequency + 0.9 * (0.6 + (0.4 * postings.lengths[posting]!) / averageLength));
      const chunkId = postings.chunkIds[postings.chunkSlots[posting]!]!;
      contributions.set(chunkId, [...(contributions.get(chunkId) ?? []), contribution]);
    }
  }
  return [...contributions]
    .map(([chunkId, values]) => ({ chunkId, score: compensatedSum(values) }))
    .sort((left, right) => right.score - left.score || left.chunkId - right.chunkId);
}

/** Kahan-Babuska-Neumaier summation as SQLite's SUM() does it. */
function compensatedSum(values: readonly number[]): number {
  let sum = 0;
  let error = 0;
  for (const value of values) {
    const next = sum + value;
    error += Math.abs(sum) > Math.abs(value) ? sum - next + value : value - next + sum;
    sum = next;
  }
  return sum + error;
}

const TERMS = 4;
const corpusArbitrary = fc
  .uniqueArray(
    fc.record({
      term: fc.nat(TERMS - 1),
      chunk: fc.integer({ min: 1, max: 400 }),
      // Few distinct values, so that many candidates tie.
      termFrequency: fc.constantFrom(1, 2, 3),
      length: fc.constantFrom(5, 9),
    }),
    { selector: (spec) => `${spec.term}/${spec.chunk}`, minLength: 60, maxLength: 300 },
  )
  .map((specs) => specs.map((spec) => ({ ...spec, document: spec.chunk % 7 })));

describe('scoreTopK', () => {
  test('random postings with many ties, any top-k, with and without a reach: the first top-k of all candidates sorted by score, then chunk id', () => {
    fc.assert(
      fc.property(
        corpusArbitrary,
        fc.uniqueArray(fc.nat(TERMS - 1), { minLength: 1, maxLength: TERMS }),
        fc.oneof(fc.integer({ min: -1, max: 3 }), fc.integer({ min: 0, max: 40 })),
        fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
        fc.boolean(),
        (specs, termNumbers, topK, readableDocuments, partial) => {
          // Arrange
          const postings = postingsOf(specs, TERMS);
          const terms = termNumbers.map((term, index) => ({
            start: postings.termStarts[term]!,
            end: postings.termStarts[term + 1]!,
            idf: 0.5 + index * 0.75,
          }));
          let readable: Uint8Array | undefined;
          if (partial) {
            readable = new Uint8Array(postings.documentSlotOf.size);
            for (const [document, slot] of postings.documentSlotOf) readable[slot] = readableDocuments[document] ? 1 : 0;
          }

          // Act: twice, so that the reused scratch buffers are exercised
          scoreTopK(postings, terms, readable, 7.25, topK);
          const ranked = scoreTopK(postings, terms, readable, 7.25, topK);

          // Assert
          const all = sortedCandidates(postings, terms, readable, 7.25);
          const expected = topK < 0 ? all : all.slice(0, topK);
          expect(ranked.chunkIds).toEqual(expected.map((candidate) => candidate.chunkId));
          expect(ranked.scores).toEqual(expected.map((candidate) => candidate.score));
        },
      ),
      { numRuns: 300 },
    );
  });
});
