import { Router } from 'express';
import { MAX_DOCUMENT_BODY_BYTES } from '../../protocol/console-terms.ts';
import type { ConsoleRouteDeps } from './console-context.ts';
import { curatedAnswerRoutes } from './curated-answer-routes.ts';
import { documentRoutes } from './document-routes.ts';
import { feedbackListRoutes } from './feedback-list-routes.ts';
import { importRoutes } from './import-routes.ts';
import { insightsRoutes } from './insights-routes.ts';
import { knowledgeBaseRoutes } from './knowledge-base-routes.ts';
import { memberRoutes } from './member-routes.ts';
import { tokenRoutes } from './token-routes.ts';
import { uploadRoutes } from './upload-routes.ts';

export type { ConsoleRouteDeps };
export { MAX_DOCUMENT_BODY_BYTES };
export { PREVIEW_TOKEN_TTL_MINUTES } from './token-routes.ts';

/**
 * The console's JSON API behind the Developers tab (docs/http-api.md "Console API"), relative to
 * `/console/api`. Every route needs a signed-in person (app.ts mounts the
 * session check first); widget tokens are never accepted here. Access
 * follows the workspace roles (docs/design-decisions.md "Access rules"):
 *
 * - any member of a knowledge base sees it, the documents they can read, its
 *   members and its tokens;
 * - `editor` and `owner` (update permission) add, change and remove
 *   documents and curated answers, issue and revoke tokens,
 *   including the Developers tab's preview tokens, and read visitors' feedback;
 * - `owner` invites people by email (with a one-time set-password link for
 *   those without a password), changes roles and removes members.
 *
 * A knowledge base the person is not a member of answers 404, so its
 * existence is not revealed. Shapes are documented in `/openapi.json`,
 * generated from protocol/console-protocol.ts. One file per resource:
 * knowledge bases (with their document list), documents, uploads of files,
 * website imports, curated answers, feedback, insights, members, tokens; the checks they share are in console-context.ts.
 */
export function consoleRoutes(deps: ConsoleRouteDeps): Router {
  return Router().use(
    knowledgeBaseRoutes(deps),
    documentRoutes(deps),
    uploadRoutes(deps),
    curatedAnswerRoutes(deps),
    importRoutes(deps),
    feedbackListRoutes(deps),
    insightsRoutes(deps),
    memberRoutes(deps),
    tokenRoutes(deps),
  );
}
