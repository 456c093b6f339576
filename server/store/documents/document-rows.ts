/**
 * The rows of `documents` (and the many rows of a new document's passages),
 * as the document repository (document-repository.ts) reads and writes them
 * for both backends: a row read back into a {@link DocumentRecord}, the
 * columns of a new row, and the many-row writes each backend makes its own
 * way (store/sqlite/sqlite-bulk-writes.ts, store/postgres/postgres-bulk-writes.ts).
 */

import type { Visibility } from '../../../protocol/workspace-terms.ts';
import type { IndexedChunk } from '../index/index-segments.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import type { ChunkInput, DocumentRecord } from './documents.ts';

/**
 * The writes of a document's many rows, which each backend makes its own
 * fastest way (SQLite: one prepared statement run per row; PostgreSQL: one
 * statement over unnested arrays per batch). Each runs in the transaction
 * of `transaction`, the executor the document repository hands it.
 */
export interface DocumentBulkWrites {
  /**
   * Inserts documents with the statistics of their index.
   *
   * @returns their storage ids, in the order of `rows`
   */
  insertDocuments(transaction: SqlExecutor, rows: readonly NewDocumentRow[]): Promise<number[]>;
  /**
   * Inserts the passages of documents with their field lengths, in order.
   *
   * @returns each document's new chunk ids, in the order of `documents` and of its `chunks`
   */
  insertChunks(transaction: SqlExecutor, documents: readonly DocumentChunks[]): Promise<number[][]>;
  /** Sets the field lengths of existing passages (a re-index). */
  updateChunkLengths(transaction: SqlExecutor, passages: readonly IndexedChunk[]): Promise<void>;
  /** Sets the URLs of documents of a knowledge base; a missing document is passed over, an absent URL clears it. */
  setDocumentUrls(transaction: SqlExecutor, kbId: string, urls: readonly { docId: string; url?: string }[]): Promise<void>;
}

/**
 * A new `documents` row: the document's fields and the statistics of its
 * index, which a new document's passages and page determine (so the row is
 * written once, not inserted then updated).
 */
export interface NewDocumentRow {
  kbId: string;
  docId: string;
  title: string;
  description: string | null;
  url: string | null;
  routeUrl: string | null;
  routeSlug: string | null;
  visibility: string;
  /** As the dialect writes a boolean (SqlDialect.writeBoolean). */
  quotable: unknown;
  contentHash: string;
  sourceRoot: string | null;
  /** Epoch milliseconds. */
  updatedAt: number;
  chunkCount: number;
  /** Sums over its passages of the field lengths in terms: title, description, heading, body (store/index/index-data.ts). */
  lengthSums: readonly number[];
  /** Its page fields' lengths in terms: title, description, lead, headings, body, path (store/index/index-data.ts `PageFieldCounts`). */
  pageLengths: readonly number[];
  analysisVersion: string;
}

/**
 * The columns of a new `documents` row, each with its PostgreSQL type and
 * its value in a {@link NewDocumentRow}: the one list both backends'
 * inserts are written from.
 */
export const NEW_DOCUMENT_COLUMNS: readonly { name: string; type: string; of: (row: NewDocumentRow) => unknown }[] = [
  { name: 'kb_id', type: 'text', of: (row) => row.kbId },
  { name: 'doc_id', type: 'text', of: (row) => row.docId },
  { name: 'title', type: 'text', of: (row) => row.title },
  { name: 'description', type: 'text', of: (row) => row.description },
  { name: 'url', type: 'text', of: (row) => row.url },
  { name: 'route_url', type: 'text', of: (row) => row.routeUrl },
  { name: 'route_slug', type: 'text', of: (row) => row.routeSlug },
  { name: 'visibility', type: 'text', of: (row) => row.visibility },
  { name: 'quotable', type: 'boolean', of: (row) => row.quotable },
  { name: 'content_hash', type: 'text', of: (row) => row.contentHash },
  { name: 'source_root', type: 'text', of: (row) => row.sourceRoot },
  { name: 'updated_at', type: 'bigint', of: (row) => row.updatedAt },
  { name: 'chunk_count', type: 'int', of: (row) => row.chunkCount },
  ...['title', 'description', 'heading', 'body'].map((field, position) => ({
    name: `${field}_length_sum`,
    type: 'bigint',
    of: (row: NewDocumentRow) => row.lengthSums[position],
  })),
  ...['title', 'description', 'lead', 'headings', 'body', 'path'].map((field, position) => ({
    name: `page_${field}_length`,
    type: 'bigint',
    of: (row: NewDocumentRow) => row.pageLengths[position],
  })),
  { name: 'analysis_version', type: 'text', of: (row) => row.analysisVersion },
];

/** The passages of one new document. */
export interface DocumentChunks {
  kbId: string;
  documentId: number;
  chunks: readonly ChunkInput[];
}

/** The columns of a `documents` row both backends select alike (the readers and flag columns differ in type). */
export interface DocumentRowBase {
  kb_id: string;
  doc_id: string;
  title: string;
  description: string | null;
  url: string | null;
  route_url: string | null;
  route_slug: string | null;
  visibility: Visibility;
  content_hash: string;
  source_root: string | null;
  updated_at: number;
  chunk_count: number;
}

/**
 * A document record from its row; optional fields are omitted when their
 * column is null, never set to `undefined`.
 *
 * @param decoded the backend's readers (any order; sorted here) and quotable flag
 */
export function documentRecord(row: DocumentRowBase, decoded: { readers: string[]; quotable: boolean }): DocumentRecord {
  const record: DocumentRecord = {
    kbId: row.kb_id,
    docId: row.doc_id,
    title: row.title,
    visibility: row.visibility,
    readers: [...decoded.readers].sort(),
    quotable: decoded.quotable,
    contentHash: row.content_hash,
    chunkCount: row.chunk_count,
    updatedAt: row.updated_at,
  };
  if (row.description !== null) record.description = row.description;
  if (row.url !== null) record.url = row.url;
  if (row.route_url !== null || row.route_slug !== null) {
    record.route = {};
    if (row.route_url !== null) record.route.url = row.route_url;
    if (row.route_slug !== null) record.route.slug = row.route_slug;
  }
  if (row.source_root !== null) record.sourceRoot = row.source_root;
  return record;
}

/** A `documents` row as {@link DOCUMENT_COLUMNS} selects it. */
export interface DocumentRow extends DocumentRowBase {
  quotable: unknown;
  readers: unknown;
}

/** The columns of a {@link DocumentRow}, over documents `d`, its readers aggregated by the dialect. */
export function documentColumns(sql: SqlExecutor): string {
  return `d.kb_id, d.doc_id, d.title, d.description, d.url, d.route_url, d.route_slug, d.visibility, d.quotable,
    d.content_hash, d.source_root, d.updated_at, d.chunk_count,
    (SELECT ${sql.dialect.aggregateList('r.user_id')} FROM document_readers r WHERE r.document_id = d.id) AS readers`;
}
