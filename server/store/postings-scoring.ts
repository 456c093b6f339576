import { BM25_B, BM25_K1, inverseDocumentFrequency } from './bm25.ts';
import type { KnowledgeBasePostings, ScoringScratch } from './postings-cache.ts';

/** One query term to score: the range of its postings in a {@link KnowledgeBasePostings} and its IDF. */
export interface WeightedTerm {
  start: number;
  end: number;
  idf: number;
}

/** Passages chosen by {@link scoreTopK}, best first: parallel arrays. */
export interface ScoredChunks {
  chunkIds: number[];
  scores: number[];
}

/**
 * Passages of a term's range that belong to readable documents (its df
 * within the reach), or the whole range when `readable` is absent.
 *
 * @param readable per document slot, 1 when the document is inside the reach
 */
export function countReadable(
  postings: KnowledgeBasePostings,
  start: number,
  end: number,
  readable: Uint8Array | undefined,
): number {
  if (!readable) return end - start;
  const documentSlots = postings.documentSlots;
  let count = 0;
  for (let posting = start; posting < end; posting++) count += readable[documentSlots[posting]!]!;
  return count;
}

/**
 * BM25 top-k over in-memory postings, computing exactly what
 * `SQLITE_SEARCH_SQL` (store/sqlite-search.ts) computes, bit for bit:
 *
 * - each posting's contribution is the SQL expression
 *   `idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / averageLength))`
 *   evaluated in the same order of operations, on the same doubles;
 * - a passage's contributions are added in the order of `terms` (the order
 *   of the `@weights` JSON object the SQL iterates, outer loop of its
 *   `CROSS JOIN`; SQLite's GROUP BY sorter keeps rows of one group in
 *   insertion order), with the Kahan-Babuska-Neumaier summation of SQLite's
 *   `SUM()` over doubles (sqlite3.c `kahanBabuskaNeumaierStep` and
 *   `sumFinalize`, SQLite 3.43 and later): the running sum plus the
 *   accumulated error;
 * - passages are ordered by score descending, then chunk id ascending, and
 *   the first `topK` kept (all of them when `topK` is negative, like `LIMIT`).
 *
 * @param terms query terms with postings (df > 0), in the order the SQL would add them
 * @param readable per document slot, 1 when inside the reach; absent when the reach covers every passage
 * @param averageLength average weighted passage length within the reach (> 0)
 */
export function scoreTopK(
  postings: KnowledgeBasePostings,
  terms: readonly WeightedTerm[],
  readable: Uint8Array | undefined,
  averageLength: number,
  topK: number,
): ScoredChunks {
  const scratch = scratchOf(postings);
  const { sums, errors, stamps, touched } = scratch;
  scratch.epoch = scratch.epoch === 0xffffffff ? 1 : scratch.epoch + 1;
  if (scratch.epoch === 1) stamps.fill(0);
  const epoch = scratch.epoch;
  const { chunkSlots, documentSlots, termFrequencies, lengths } = postings;
  const k1PlusOne = BM25_K1 + 1;
  const oneMinusB = 1 - BM25_B;
  let touchedCount = 0;
  for (const { start, end, idf } of terms) {
    for (let posting = start; posting < end; posting++) {
      if (readable && readable[documentSlots[posting]!] === 0) continue;
      const termFrequency = termFrequencies[posting]!;
      const contribution =
        (idf * termFrequency * k1PlusOne) / (termFrequency + BM25_K1 * (oneMinusB + (BM25_B * lengths[posting]!) / averageLength));
      const slot = chunkSlots[posting]!;
      if (stamps[slot] !== epoch) {
        stamps[slot] = epoch;
        sums[slot] = contribution;
        errors[slot] = 0;
        touched[touchedCount++] = slot;
        continue;
      }
      const sum = sums[slot]!;
      const next = sum + contribution;
      errors[slot] = errors[slot]! + (Math.abs(sum) > Math.abs(contribution) ? sum - next + contribution : contribution - next + sum);
      sums[slot] = next;
    }
  }
  const limit = topK < 0 ? touchedCount : Math.min(topK, touchedCount);
  const bestSlots: number[] = [];
  const bestScores: number[] = [];
  if (limit <= 0) return { chunkIds: [], scores: [] };
  if (limit * 16 >= touchedCount) {
    // Most candidates are kept: sort them all.
    const slots = Array.from(touched.subarray(0, touchedCount));
    for (const slot of slots) sums[slot] = sums[slot]! + errors[slot]!; // the final scores, in place
    slots.sort((left, right) => sums[right]! - sums[left]! || left - right);
    const kept = slots.slice(0, limit);
    return { chunkIds: kept.map((slot) => postings.chunkIds[slot]!), scores: kept.map((slot) => sums[slot]!) };
  }
  for (let index = 0; index < touchedCount; index++) {
    const slot = touched[index]!;
    const score = sums[slot]! + errors[slot]!;
    let position = bestSlots.length;
    if (position === limit) {
      // Full: keep the candidate only when it ranks before the last kept one.
      if (!ranksBefore(score, slot, bestScores[position - 1]!, bestSlots[position - 1]!)) continue;
      bestSlots.pop();
      bestScores.pop();
      position--;
    }
    while (position > 0 && ranksBefore(score, slot, bestScores[position - 1]!, bestSlots[position - 1]!)) position--;
    bestSlots.splice(position, 0, slot);
    bestScores.splice(position, 0, score);
  }
  return { chunkIds: bestSlots.map((slot) => postings.chunkIds[slot]!), scores: bestScores };
}

/** Score descending, then chunk slot (so chunk id) ascending. */
function ranksBefore(score: number, slot: number, otherScore: number, otherSlot: number): boolean {
  return score > otherScore || (score === otherScore && slot < otherSlot);
}

function scratchOf(postings: KnowledgeBasePostings): ScoringScratch {
  if (!postings.scratch) {
    const chunks = postings.chunkIds.length;
    postings.scratch = {
      sums: new Float64Array(chunks),
      errors: new Float64Array(chunks),
      stamps: new Uint32Array(chunks),
      touched: new Uint32Array(chunks),
      epoch: 0,
    };
  }
  return postings.scratch;
}

/** What {@link rankPostings} returns. */
export interface RankedPostings {
  /** Query term -> passages inside the reach containing it, in the order of the distinct terms. */
  documentFrequencies: Record<string, number>;
  /** Best passages first. */
  ranked: ScoredChunks;
}

/**
 * The in-memory counterpart of the SQL search after its reach statistics:
 * each term's df within the reach, the IDF weights built exactly as the SQL
 * path builds its `@weights` object (terms with df > 0; the object's key
 * order is the order the SQL adds contributions in), then {@link scoreTopK}.
 *
 * @param distinctTerms the query's distinct terms, in query order
 * @param passageCount passages inside the reach (N, > 0)
 * @param readable per document slot, 1 when inside the reach; absent when the reach covers every passage
 * @param averageLength average weighted passage length within the reach (> 0)
 */
export function rankPostings(
  postings: KnowledgeBasePostings,
  distinctTerms: readonly string[],
  passageCount: number,
  readable: Uint8Array | undefined,
  averageLength: number,
  topK: number,
): RankedPostings {
  const documentFrequencies: Record<string, number> = {};
  const weights: Record<string, number> = {};
  for (const term of distinctTerms) {
    const index = postings.termIndex.get(term);
    const frequency =
      index === undefined ? 0 : countReadable(postings, postings.termStarts[index]!, postings.termStarts[index + 1]!, readable);
    documentFrequencies[term] = frequency;
    if (frequency > 0) weights[term] = inverseDocumentFrequency(passageCount, frequency);
  }
  const terms: WeightedTerm[] = [];
  for (const [term, idf] of Object.entries(weights)) {
    const index = postings.termIndex.get(term)!;
    terms.push({ start: postings.termStarts[index]!, end: postings.termStarts[index + 1]!, idf });
  }
  const ranked = terms.length === 0 ? { chunkIds: [], scores: [] } : scoreTopK(postings, terms, readable, averageLength, topK);
  return { documentFrequencies, ranked };
}

/**
 * Marks the document slots of cached postings whose documents are inside a
 * reach, for {@link rankPostings}'s `readable`.
 *
 * @param documentIds ids (`documents.id`) of the documents inside the reach; those without postings are skipped
 * @returns per document slot, 1 when inside the reach
 */
export function readableSlots(postings: KnowledgeBasePostings, documentIds: Iterable<number>): Uint8Array {
  const readable = new Uint8Array(postings.documentSlotOf.size);
  for (const documentId of documentIds) {
    const slot = postings.documentSlotOf.get(documentId);
    if (slot !== undefined) readable[slot] = 1;
  }
  return readable;
}

/**
 * The rows of the passages {@link rankPostings} chose, in its order, each
 * with its score: the last step of an in-memory search, after the backend
 * read the rows of `ranked.chunkIds` (in any order).
 *
 * @param rows passage rows, at least one per chosen chunk id
 * @throws Error when a chosen passage has no row (postings and rows read from different snapshots)
 */
export function inRankOrder<Row extends { chunkId: number }>(
  kbId: string,
  ranked: ScoredChunks,
  rows: Iterable<Row>,
): (Row & { score: number })[] {
  const byChunkId = new Map<number, Row>();
  for (const row of rows) byChunkId.set(row.chunkId, row);
  return ranked.chunkIds.map((chunkId, index) => {
    const row = byChunkId.get(chunkId);
    if (!row) throw new Error(`Passage ${chunkId} of knowledge base "${kbId}" has postings but no row`);
    return { ...row, score: ranked.scores[index]! };
  });
}
