import type { ReachStatistics } from './index-data.ts';
import type { StoredPassage } from '../passages/passages.ts';

/**
 * The index tables' columns as both backends' index reads select them
 * (store/sqlite/sqlite-index.ts, store/postgres/postgres-index.ts), and the one row mapping they share:
 * postings as {@link PostingRow}s and units (passages, pages) as
 * {@link ChunkLengthRow}s of index-data.ts, in the order those expect.
 */

/** The page field length columns of `documents`, in page field order (index-data.ts `PageFieldCounts`). */
export const PAGE_LENGTH_COLUMNS = [
  'page_title_length',
  'page_description_length',
  'page_lead_length',
  'page_headings_length',
  'page_body_length',
  'page_path_length',
] as const;

/**
 * A reach's statistics as both backends select them: passages and their
 * field length sums (`title` .. `body`), pages with passages and their
 * field length sums (`page0` .. `page5`), and the knowledge base's index
 * version (null when it does not exist).
 */
export interface ReachStatisticsRow extends Record<`page${number}`, number> {
  passages: number;
  pages: number;
  title: number;
  description: number;
  heading: number;
  body: number;
  version: number | null;
}

/**
 * The {@link ReachStatistics} of a selected row (none: an empty reach).
 *
 * @param readableDocuments the ids of the documents inside the reach, when it does not cover every passage
 */
export function toReachStatistics(row: ReachStatisticsRow | undefined, readableDocuments?: number[]): ReachStatistics {
  const statistics: ReachStatistics = {
    version: row?.version ?? 0,
    passageCount: row?.passages ?? 0,
    lengthSums: [row?.title ?? 0, row?.description ?? 0, row?.heading ?? 0, row?.body ?? 0],
    pageCount: row?.pages ?? 0,
    pageLengthSums: PAGE_LENGTH_COLUMNS.map((_, field) => row?.[`page${field}`] ?? 0) as unknown as ReachStatistics['pageLengthSums'],
  };
  if (readableDocuments !== undefined) statistics.readableDocuments = readableDocuments;
  return statistics;
}

/** The site columns of a passage row (documents `d`, chunks `c`), as both backends select them. */
export interface PassageSiteColumns {
  description: string | null;
  url: string | null;
  anchor: string | null;
}

/** The passage fields of {@link PassageSiteColumns}, only those with a value. */
export function passageSiteFields(row: PassageSiteColumns): { description?: string; url?: string; anchor?: string } {
  return {
    ...(row.description === null ? {} : { description: row.description }),
    ...(row.url === null ? {} : { url: row.url }),
    ...(row.anchor === null ? {} : { anchor: row.anchor }),
  };
}

/** The columns of a passage row but its id, aliased to {@link PassageRow}'s names, over chunks `c` and documents `d`. */
export const PASSAGE_COLUMNS = `c.heading_path AS "headingPath", c.anchor AS anchor, c.text AS text, d.doc_id AS "docId",
       d.title AS title, d.description AS description, d.url AS url, d.quotable AS quotable, d.content_hash AS "contentHash"`;

/**
 * A passage row as both backends select it ({@link PASSAGE_COLUMNS}, plus
 * its id as `chunkId`); its heading path is the backend's list column
 * (JSON text in SQLite, `text[]` in PostgreSQL), its flag 0/1 or a boolean.
 */
export interface PassageRow<HeadingPath> extends PassageSiteColumns {
  chunkId: number;
  headingPath: HeadingPath;
  text: string;
  docId: string;
  title: string;
  quotable: number | boolean;
  contentHash: string;
}

/**
 * A {@link StoredPassage} from its row.
 *
 * @param headingPath the row's heading path, decoded by the backend
 */
export function toPassage(kbId: string, row: PassageRow<unknown>, headingPath: string[]): StoredPassage {
  return {
    chunkId: row.chunkId,
    kbId,
    docId: row.docId,
    title: row.title,
    ...passageSiteFields(row),
    headingPath,
    text: row.text,
    quotable: Boolean(row.quotable),
    contentHash: row.contentHash,
  };
}
