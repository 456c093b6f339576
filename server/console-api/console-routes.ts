import type { Router } from 'express';
import { MAX_DOCUMENT_BODY_BYTES } from '../../protocol/console-terms.ts';
import { mountRoutes, type RouteRecord } from '../http/route-record.ts';
import type { ConsoleRouteDeps } from './console-context.ts';
import { CURATED_ANSWER_ROUTES } from './curated-answer-routes.ts';
import { DOCUMENT_ROUTES } from './document-routes.ts';
import { FEEDBACK_LIST_ROUTES } from './feedback-list-routes.ts';
import { IMPORT_ROUTES } from './import-routes.ts';
import { INSIGHTS_ROUTES } from './insights-routes.ts';
import { KNOWLEDGE_BASE_ROUTES } from './knowledge-base-routes.ts';
import { MEMBER_ROUTES } from './member-routes.ts';
import { TOKEN_ROUTES } from './token-routes.ts';
import { UPLOAD_ROUTES } from './upload-routes.ts';

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
 * existence is not revealed. Each route is a record (server/http/route-record.ts),
 * mounted by {@link consoleRoutes} and documented in `/openapi.json` from
 * this one list, its shapes generated from protocol/console-protocol.ts.
 * One file per resource: knowledge bases (with their document list),
 * documents, uploads of files, website imports, curated answers, feedback,
 * insights, members, tokens; the checks they share are in console-context.ts.
 * Their order is the order Express tries them in.
 */
export const CONSOLE_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  ...KNOWLEDGE_BASE_ROUTES,
  ...DOCUMENT_ROUTES,
  ...UPLOAD_ROUTES,
  ...CURATED_ANSWER_ROUTES,
  ...IMPORT_ROUTES,
  ...FEEDBACK_LIST_ROUTES,
  ...INSIGHTS_ROUTES,
  ...MEMBER_ROUTES,
  ...TOKEN_ROUTES,
];

/** The console's JSON API ({@link CONSOLE_ROUTES}), mounted. */
export function consoleRoutes(deps: ConsoleRouteDeps): Router {
  return mountRoutes(CONSOLE_ROUTES, deps);
}
