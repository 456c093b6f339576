import type { DocumentIndexEntry } from './document-repository.ts';
import { FIELD_COUNT, PAGE_FIELD_COUNT } from './index-data.ts';
import { selectMerge, type SegmentSize } from './merge-policy.ts';
import { mergePostings, packSegment, type SegmentUnit } from './segment-codec.ts';
import type { SqlExecutor } from './sql-executor.ts';

/**
 * The PostgreSQL store's lexical index as immutable segments, the design of
 * Lucene's index ("Apache Lucene - Index File Formats": segments, live docs,
 * merges): every write transaction that indexes documents adds one segment
 * holding, per term, the packed postings of its documents
 * (segment-codec.ts), one row per term; deleting or re-indexing a document
 * marks its units deleted in the segment that holds them
 * (`segment_deletions`, Lucene's live-docs), and readers leave those
 * postings out; a merge policy (merge-policy.ts) rewrites groups of segments
 * into one, dropping deleted postings, so that a term's postings stay in a
 * handful of rows.
 *
 * Every change happens inside the transaction that changes the documents,
 * under the knowledge base's lock, and bumps its index version like any
 * other (document-repository.ts): replicas reading in a snapshot see either
 * the segments before a write or after it.
 */

/** The two kinds of unit a knowledge base indexes. */
export const SEGMENT_KINDS = {
  /** Passages: units are `chunks.id`, {@link FIELD_COUNT} fields. */
  passages: { kind: 0, fieldCount: FIELD_COUNT, unitTable: 'chunks', segmentColumn: 'segment_id', documentColumn: 'document_id' },
  /** Pages: units are `documents.id`, {@link PAGE_FIELD_COUNT} fields. */
  pages: { kind: 1, fieldCount: PAGE_FIELD_COUNT, unitTable: 'documents', segmentColumn: 'page_segment_id', documentColumn: 'id' },
} as const;

export type SegmentKind = (typeof SEGMENT_KINDS)[keyof typeof SEGMENT_KINDS];

/** Term rows inserted per statement. */
const TERMS_PER_INSERT = 2_000;

/**
 * Writes the postings of documents that have none as one new segment per
 * kind of unit, then merges segments as the merge policy asks.
 */
export async function writeSegments(transaction: SqlExecutor, kbId: string, documents: readonly DocumentIndexEntry[]): Promise<void> {
  if (documents.length === 0) return;
  const passages: SegmentUnit[] = documents.flatMap(({ documentId, passages }) =>
    passages.map(({ chunkId, index }) => ({ unitId: chunkId, documentId, lengths: index.lengths, terms: index.terms })),
  );
  const pages: SegmentUnit[] = documents.map(({ documentId, page }) => ({ unitId: documentId, documentId, lengths: page.lengths, terms: page.terms }));
  const documentIds = documents.map((document) => document.documentId);
  for (const [kind, units] of [
    [SEGMENT_KINDS.passages, passages],
    [SEGMENT_KINDS.pages, pages],
  ] as const) {
    const segment = packSegment(kind.fieldCount, units);
    if (segment.postingCount > 0) {
      const segmentId = await insertSegment(transaction, kbId, kind, units.length, segment);
      await transaction.run(
        `UPDATE ${kind.unitTable} SET ${kind.segmentColumn} = ? WHERE ${kind.documentColumn} = ANY(?::bigint[])`,
        [segmentId, documentIds],
      );
    }
    await mergeSegments(transaction, kbId, kind);
  }
}

async function insertSegment(
  transaction: SqlExecutor,
  kbId: string,
  kind: SegmentKind,
  units: number,
  segment: { terms: string[]; postings: Buffer[]; postingCount: number },
): Promise<number> {
  const { id } = (await transaction.get<{ id: number }>(
    'INSERT INTO index_segments (kb_id, kind, units, postings) VALUES (?, ?, ?, ?) RETURNING id',
    [kbId, kind.kind, units, segment.postingCount],
  ))!;
  for (let start = 0; start < segment.terms.length; start += TERMS_PER_INSERT) {
    await transaction.run(
      `INSERT INTO segment_terms (kb_id, kind, term, segment_id, postings)
       SELECT ?, ?, t.term, ?::bigint, t.postings FROM unnest(?::text[], ?::bytea[]) AS t(term, postings)`,
      [kbId, kind.kind, id, segment.terms.slice(start, start + TERMS_PER_INSERT), segment.postings.slice(start, start + TERMS_PER_INSERT)],
    );
  }
  return id;
}

/**
 * Marks a document's units deleted in the segments holding their postings
 * (before the document's rows change or go): its passages' and its page's.
 */
export async function deleteSegmentUnits(transaction: SqlExecutor, kbId: string, documentId: number): Promise<void> {
  for (const kind of Object.values(SEGMENT_KINDS)) {
    const marked = await transaction.all<{ segment_id: number }>(
      `INSERT INTO segment_deletions (kb_id, kind, segment_id, unit_id)
       SELECT ?, ?, u.${kind.segmentColumn}, u.id FROM ${kind.unitTable} u
       WHERE u.${kind.documentColumn} = ? AND u.${kind.segmentColumn} IS NOT NULL
       RETURNING segment_id`,
      [kbId, kind.kind, documentId],
    );
    if (marked.length === 0) continue;
    const counts = new Map<number, number>();
    for (const { segment_id: segmentId } of marked) counts.set(segmentId, (counts.get(segmentId) ?? 0) + 1);
    await transaction.run(
      `UPDATE index_segments s SET deleted = s.deleted + c.count FROM unnest(?::bigint[], ?::int[]) AS c(id, count) WHERE s.id = c.id`,
      [[...counts.keys()], [...counts.values()]],
    );
    await transaction.run(`UPDATE ${kind.unitTable} SET ${kind.segmentColumn} = NULL WHERE ${kind.documentColumn} = ?`, [documentId]);
  }
}

/** Drops segments whose every unit is deleted, then merges groups of segments until the policy asks for none. */
async function mergeSegments(transaction: SqlExecutor, kbId: string, kind: SegmentKind): Promise<void> {
  await transaction.run('DELETE FROM index_segments WHERE kb_id = ? AND kind = ? AND deleted >= units', [kbId, kind.kind]);
  for (;;) {
    const segments = await transaction.all<SegmentSize>(
      'SELECT id, units, postings, deleted FROM index_segments WHERE kb_id = ? AND kind = ? ORDER BY id',
      [kbId, kind.kind],
    );
    const chosen = selectMerge(segments);
    if (!chosen) return;
    await mergeGroup(transaction, kbId, kind, chosen);
  }
}

/** Rewrites segments into one: their live postings term by term, then the units pointed at the new segment and the old ones dropped. */
async function mergeGroup(transaction: SqlExecutor, kbId: string, kind: SegmentKind, segmentIds: readonly number[]): Promise<void> {
  const deleted = new Map<number, Set<number>>();
  for (const row of await transaction.all<{ segment_id: number; unit_id: number }>(
    'SELECT segment_id, unit_id FROM segment_deletions WHERE segment_id = ANY(?::bigint[])',
    [segmentIds],
  )) {
    let units = deleted.get(row.segment_id);
    if (!units) deleted.set(row.segment_id, (units = new Set()));
    units.add(row.unit_id);
  }
  const rows = await transaction.all<{ term: string; segment_id: number; postings: Buffer }>(
    'SELECT term, segment_id, postings FROM segment_terms WHERE segment_id = ANY(?::bigint[]) ORDER BY term, segment_id',
    [segmentIds],
  );
  const terms: string[] = [];
  const postings: Buffer[] = [];
  let postingCount = 0;
  for (let start = 0; start < rows.length; ) {
    let end = start + 1;
    while (end < rows.length && rows[end]!.term === rows[start]!.term) end += 1;
    const merged = mergePostings(
      kind.fieldCount,
      rows.slice(start, end).map((row) => ({ postings: row.postings, deleted: deleted.get(row.segment_id) })),
    );
    if (merged.count > 0) {
      terms.push(rows[start]!.term);
      postings.push(merged.postings);
      postingCount += merged.count;
    }
    start = end;
  }
  const units = (await transaction.get<{ units: number }>(
    'SELECT COALESCE(SUM(units - deleted), 0)::int AS units FROM index_segments WHERE id = ANY(?::bigint[])',
    [segmentIds],
  ))!.units;
  const mergedId = await insertSegment(transaction, kbId, kind, units, { terms, postings, postingCount });
  await transaction.run(`UPDATE ${kind.unitTable} SET ${kind.segmentColumn} = ? WHERE ${kind.segmentColumn} = ANY(?::bigint[])`, [
    mergedId,
    segmentIds,
  ]);
  await transaction.run('DELETE FROM index_segments WHERE id = ANY(?::bigint[])', [segmentIds]);
}
