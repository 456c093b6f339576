import { describe, expect, test } from 'vitest';
import { inverseDocumentFrequency, PASSAGE_RANKING } from './bm25f.ts';
import { scoreColumns, type QueryTerm } from './index-scorer.ts';
import type { IndexColumns } from '../store/index/index-data.ts';

/**
 * The scorer keeps, per index held in memory, the parts of combined BM25F
 * that do not depend on the question (each passage's length normalization
 * for each reach's average lengths, each term's weighted frequencies). What
 * a search returns must not depend on what earlier searches left there:
 * every score is the formula's, to the last bit, whichever reach asked
 * before and whichever terms were read before.
 */

/** A deterministic random source (a linear congruential generator), so a failure can be replayed. */
function randomSource(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const FIELDS = PASSAGE_RANKING.fields.length;

/** An index of `units` passages over `terms` terms, each term on a random share of them, frequencies in every field. */
function randomColumns(random: () => number, units: number, terms: number): IndexColumns {
  const starts = [0];
  const chunks: number[] = [];
  const frequencies: number[] = [];
  for (let term = 0; term < terms; term++) {
    const share = random() < 0.3 ? 0.01 : 0.1 + random() * 0.5;
    for (let slot = 0; slot < units; slot++) {
      if (random() >= share) continue;
      chunks.push(slot);
      const counts = Array.from({ length: FIELDS }, () => (random() < 0.6 ? 0 : 1 + Math.floor(random() * 4)));
      if (!counts.some((count) => count > 0)) counts[FIELDS - 1] = 1;
      frequencies.push(...counts);
    }
    starts.push(chunks.length);
  }
  return {
    version: 1,
    fieldCount: FIELDS,
    terms: Array.from({ length: terms }, (_, term) => `term${term}`),
    termStarts: Uint32Array.from(starts),
    postingChunks: Uint32Array.from(chunks),
    postingFrequencies: Uint16Array.from(frequencies),
    chunkIds: Float64Array.from({ length: units }, (_, slot) => 1000 + slot),
    chunkDocuments: Float64Array.from({ length: units }, (_, slot) => Math.floor(slot / 5)),
    chunkLengths: Uint32Array.from({ length: units * FIELDS }, () => 1 + Math.floor(random() * 60)),
  };
}

/** Combined-normalization BM25F of every readable unit, computed from the formula at each posting; best first, ties by slot. */
function formulaScores(columns: IndexColumns, query: readonly QueryTerm[], averages: readonly number[], readable: Uint8Array | undefined) {
  const weights = PASSAGE_RANKING.fields.map((field) => field.weight);
  const { k1 } = PASSAGE_RANKING;
  const b = PASSAGE_RANKING.fields[0]!.b;
  const units = readable ? readable.reduce((sum, flag) => sum + flag, 0) : columns.chunkIds.length;
  let average = 0;
  for (let field = 0; field < FIELDS; field++) average += weights[field]! * averages[field]!;
  const sums = new Map<number, number>();
  for (const { term, weight } of query) {
    const position = columns.terms.indexOf(term);
    const postings: number[] = [];
    for (let posting = columns.termStarts[position]!; posting < columns.termStarts[position + 1]!; posting++) {
      if (!readable || readable[columns.postingChunks[posting]!] === 1) postings.push(posting);
    }
    const termWeight = weight * inverseDocumentFrequency(units, postings.length);
    for (const posting of postings) {
      const slot = columns.postingChunks[posting]!;
      let frequency = 0;
      let length = 0;
      for (let field = 0; field < FIELDS; field++) {
        frequency += weights[field]! * columns.postingFrequencies[posting * FIELDS + field]!;
        length += weights[field]! * columns.chunkLengths[slot * FIELDS + field]!;
      }
      if (frequency === 0) continue;
      const norm = k1 * (1 - b + (b * length) / average);
      sums.set(slot, (sums.get(slot) ?? 0) + (termWeight * frequency * (k1 + 1)) / (frequency + norm));
    }
  }
  return [...sums].sort(([left, a], [right, z]) => z - a || left - right);
}

describe('scoreColumns (combined BM25F)', () => {
  test('every search scores by the formula, whichever reaches and terms earlier searches of the same index read', () => {
    const random = randomSource(11);
    const columns = randomColumns(random, 3000, 12);
    const reaches = [
      { averages: [3, 0, 6, 40], readable: undefined },
      { averages: [4, 0, 5, 31], readable: Uint8Array.from({ length: 3000 }, () => (random() < 0.7 ? 1 : 0)) },
      { averages: [2, 0, 9, 55], readable: Uint8Array.from({ length: 3000 }, () => (random() < 0.4 ? 1 : 0)) },
    ];
    for (let search = 0; search < 60; search++) {
      const { averages, readable } = reaches[search % reaches.length]!;
      const query: QueryTerm[] = [...new Set(Array.from({ length: 1 + Math.floor(random() * 5) }, () => Math.floor(random() * 12)))].map((term) => ({
        term: `term${term}`,
        weight: random() < 0.8 ? 1 : 0.5,
      }));
      const units = readable ? readable.reduce((sum, flag) => sum + flag, 0) : 3000;

      const scored = scoreColumns(columns, PASSAGE_RANKING, query, units, averages, readable, 50);

      const expected = formulaScores(columns, query, averages, readable).slice(0, 50);
      expect(scored.chunkIds).toEqual(expected.map(([slot]) => 1000 + slot));
      expect(scored.scores).toEqual(expected.map(([, score]) => score));
    }
  });
});
