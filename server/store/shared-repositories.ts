import type { SqlExecutor } from './sql-executor.ts';
import { curatedAnswerRepository } from './curated-answers/curated-answer-repository.ts';
import type { CuratedAnswerRepository } from './curated-answers/curated-answers.ts';
import { contentVersionRepository } from './documents/content-version.ts';
import { documentRepository, type DocumentWrites } from './documents/document-repository.ts';
import type { DocumentBulkWrites } from './documents/document-rows.ts';
import type { ContentVersionRepository } from './documents/documents.ts';
import { embeddingRepository } from './embeddings/embedding-repository.ts';
import type { EmbeddingRepository } from './embeddings/embeddings.ts';
import { feedbackRepository } from './feedback/feedback-repository.ts';
import type { FeedbackRepository } from './feedback/feedback.ts';
import { importSourceRepository } from './import-sources/import-source-repository.ts';
import type { ImportSourceRepository } from './import-sources/import-sources.ts';
import { questionLogRepository } from './question-log/question-log-repository.ts';
import type { QuestionLogRepository } from './question-log/question-log.ts';
import { rateLimitRepository } from './rate-limits/rate-limit-repository.ts';
import type { RateLimitRepository } from './rate-limits/rate-limits.ts';
import { passwordLinkRepository } from './sign-in/password-link-repository.ts';
import type { PasswordLinkRepository } from './sign-in/password-links.ts';
import { sessionRepository } from './sign-in/session-repository.ts';
import type { SessionRepository } from './sign-in/sessions.ts';
import { tokenRepository } from './tokens/token-repository.ts';
import type { TokenRepository } from './tokens/tokens.ts';
import { settingsRepository } from './workspace/settings-repository.ts';
import { workspaceRepository } from './workspace/workspace-repository.ts';
import type { SettingsRepository, WorkspaceRepository } from './workspace/workspace.ts';

/**
 * Every repository whose rules and row mapping are written once for both
 * backends over a {@link SqlExecutor}: all of the store but the index reads
 * (sqlite/sqlite-index.ts, postgres/postgres-index.ts) and the backend's own `ping` and
 * `close`. Times are epoch milliseconds, passed as `BIGINT` where
 * PostgreSQL must type arithmetic on them.
 */
export type SharedRepositories = WorkspaceRepository &
  DocumentWrites &
  EmbeddingRepository &
  FeedbackRepository &
  QuestionLogRepository &
  CuratedAnswerRepository &
  ContentVersionRepository &
  TokenRepository &
  SessionRepository &
  PasswordLinkRepository &
  ImportSourceRepository &
  RateLimitRepository &
  SettingsRepository;

/**
 * The shared repositories over one backend's executor, as one object a
 * store takes as it is (sqlite/sqlite-store.ts, postgres/postgres-store.ts).
 *
 * @param bulk the backend's many-row writes of a document
 * @param now the clock, epoch milliseconds (record times)
 */
export function sharedRepositories(sql: SqlExecutor, bulk: DocumentBulkWrites, now: () => number): SharedRepositories {
  return {
    ...workspaceRepository(sql, now),
    ...documentRepository(sql, bulk, now),
    ...embeddingRepository(sql),
    ...feedbackRepository(sql),
    ...questionLogRepository(sql),
    ...curatedAnswerRepository(sql),
    ...contentVersionRepository(sql),
    ...tokenRepository(sql),
    ...sessionRepository(sql),
    ...passwordLinkRepository(sql),
    ...importSourceRepository(sql),
    ...rateLimitRepository(sql),
    ...settingsRepository(sql),
  };
}
