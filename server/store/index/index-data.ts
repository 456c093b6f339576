/**
 * The lexical index as the store keeps it and reads it back for retrieval
 * (server/retrieval/): per passage, each field's length; per term and
 * passage, the term's frequency in each field. The store persists these
 * numbers and filters them by reach; it never analyzes text and never
 * scores (retrieval/index-fields.ts analyzes, retrieval/bm25f.ts scores).
 */

/**
 * One count per field of a passage, in this order: its document's title, its
 * document's description, its section headings below the title, its text.
 * Term frequencies, or lengths in analyzed terms.
 */
export type FieldCounts = readonly [title: number, description: number, heading: number, body: number];

/** Number of fields in a {@link FieldCounts}. */
export const FIELD_COUNT = 4;

/** What the index holds of one passage. */
export interface IndexedPassage {
  /** Term -> its frequency in each field (at least one non-zero). */
  terms: Map<string, FieldCounts>;
  /** Length of each field, in analyzed terms. */
  lengths: FieldCounts;
}

/**
 * One count per field of a whole page (document), in this order: its title,
 * its description, its lead (the first paragraph, for a page without a
 * description), all its headings, all its text, the words of its path.
 */
export type PageFieldCounts = readonly [title: number, description: number, lead: number, headings: number, body: number, path: number];

/** Number of fields in a {@link PageFieldCounts}. */
export const PAGE_FIELD_COUNT = 6;

/** What the index holds of one page (document). */
export interface IndexedPage {
  /** Term -> its frequency in each page field (at least one non-zero). */
  terms: Map<string, PageFieldCounts>;
  /** Length of each page field, in analyzed terms. */
  lengths: PageFieldCounts;
}

/**
 * What a search reads of a knowledge base inside a reach, in one snapshot.
 * Every statistic is computed within the reach, never over the whole
 * knowledge base, so that no answer depends on documents the question cannot
 * reach (docs/design-decisions.md "Access rules"; server/access-rules.property.test.ts).
 */
export interface ReachStatistics {
  /** The knowledge base's index version: changes with every change of its passages. */
  version: number;
  /** Passages inside the reach (N). */
  passageCount: number;
  /** Each field's length summed over the passages inside the reach. */
  lengthSums: FieldCounts;
  /** Pages (documents with passages) inside the reach. */
  pageCount: number;
  /** Each page field's length summed over the pages inside the reach. */
  pageLengthSums: PageFieldCounts;
  /**
   * Ids of the documents inside the reach (their storage ids, as in
   * {@link IndexColumns.chunkDocuments}); absent when the reach covers every
   * passage of the knowledge base.
   */
  readableDocuments?: number[];
}

/** A knowledge base's index as read for retrieval: its passages' and its pages'. */
export interface KnowledgeBaseIndex {
  /** Passage units: chunk ids, {@link FIELD_COUNT} fields. */
  passages: IndexColumns;
  /** Page units: document ids (as both unit and document), {@link PAGE_FIELD_COUNT} fields. */
  pages: IndexColumns;
}

/**
 * Postings and passage lengths of a knowledge base, whole or for some terms,
 * as column arrays (one entry per posting, or per chunk slot).
 *
 * The postings of `terms[i]` are positions `termStarts[i]` to
 * `termStarts[i + 1] - 1`, in ascending chunk slot (terms in the order the
 * backend read them, each term once).
 * Chunk slots number the passages in ascending storage id.
 */
export interface IndexColumns {
  /** The knowledge base's index version the columns were read at. */
  version: number;
  /** Fields per posting and per unit ({@link FIELD_COUNT} for passages). */
  fieldCount: number;
  terms: string[];
  /** One start per term, plus the number of postings. */
  termStarts: Uint32Array;
  /** Per posting: its passage's chunk slot. */
  postingChunks: Uint32Array;
  /** Per posting: its frequencies, `fieldCount` consecutive entries in field order. */
  postingFrequencies: Uint16Array;
  /** Per chunk slot: the passage's storage id (`chunks.id`). */
  chunkIds: Float64Array;
  /** Per chunk slot: its document's storage id (`documents.id`). */
  chunkDocuments: Float64Array;
  /** Per chunk slot: its field lengths, `fieldCount` consecutive entries. */
  chunkLengths: Uint32Array;
}
