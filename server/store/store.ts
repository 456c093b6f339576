/**
 * The storage of kb-widget, composed. Each area keeps its records and its
 * repository interface in a module of its own folder, apart from its SQL
 * (`<area>-repository.ts` beside it):
 *
 * - workspace/: users, knowledge bases and roles; the workspace's settings;
 * - documents/: documents as ingested, and the content version;
 * - passages/: passages inside a reach, the lexical index's reads, re-indexing;
 * - embeddings/: passages' embedding vectors (dense retrieval);
 * - feedback/, question-log/: visitors' ratings and reports; the questions asked;
 * - curated-answers/: question-answer pairs answered as written;
 * - tokens/, sign-in/: widget tokens; console sessions and set-password links;
 * - rate-limits/, import-sources/: shared rate-limit windows; re-synced websites.
 *
 * {@link Store} is their union. One interface, two backends
 * (docs/design-decisions.md "Storage"): each area's SQL is written once
 * over sql-executor.ts and gathered by shared-repositories.ts; sqlite/ and
 * postgres/ hold what a backend owns (schema and migrations, index reads,
 * many-row writes), index/ the lexical index's format. Every method is
 * async so either backend can implement it. Times are milliseconds since
 * the Unix epoch. The store knows nothing of HTTP: it throws
 * `StoreUnavailableError` when its database cannot be reached and
 * `ConflictError` / `NotFoundError` for record rules (server/errors.ts,
 * the ground floor every layer imports them from).
 *
 * Code outside the store imports the records from here.
 */

import type { CuratedAnswerRepository } from './curated-answers/curated-answers.ts';
import type { ContentVersionRepository, DocumentRepository } from './documents/documents.ts';
import type { EmbeddingRepository } from './embeddings/embeddings.ts';
import type { FeedbackRepository } from './feedback/feedback.ts';
import type { ImportSourceRepository } from './import-sources/import-sources.ts';
import type { IndexRepository } from './passages/passages.ts';
import type { QuestionLogRepository } from './question-log/question-log.ts';
import type { RateLimitRepository } from './rate-limits/rate-limits.ts';
import type { PasswordLinkRepository } from './sign-in/password-links.ts';
import type { SessionRepository } from './sign-in/sessions.ts';
import type { TokenRepository } from './tokens/tokens.ts';
import type { SettingsRepository, WorkspaceRepository } from './workspace/workspace.ts';

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

// Passage vectors for dense retrieval.
export type { CachedVector, DenseIndex, EmbeddingRepository, PassageToEmbed, PassageVector } from './embeddings/embeddings.ts';

// Visitors' feedback, and the question log.
export type { FeedbackCursor, FeedbackInput, FeedbackPassage, FeedbackRecord, FeedbackRepository } from './feedback/feedback.ts';
export type { QuestionFeedback, QuestionLogEntry, QuestionLogRecord, QuestionLogRepository } from './question-log/question-log.ts';

// Curated answers.
export type { CuratedAnswer, CuratedAnswerRepository, FaqPair } from './curated-answers/curated-answers.ts';

// Widget tokens; console sessions and set-password links.
export type { TokenCursor, TokenFilter, TokenRecord, TokenRepository } from './tokens/tokens.ts';
export type { SessionRecord, SessionRepository } from './sign-in/sessions.ts';
export type { PasswordLinkRecord, PasswordLinkRepository } from './sign-in/password-links.ts';

// Shared rate-limit windows; re-synced websites.
export type { RateLimitRepository } from './rate-limits/rate-limits.ts';
export type {
  ImportPageState,
  ImportSourceRecord,
  ImportSourceRepository,
  ImportSourceSettings,
  ImportSourceSync,
} from './import-sources/import-sources.ts';

/**
 * The whole storage of a workspace, on one database: every area's
 * repository, plus health and closing. Each backend (sqlite/sqlite-store.ts,
 * postgres/postgres-store.ts) implements it; code takes the narrowest
 * repository, or `Pick` of one, that it needs.
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
