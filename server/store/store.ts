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


export interface TokenRecord {
  /** Public identifier, e.g. `tok_...`, used to list and revoke. */
  id: string;
  kbId: string;
  /** The user who issued it; absent once that user has been removed (the token no longer works). */
  issuerId?: string;
  /** SHA-256 (hex) of the secret token; the secret itself is never stored. */
  tokenHash: string;
  /** Normalized allowed origins and `*.` patterns; empty = server-only. */
  allowedOrigins: string[];
  /** Visibilities the token may reach, intersected with what its issuer can read. */
  scope: Visibility[];
  /**
   * Why it was issued: `embed` for a customer's page (the Developers tab's
   * form, the CLI), `preview` for the console's live preview (allowed only on
   * the console's own origin, 10 minutes), `demo` for the demo page. All obey
   * the same access rules; expired `preview` and `demo` tokens are deleted
   * ({@link TokenRepository.deleteExpiredTokens}), `embed` ones kept.
   */
  purpose: TokenPurpose;
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
  lastUsedAt?: number;
}

/**
 * A signed-in console session (server/http/console-session.ts). The session
 * id lives only in the person's cookie; the store keeps its SHA-256.
 */
export interface SessionRecord {
  /** SHA-256 (hex) of the session id. */
  idHash: string;
  userId: string;
  createdAt: number;
  /** When it ends unless used again: the sliding deadline, never past the absolute one. */
  expiresAt: number;
  lastSeenAt: number;
}

/**
 * A one-time set-password link (docs/console.md "Members"): an owner invites a
 * person who has no password yet and is shown a link carrying a secret; the
 * person opens it and chooses a password. The secret lives only in the link;
 * the store keeps its SHA-256.
 */
export interface PasswordLinkRecord {
  /** SHA-256 (hex) of the link's secret. */
  secretHash: string;
  userId: string;
  createdAt: number;
  /** The link works until this time (exclusive). */
  expiresAt: number;
  /** When it was used to set a password; absent while unused. */
  usedAt?: number;
  /** When a newer link for the same user replaced it; absent while it is the user's newest. */
  replacedAt?: number;
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

/** Where a page of tokens continues: the last token of the previous page (listing is newest first). */
export interface TokenCursor {
  createdAt: number;
  id: string;
}

/** Which tokens of a knowledge base a page lists (all filters optional, combined with AND). */
export interface TokenFilter {
  /** Status at `now`: `revoked` wins over `expired`, as the console shows it. */
  status?: TokenStatus;
  /** Text contained in one of the allowed origins (stored lowercase; pass it lowercase). */
  origin?: string;
  purpose?: TokenPurpose;
}

/** Widget tokens, stored by the hash of their secret. */
export interface TokenRepository {
  insertToken(token: TokenRecord): Promise<void>;
  findTokenByHash(tokenHash: string): Promise<TokenRecord | undefined>;
  /** Every token of a knowledge base, oldest first (the CLI's list). */
  listTokens(kbId: string): Promise<TokenRecord[]>;
  /**
   * A page of a knowledge base's tokens matching `filter`, newest first
   * (then by id, descending): at most `limit` from after `after`, filtered
   * in SQL; `total` counts every match, all pages together.
   *
   * @param now epoch ms at which `filter.status` is judged
   */
  listTokenPage(
    kbId: string,
    filter: TokenFilter,
    page: { limit: number; after?: TokenCursor; now: number },
  ): Promise<{ tokens: TokenRecord[]; total: number }>;
  /** One token of a knowledge base by its id, or undefined. */
  getToken(kbId: string, id: string): Promise<TokenRecord | undefined>;
  /**
   * Deletes the knowledge base's tokens of the given purposes that expired
   * at or before `now` (the holders of `preview` and `demo` tokens reuse one
   * while valid; expired ones are only clutter). Never pass `embed`: those
   * stay as an audit trail.
   *
   * @returns how many were deleted
   */
  deleteExpiredTokens(kbId: string, purposes: readonly TokenPurpose[], now: number): Promise<number>;
  /** Marks a token revoked at `at`; returns false when no such token exists. */
  revokeToken(id: string, at: number): Promise<boolean>;
  recordTokenUse(id: string, at: number): Promise<void>;
}

/** Console sign-in sessions, stored by the hash of their id. */
export interface SessionRepository {
  /**
   * Records a new console session, and deletes every session whose
   * `expiresAt` has passed by its `createdAt` (housekeeping).
   */
  createSession(session: SessionRecord): Promise<void>;
  findSession(idHash: string): Promise<SessionRecord | undefined>;
  /** Records a use: `lastSeenAt = at`, `expiresAt` = the new deadline. */
  touchSession(idHash: string, at: number, expiresAt: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of a user (password changed); returns how many there were. */
  deleteSessionsOf(userId: string): Promise<number>;
}

/** One-time set-password links, stored by the hash of their secret (server/auth/password-links.ts). */
export interface PasswordLinkRepository {
  /**
   * Records a new link and marks every earlier link of the same user that
   * is neither used nor replaced as replaced at its `createdAt`, in one
   * transaction: only a user's newest link works. Also deletes links that
   * expired more than 30 days before it (housekeeping).
   */
  createPasswordLink(link: PasswordLinkRecord): Promise<void>;
  findPasswordLink(secretHash: string): Promise<PasswordLinkRecord | undefined>;
  /**
   * Uses a link, in one transaction: when it is neither used nor replaced,
   * has not expired at `at` and its user has no password yet, marks it used
   * at `at` and sets the user's password hash.
   *
   * @returns the user's id, or undefined when the link was not usable (then nothing changed)
   */
  usePasswordLink(secretHash: string, at: number, passwordHash: string): Promise<string | undefined>;
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
