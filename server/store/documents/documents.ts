/**
 * Documents as ingested: their records, what an ingest writes (a document
 * with its analyzed passages and page), the repository that writes and
 * lists them, and the content version every answer-changing write bumps.
 * Their SQL is in document-repository.ts and content-version.ts.
 */

import type { Visibility } from '../../../protocol/workspace-terms.ts';
import type { IndexedPage, IndexedPassage } from '../index/index-data.ts';

/** A document as listed, without its passages. */
export interface DocumentRecord {
  kbId: string;
  /** Stable readable id: path relative to the ingested folder, e.g. `fs.md`. */
  docId: string;
  title: string;
  /** Front matter `description` (HTML: meta description); absent when the page has none. */
  description?: string;
  /** The page's URL on the knowledge base's site (ingest/pipeline/page-url.ts); absent when unknown. */
  url?: string;
  /**
   * What the page's front matter said about its URL (`url`, `slug`), kept
   * to recompute `url` when the site moves; absent when it said nothing.
   */
  route?: { url?: string; slug?: string };
  visibility: Visibility;
  /** Ids of the users who may read it when `visibility` is `restricted`. */
  readers: string[];
  /** Whether its passages may be quoted in citation frames. */
  quotable: boolean;
  /** SHA-256 (hex) of the source bytes and ingest options: unchanged hash = nothing to do. */
  contentHash: string;
  /** Absolute folder it was ingested from, for pruning removed files; absent for single files. */
  sourceRoot?: string;
  chunkCount: number;
  updatedAt: number;
}

/** One passage of a document, analyzed and ready to index. */
export interface ChunkInput {
  /** Headings from the page title down to the passage's section. */
  headingPath: string[];
  /** The section heading's id on the page (`#anchor`); absent before the first heading. */
  anchor?: string;
  /** The passage text (light markdown: inline code, fenced code blocks, list items). */
  text: string;
  /** The passage as the lexical index holds it (retrieval/index-fields.ts). */
  index: IndexedPassage;
}

export interface DocumentInput {
  kbId: string;
  docId: string;
  title: string;
  description?: string;
  url?: string;
  route?: { url?: string; slug?: string };
  visibility: Visibility;
  readers: string[];
  quotable: boolean;
  contentHash: string;
  sourceRoot?: string;
  /** Version of the analysis that indexed `chunks` and `page` (retrieval/index-fields.ts `INDEX_ANALYSIS_VERSION`). */
  analysisVersion: string;
  chunks: ChunkInput[];
  /** The whole page as the lexical index holds it (retrieval/index-fields.ts). */
  page: IndexedPage;
}

/** Outcome of {@link DocumentRepository.putDocument}. */
export type PutOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Outcome of one document of {@link DocumentRepository.putDocuments}: what was done, or
 * why this document was not written (its previous version, if any, is kept).
 */
export type BatchPutOutcome = { outcome: PutOutcome } | { error: Error };

/** Documents and their passages as ingested; every write keeps the index with them. */
export interface DocumentRepository {
  /**
   * Creates or replaces a document and its passages in one transaction, or
   * does nothing when a document with the same id and content hash exists.
   */
  putDocument(input: DocumentInput): Promise<PutOutcome>;
  /**
   * {@link putDocument} for many documents in one transaction (bulk ingest:
   * one commit instead of one per document), each document inside its own
   * savepoint: a document that fails is rolled back alone and reported in
   * its slot, the others are written. Every document ends at its previous or
   * its new version, never half of either.
   *
   * @returns one outcome per input, in input order
   * @throws StoreUnavailableError when the batch cannot be committed (then none of it is written)
   */
  putDocuments(inputs: readonly DocumentInput[]): Promise<BatchPutOutcome[]>;
  getDocument(kbId: string, docId: string): Promise<DocumentRecord | undefined>;
  listDocuments(kbId: string): Promise<DocumentRecord[]>;
  /** Changes who may read a document. Throws NotFoundError. */
  setDocumentAccess(
    kbId: string,
    docId: string,
    access: { visibility: Visibility; readers: string[]; quotable: boolean },
  ): Promise<void>;
  /**
   * Sets the page URLs of documents of a knowledge base in one transaction
   * (`url` absent: none); documents not listed, or listed but absent, are
   * left alone. Their content hash and passages are unchanged.
   */
  setDocumentUrls(kbId: string, urls: readonly { docId: string; url?: string }[]): Promise<void>;
  /** Removes a document and its passages; returns whether it existed. */
  removeDocument(kbId: string, docId: string): Promise<boolean>;
}

/** What tells whether an answer computed earlier still holds (content-version.ts). */
export interface ContentVersionRepository {
  /**
   * The knowledge base's content version: a value that changes with every
   * write that can change an answer (documents, their access and URLs,
   * curated answers), and is never repeated for another knowledge base of
   * the same id.
   *
   * @returns undefined when the knowledge base does not exist
   */
  contentVersion(kbId: string): Promise<string | undefined>;
}
