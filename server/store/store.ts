/**
 * The storage interface of kb-widget: workspace records, documents and their
 * passages, the lexical index's data (store/index/index-data.ts; retrieval/ scores it),
 * passages' embedding vectors (store/embeddings/embedding-repository.ts), curated
 * answers, visitors' feedback, widget tokens, console passwords,
 * set-password links and console sessions.
 *
 * One interface, two backends (docs/design-decisions.md "Storage"): the embedded SQLite store
 * and, later, PostgreSQL. Every method is async so either can implement it.
 * Times are milliseconds since the Unix epoch. The store knows nothing of
 * HTTP: it throws {@link StoreUnavailableError} when its database cannot be
 * reached and {@link ConflictError} / {@link NotFoundError} for record rules
 * (store-errors.ts).
 */

export { ConflictError, NotFoundError, StoreUnavailableError } from './store-errors.ts';

import type { EmbeddingRepository } from './embeddings/embeddings.ts';
import type { SettingsRepository, WorkspaceRepository } from './workspace/workspace.ts';
import type { ContentVersionRepository, DocumentRepository } from './documents/documents.ts';
import type { IndexRepository } from './passages/passages.ts';
import type { FeedbackRepository } from './feedback/feedback.ts';
import type { QuestionLogRepository } from './question-log/question-log.ts';
import type { TokenRepository } from './tokens/tokens.ts';
import type { SessionRepository } from './sign-in/sessions.ts';
import type { PasswordLinkRepository } from './sign-in/password-links.ts';

// Passage vectors for dense retrieval: their own module, part of the Store below.
export type { DenseIndex, EmbeddingRepository, PassageToEmbed, PassageVector } from './embeddings/embeddings.ts';

// Roles (`editor` and `owner` have update permission), visibilities and token purposes: one definition, shared with the console.
export {
  ROLES,
  TOKEN_PURPOSES,
  TOKEN_STATUSES,
  VISIBILITIES,
  type Role,
  type TokenPurpose,
  type TokenStatus,
  type Visibility,
} from '../../protocol/workspace-terms.ts';
import type { TokenPurpose, TokenStatus, Visibility } from '../../protocol/workspace-terms.ts';

// Users, knowledge bases, roles and the workspace's settings.
export {
  ANCHOR_STYLES,
  URL_STYLES,
  type AnchorStyle,
  type KnowledgeBase,
  type KnowledgeBaseChanges,
  type Membership,
  type SettingsRepository,
  type UrlStyle,
  type User,
  type WorkspaceRepository,
} from './workspace/workspace.ts';

// Documents and their content version.
export type {
  BatchPutOutcome,
  ChunkInput,
  ContentVersionRepository,
  DocumentInput,
  DocumentRecord,
  DocumentRepository,
  PutOutcome,
} from './documents/documents.ts';

// Passages inside a reach, and the lexical index's reads.
export {
  DOCUMENT_SIMILARITY_PASSAGES,
  type IndexablePassage,
  type IndexRepository,
  type Reach,
  type ScoredPassage,
  type StoredPassage,
} from './passages/passages.ts';

// Visitors' feedback, and the question log.
export type { FeedbackCursor, FeedbackInput, FeedbackPassage, FeedbackRecord, FeedbackRepository } from './feedback/feedback.ts';
export type { QuestionFeedback, QuestionLogEntry, QuestionLogRecord, QuestionLogRepository } from './question-log/question-log.ts';

// Widget tokens; console sessions and set-password links.
export type { TokenCursor, TokenFilter, TokenRecord, TokenRepository } from './tokens/tokens.ts';
export type { SessionRecord, SessionRepository } from './sign-in/sessions.ts';
export type { PasswordLinkRecord, PasswordLinkRepository } from './sign-in/password-links.ts';

/** A curated question/answer pair (`qa_shortcut`). */
export interface FaqPair {
  question: string;
  answer: string;
  /** Documents (and optionally a heading inside them) the answer cites. */
  sources: { docId: string; heading?: string }[];
}

/** A stored curated pair with its id (stable until the pairs are replaced by `kb faq import`). */
export interface CuratedAnswer extends FaqPair {
  id: number;
}


/** Curated question-answer pairs (`qa_shortcut`). */
export interface CuratedAnswerRepository {
  /** Replaces the curated pairs of a KB in one transaction. */
  replaceFaq(kbId: string, pairs: FaqPair[]): Promise<void>;
  /** The pairs in order: as imported, then those added one by one. */
  listFaq(kbId: string): Promise<CuratedAnswer[]>;
  /**
   * Adds a pair after the others.
   *
   * @throws NotFoundError when the knowledge base does not exist
   */
  addFaqPair(kbId: string, pair: FaqPair): Promise<CuratedAnswer>;
  /** Replaces one pair's question, answer and sources; false when the knowledge base has no pair `id`. */
  updateFaqPair(kbId: string, id: number, pair: FaqPair): Promise<boolean>;
  /** Removes one pair; false when the knowledge base has no pair `id`. */
  removeFaqPair(kbId: string, id: number): Promise<boolean>;
}

/** Rate-limit windows shared by every process on the database. */
export interface RateLimitRepository {
  /**
   * Counts hits of a rate-limit key in its fixed window, atomically (so
   * every server process sharing the database shares the count): a key
   * whose window has ended starts a new one of `windowMs` at `at`.
   *
   * @param key e.g. `ip:203.0.113.7` or `token:tok_...`
   * @param windowMs window length, milliseconds (> 0)
   * @param at the time of the hits, epoch milliseconds
   * @param hits how many hits (>= 1; default 1): several requests counted in one write
   * @returns hits in the current window, these included, and when it ends (epoch ms)
   */
  hitRateLimit(key: string, windowMs: number, at: number, hits?: number): Promise<{ hits: number; resetAt: number }>;
  /** Takes back one hit of `key` in its current window (a request that should not count); never below 0. */
  unhitRateLimit(key: string, at: number): Promise<void>;
  /** Forgets the window of `key`. */
  resetRateLimit(key: string): Promise<void>;
  /** Deletes the windows that ended by `at` (housekeeping); returns how many. */
  pruneRateLimits(at: number): Promise<number>;
}

/**
 * A website a knowledge base re-imports on a schedule
 * (docs/ingestion.md "Importing a website": re-synced websites): what to crawl, who may read the
 * pages, the crawl's bounds, and when it runs next.
 */
export interface ImportSourceRecord {
  /** `src_` and 16 hex digits. */
  id: string;
  kbId: string;
  /** Pages (and what they link to) or one sitemap, as the person gave them. */
  kind: 'pages' | 'sitemap';
  urls: string[];
  settings: ImportSourceSettings;
  /** Hours between two syncs (> 0). */
  resyncHours: number;
  /** User id of who set it up: a sync imports with their access, while they may still import. */
  createdBy: string;
  createdAt: number;
  /** When the next sync is due, epoch milliseconds. */
  nextSyncAt: number;
  /** How the last sync ended; absent before the first one ends. */
  lastSync?: ImportSourceSync;
}

/** Access and bounds of a re-synced import, as its console form set them. */
export interface ImportSourceSettings {
  visibility: Visibility;
  readers: string[];
  quotable: boolean;
  maxPages: number;
  maxDepth: number;
}

/** How one sync of a source ended: documents by outcome, or why it failed. */
export interface ImportSourceSync {
  status: 'succeeded' | 'failed';
  finishedAt: number;
  created?: number;
  updated?: number;
  unchanged?: number;
  removed?: number;
  failed?: number;
  error?: string;
}

/**
 * What the last sync of a source learned of one page it stored: the
 * validators to send next time (`If-None-Match`, `If-Modified-Since`) and
 * the links it found, followed again when the page answers 304.
 */
export interface ImportPageState {
  /** The URL requested (before redirects). */
  url: string;
  docId: string;
  etag?: string;
  lastModified?: string;
  /** Links of the page within the crawl's scope, absolute. */
  links: string[];
}

/** The `import_sources` of a knowledge base and what their last sync learned (server/ingest/import-sources.ts). */
export interface ImportSourceRepository {
  /**
   * Adds a source, or updates the one of the same knowledge base, kind and
   * URLs (its settings, interval, creator and next sync; its id and
   * pages stay).
   *
   * @returns the stored source
   */
  saveImportSource(source: Omit<ImportSourceRecord, 'lastSync'>): Promise<ImportSourceRecord>;
  /** The sources of a knowledge base, by next sync. */
  listImportSources(kbId: string): Promise<ImportSourceRecord[]>;
  getImportSource(kbId: string, id: string): Promise<ImportSourceRecord | undefined>;
  /** Stops re-syncing a source (its documents stay); false when there is none of that id. */
  deleteImportSource(kbId: string, id: string): Promise<boolean>;
  /**
   * Claims the source most overdue at `at`, atomically: moves its next sync
   * to `at` + its interval only if no one else moved it first (`UPDATE ...
   * WHERE next_sync_at = <as read>`), so two processes sharing the
   * database never both run one sync.
   *
   * @returns the claimed source (with its next sync before the claim), or undefined when none is due
   */
  claimDueImportSource(at: number): Promise<ImportSourceRecord | undefined>;
  /**
   * Records how a sync ended and, when given, replaces the pages it learned
   * (in one transaction); nothing when the source was deleted meanwhile.
   */
  finishImportSourceSync(id: string, sync: ImportSourceSync, pages?: readonly ImportPageState[]): Promise<void>;
  /** What the last successful sync of a source learned of its pages. */
  listImportPages(sourceId: string): Promise<ImportPageState[]>;
}

/**
 * The whole storage of a workspace, on one database: every repository
 * above, plus health and closing. Each backend (sqlite/sqlite-store.ts,
 * postgres/postgres-store.ts) implements it; code takes the narrowest repository,
 * or `Pick` of one, that it needs.
 */
export interface Store
  extends WorkspaceRepository,
    DocumentRepository,
    IndexRepository,
    EmbeddingRepository,
    FeedbackRepository,
    QuestionLogRepository,
    CuratedAnswerRepository,
    ContentVersionRepository,
    TokenRepository,
    SessionRepository,
    PasswordLinkRepository,
    ImportSourceRepository,
    RateLimitRepository,
    SettingsRepository {
  /** Resolves when the database answers a trivial query (health checks). */
  ping(): Promise<void>;

  close(): Promise<void>;
}
