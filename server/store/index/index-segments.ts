import { FIELD_COUNT, PAGE_FIELD_COUNT, type IndexedPage, type IndexedPassage } from './index-data.ts';
import { selectMerge, type SegmentSize } from './merge-policy.ts';
import { packedPostingsOf } from './packed-index.ts';
import { mergePostings, packSegment, type PackedSegment, type SegmentUnit } from './segment-codec.ts';
import type { SqlExecutor } from '../sql-executor.ts';

/**
 * The lexical index as immutable segments, both backends, the design of
 * Lucene's index ("Apache Lucene - Index File Formats": segments, live docs,
 * merges): every write transaction that indexes documents adds one segment
 * holding, per term, the packed postings of its documents
 * (segment-codec.ts), one row per term, and records which segment holds
 * each unit (`segment_units`); deleting or re-indexing a document marks its
 * units deleted in the segment that holds them (`segment_deletions`,
 * Lucene's live-docs), and readers leave those
 * postings out; a merge policy (merge-policy.ts) rewrites groups of segments
 * into one, dropping deleted postings, so that a term's postings stay in a
 * handful of rows.
 *
 * Every change happens inside the transaction that changes the documents,
 * under the knowledge base's lock, and bumps its index version like any
 * other (store/documents/document-repository.ts): replicas reading in a snapshot see either
 * the segments before a write or after it.
 */

/** A passage's id with its entry of the lexical index. */
export interface IndexedChunk {
  chunkId: number;
  index: IndexedPassage;
}

/** What the index holds of one document: its passages' postings and its page's. */
export interface DocumentIndexEntry {
  /** The document's storage id (`documents.id`). */
  documentId: number;
  passages: readonly IndexedChunk[];
  page: IndexedPage;
}

/** The two kinds of unit a knowledge base indexes. */
export const SEGMENT_KINDS = {
  /** Passages: units are `chunks.id`, {@link FIELD_COUNT} fields. */
  passages: { kind: 0, fieldCount: FIELD_COUNT },
  /** Pages: units are `documents.id`, {@link PAGE_FIELD_COUNT} fields. */
  pages: { kind: 1, fieldCount: PAGE_FIELD_COUNT },
} as const;

export type SegmentKind = (typeof SEGMENT_KINDS)[keyof typeof SEGMENT_KINDS];

/**
 * Segment id -> the ids of its deleted units, from `segment_deletions` rows
 * (segment id, unit id): what a read leaves out.
 */
export function deletedUnits(rows: Iterable<readonly [segmentId: number, unitId: number]>): Map<number, Set<number>> {
  const deleted = new Map<number, Set<number>>();
  for (const [segmentId, unitId] of rows) {
    let units = deleted.get(segmentId);
    if (!units) deleted.set(segmentId, (units = new Set()));
    units.add(unitId);
  }
  return deleted;
}

/** Rows inserted per statement (five parameters at most each: within SQLite's and PostgreSQL's limits). */
const ROWS_PER_INSERT = 500;

/** Inserts rows (values in `columns` order) into `table`, {@link ROWS_PER_INSERT} a statement. */
async function insertRows(transaction: SqlExecutor, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const some = rows.slice(start, start + ROWS_PER_INSERT);
    await transaction.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${some.map(() => placeholders).join(', ')}`, some.flat());
  }
}

/** The `terms` of a unit read from its packed postings instead. */
const EMPTY_TERMS: ReadonlyMap<string, readonly number[]> = new Map();

/**
 * Writes the postings of documents that have none as one new segment per
 * kind of unit, then merges segments as the merge policy asks.
 */
export async function writeSegments(transaction: SqlExecutor, kbId: string, documents: readonly DocumentIndexEntry[]): Promise<void> {
  if (documents.length === 0) return;
  const unit = (unitId: number, documentId: number, index: IndexedPassage | IndexedPage): SegmentUnit => {
    // A packed index (packed-index.ts) is read from its arrays; its `terms` map is never built.
    const packed = packedPostingsOf(index);
    return packed ? { unitId, documentId, lengths: index.lengths, terms: EMPTY_TERMS, packed } : { unitId, documentId, lengths: index.lengths, terms: index.terms };
  };
  const passages = documents.flatMap(({ documentId, passages }) => passages.map(({ chunkId, index }) => unit(chunkId, documentId, index)));
  const pages = documents.map(({ documentId, page }) => unit(documentId, documentId, page));
  for (const [kind, units] of [
    [SEGMENT_KINDS.passages, passages],
    [SEGMENT_KINDS.pages, pages],
  ] as const) {
    const segment = packSegment(kind.fieldCount, units);
    if (segment.postingCount > 0) {
      const segmentId = await insertSegment(transaction, kbId, kind, units.length, segment);
      await insertRows(
        transaction,
        'segment_units',
        ['kb_id', 'kind', 'unit_id', 'document_id', 'segment_id'],
        units.map((unit) => [kbId, kind.kind, unit.unitId, unit.documentId, segmentId]),
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
  segment: PackedSegment,
): Promise<number> {
  const { id } = (await transaction.get<{ id: number }>(
    'INSERT INTO index_segments (kb_id, kind, units, postings, deleted) VALUES (?, ?, ?, ?, 0) RETURNING id',
    [kbId, kind.kind, units, segment.postingCount],
  ))!;
  await insertRows(
    transaction,
    'segment_terms',
    ['kb_id', 'kind', 'term', 'segment_id', 'postings'],
    segment.terms.map((term, index) => [kbId, kind.kind, term, id, segment.postings[index]!]),
  );
  return id;
}

/**
 * Marks a document's units deleted in the segments holding their postings
 * (before the document's rows change or go): its passages' and its page's.
 */
export async function deleteSegmentUnits(transaction: SqlExecutor, kbId: string, documentId: number): Promise<void> {
  for (const kind of Object.values(SEGMENT_KINDS)) {
    const units = await transaction.all<{ unit_id: number; segment_id: number }>(
      'SELECT unit_id, segment_id FROM segment_units WHERE document_id = ? AND kind = ?',
      [documentId, kind.kind],
    );
    if (units.length === 0) continue;
    await insertRows(
      transaction,
      'segment_deletions',
      ['kb_id', 'kind', 'segment_id', 'unit_id'],
      units.map((unit) => [kbId, kind.kind, unit.segment_id, unit.unit_id]),
    );
    const counts = new Map<number, number>();
    for (const unit of units) counts.set(unit.segment_id, (counts.get(unit.segment_id) ?? 0) + 1);
    for (const [segmentId, count] of counts) await transaction.run('UPDATE index_segments SET deleted = deleted + ? WHERE id = ?', [count, segmentId]);
    await transaction.run('DELETE FROM segment_units WHERE document_id = ? AND kind = ?', [documentId, kind.kind]);
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
    await mergeGroup(transaction, kbId, kind, segments.filter((segment) => chosen.includes(segment.id)));
  }
}

/** Rewrites segments into one: their live postings term by term, then the units pointed at the new segment and the old ones dropped. */
async function mergeGroup(transaction: SqlExecutor, kbId: string, kind: SegmentKind, segments: readonly SegmentSize[]): Promise<void> {
  const { dialect } = transaction;
  const segmentIds = dialect.writeList(segments.map((segment) => segment.id));
  const deleted = deletedUnits(
    (
      await transaction.all<{ segment_id: number; unit_id: number }>(
        `SELECT segment_id, unit_id FROM segment_deletions WHERE ${dialect.memberOf('segment_id')}`,
        [segmentIds],
      )
    ).map((row) => [row.segment_id, row.unit_id] as const),
  );
  const rows = await transaction.all<{ term: string; segment_id: number; postings: Buffer }>(
    `SELECT term, segment_id, postings FROM segment_terms WHERE ${dialect.memberOf('segment_id')} ORDER BY term, segment_id`,
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
  const units = segments.reduce((sum, segment) => sum + segment.units - segment.deleted, 0);
  const mergedId = await insertSegment(transaction, kbId, kind, units, { terms, postings, postingCount });
  await transaction.run(`UPDATE segment_units SET segment_id = ? WHERE ${dialect.memberOf('segment_id')}`, [mergedId, segmentIds]);
  await transaction.run(`DELETE FROM index_segments WHERE ${dialect.memberOf('id')}`, [segmentIds]);
}
