/**
 * Which index segments to merge (index-segments.ts): Lucene's
 * LogMergePolicy (`org.apache.lucene.index.LogMergePolicy`): segments fall
 * into levels by the logarithm of their size, and once a level holds
 * {@link MERGE_FACTOR} segments they are merged into one of the next level.
 * Each posting is then rewritten about once per level - O(log n) times over
 * the life of an index of n postings - and a knowledge base keeps at most
 * `MERGE_FACTOR - 1` segments per level: a term's postings stay in a handful
 * of rows whatever the number of ingests.
 *
 * Size is the live postings (deleted units' postings discounted pro rata),
 * so a segment whose documents were mostly replaced sinks to a lower level.
 * And, as Lucene's TieredMergePolicy reclaims deletes (`deletesPctAllowed`),
 * a segment more than {@link MAX_DELETED_SHARE} deleted is rewritten alone,
 * its deleted postings dropped: searches never read much dead weight.
 */

/** Segments per level that trigger a merge (Lucene's default mergeFactor). */
export const MERGE_FACTOR = 10;

/** Share of a segment's units that may be deleted before it is rewritten without them. */
export const MAX_DELETED_SHARE = 1 / 3;

/** What the policy knows of a segment. */
export interface SegmentSize {
  id: number;
  /** Units (passages or pages) written into it. */
  units: number;
  /** Postings written into it. */
  postings: number;
  /** Its units since deleted. */
  deleted: number;
}

/** A segment's live postings, deleted units' share discounted. */
function livePostings(segment: SegmentSize): number {
  return segment.units === 0 ? 0 : (segment.postings * Math.max(segment.units - segment.deleted, 0)) / segment.units;
}

/** A segment's level: ⌊log10 of its live postings⌋, 0 for 10 or fewer. */
function levelOf(segment: SegmentSize): number {
  return Math.max(0, Math.floor(Math.log10(Math.max(livePostings(segment), 1))));
}

/**
 * The segments to merge next: the oldest segment more than
 * {@link MAX_DELETED_SHARE} deleted, alone; else the {@link MERGE_FACTOR}
 * oldest of the lowest level holding that many; else undefined.
 *
 * @param segments a knowledge base's segments of one kind, oldest first
 */
export function selectMerge(segments: readonly SegmentSize[]): number[] | undefined {
  const mostlyDeleted = segments.find((segment) => segment.deleted > segment.units * MAX_DELETED_SHARE);
  if (mostlyDeleted) return [mostlyDeleted.id];
  const levels = new Map<number, number[]>();
  for (const segment of segments) {
    const level = levelOf(segment);
    const ids = levels.get(level) ?? [];
    ids.push(segment.id);
    levels.set(level, ids);
  }
  const full = [...levels.entries()].filter(([, ids]) => ids.length >= MERGE_FACTOR).sort(([left], [right]) => left - right)[0];
  return full?.[1].slice(0, MERGE_FACTOR);
}
