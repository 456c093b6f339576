/**
 * What retrieval reads of the store: the passages of documents inside a
 * reach, as stored and as scored, and the lexical index's data
 * ({@link IndexRepository}), with what re-indexing reads and writes. The
 * reads are each backend's own (store/sqlite/sqlite-index.ts,
 * store/postgres/postgres-index.ts, over store/index/index-rows.ts);
 * reach-filter.ts is the one SQL rule of a reach; re-indexing writes
 * through store/documents/document-repository.ts.
 */

import type { Visibility } from '../../../protocol/workspace-terms.ts';
import type { IndexedPage, IndexedPassage, KnowledgeBaseIndex, ReachStatistics } from '../index/index-data.ts';

/**
 * What one question may reach: documents of one knowledge base whose
 * visibility is listed, and, for `restricted` ones, only those that list
 * `userId` among their readers. Callers compute `visibilities` from the
 * user's role and the token's scope (access/access-rules.ts).
 */
export interface Reach {
  kbId: string;
  userId: string;
  visibilities: readonly Visibility[];
}

/**
 * A retrieved passage with its BM25 score.
 *
 * For a citation: `url` + `#` + `anchor` links to the passage's section
 * on the published page (either may be absent: no site, text before the
 * first heading), and the title of the section is `title` followed by the
 * headings of `headingPath` after its first ("File system › `fs.stat()`").
 */
export interface ScoredPassage {
  chunkId: number;
  kbId: string;
  docId: string;
  /** The document's title. */
  title: string;
  /** The document's description (front matter), for retrieval and display; absent when it has none. */
  description?: string;
  /** The document's page URL, without fragment; absent when the knowledge base has no site URL. */
  url?: string;
  /** The id of the passage's section heading on the page; absent for text before the first heading. */
  anchor?: string;
  headingPath: string[];
  text: string;
  quotable: boolean;
  /** Hash of the document version the passage belongs to. */
  contentHash: string;
  /** Retrieval score (unbounded, > 0): its passage ranking's plus its page's evidence (retrieval/lexical-retriever.ts). */
  score: number;
  /**
   * Its page's score under the page ranking as a share (0..1) of the most the
   * question's terms could score there (retrieval/bm25f.ts `PAGE_RANKING`);
   * absent when retrieval did not rank pages.
   */
  pageEvidence?: number;
  /**
   * Cosine similarity (-1..1) of the passage's embedding to the question's,
   * when dense retrieval scored it (retrieval/dense-retriever.ts); absent
   * when the passage was found lexically only.
   */
  similarity?: number;
  /**
   * How close the passage's document is to the question as a whole: the
   * mean cosine similarity of its {@link DOCUMENT_SIMILARITY_PASSAGES} most
   * similar passages within the reach (a document with fewer counts 0 for
   * each missing one), when dense retrieval scored it
   * (retrieval/dense-retriever.ts); absent otherwise.
   */
  documentSimilarity?: number;
  /**
   * The highest cosine similarity of one of its sentences' embeddings
   * (embedding/passage-text.ts `sentenceEmbeddingTexts`) to the question's,
   * rescaled above the model's floor as `similarity` is, when the search
   * scored its sentences (retrieval/sentence-similarity.ts); absent
   * otherwise, and for a passage with no quotable sentence.
   */
  sentenceSimilarity?: number;
  /**
   * Each quotable sentence's cosine similarity to the question, rescaled as
   * {@link sentenceSimilarity} is, in the order of the passage's sentences
   * that are not status lines (`splitSentences(text)`, text/sentences.ts,
   * as embedding/passage-text.ts `sentenceEmbeddingTexts` embeds them); NaN
   * for a sentence without a cached vector. Set with `sentenceSimilarity`.
   */
  sentenceSimilarities?: number[];
}

/**
 * Passages whose similarities make a document's: 3. A page whose several
 * passages are near the question is about it, where one near passage of an
 * unrelated page is often a chance match. On the fit halves (dense
 * retrieval alone, pages ranked), the mean of a page's best 3 put the gold
 * page first for 0.776 of the Node.js questions and 0.220 of the
 * Kubernetes ones, against 0.766 and 0.185 for its best passage alone
 * (the best 2: 0.804 and 0.195).
 */
export const DOCUMENT_SIMILARITY_PASSAGES = 3;

/** A passage as stored: a {@link ScoredPassage} before retrieval scored it. */
export type StoredPassage = Omit<ScoredPassage, 'score'>;

/** A stored document's passage, as re-indexing reads it. */
export interface IndexablePassage {
  chunkId: number;
  headingPath: string[];
  text: string;
}

/** The lexical index's data and the passages retrieval returns, always within a reach (store/index/index-data.ts); re-indexing. */
export interface IndexRepository {
  /**
   * Refreshes the database's planner statistics of the index tables after a
   * large write (an ingest), so that the searches right after it get good
   * query plans: `ANALYZE` in PostgreSQL (whose autovacuum would do it only
   * a minute or more later; until then a search at 80,000 passages took
   * 0.6 s instead of 0.4 s, and the whole-index read 19 s instead of 12 s),
   * `PRAGMA optimize` in SQLite.
   */
  refreshPlannerStatistics(): Promise<void>;
  /**
   * The index version of the reach's knowledge base and its statistics
   * inside the reach (store/index/index-data.ts), read in one snapshot.
   */
  reachStatistics(reach: Reach): Promise<ReachStatistics>;
  /**
   * The whole lexical index of a knowledge base (its passages' and its
   * pages'), read in one snapshot, for retrieval to hold in memory.
   *
   * @returns undefined when it has more than `maxPostings` postings, passages' and pages' together
   */
  readIndex(kbId: string, maxPostings: number): Promise<KnowledgeBaseIndex | undefined>;
  /** The postings of `terms` in a knowledge base's passages and pages, and the lengths of the units they name. */
  readTermIndex(kbId: string, terms: readonly string[]): Promise<KnowledgeBaseIndex>;
  /**
   * Passages by storage id, in any order; ids no longer stored are left out.
   * Carries no reach: callers pass ids retrieval chose inside the reach.
   */
  passagesById(kbId: string, chunkIds: readonly number[]): Promise<StoredPassage[]>;
  /**
   * Documents whose passages were indexed with another analysis than
   * `analysisVersion` (or before analyses were versioned), for re-indexing.
   */
  listStaleDocuments(analysisVersion: string): Promise<{ kbId: string; docId: string }[]>;
  /** A document's title, description and passages in document order, for re-indexing; undefined when it does not exist. */
  readIndexableDocument(
    kbId: string,
    docId: string,
  ): Promise<{ title: string; description?: string; passages: IndexablePassage[] } | undefined>;
  /**
   * Replaces the index of an existing document's passages (every passage,
   * by its id) in one transaction, and records the analysis that made it.
   * Throws NotFoundError when the document does not exist, ConflictError
   * when `passages` are not exactly its passages (it changed meanwhile).
   */
  reindexDocument(
    kbId: string,
    docId: string,
    analysisVersion: string,
    passages: readonly { chunkId: number; index: IndexedPassage }[],
    page: IndexedPage,
  ): Promise<void>;
  /**
   * The passages of one document inside the reach, in document order,
   * optionally only those whose heading path contains `heading`.
   */
  passagesOf(reach: Reach, docId: string, heading?: string): Promise<ScoredPassage[]>;
  /** How many passages one document has inside the reach (0 when it is absent or outside the reach). */
  countPassages(reach: Reach, docId: string): Promise<number>;
}
