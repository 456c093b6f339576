import { join } from 'node:path';
import express, { type Express } from 'express';
import { announcedBodyLimit, jsonDepthLimit, MAX_JSON_BODY_BYTES } from '../http/body-guards.ts';
import { consoleSession, requireSignedIn } from '../http/console-session.ts';
import { problem } from '../http/problem.ts';
import type { RouteGroup } from '../http/route-record.ts';
import { sameOriginOnly } from '../http/same-origin-check.ts';
import type { ImportJobs } from '../ingest/jobs/import-jobs.ts';
import type { UploadJobs } from '../ingest/jobs/upload-jobs.ts';
import { MAX_UPLOAD_BODY_BYTES } from '../../protocol/console-terms.ts';
import type { Store } from '../store/store.ts';
import { consolePageRoutes } from './console-page.ts';
import { CONSOLE_ROUTES, consoleRoutes, MAX_DOCUMENT_BODY_BYTES } from './console-routes.ts';
import { PASSWORD_LINK_ROUTES, passwordLinkRoutes } from './password-link-routes.ts';
import { SIGN_IN_ROUTES, signInRoutes } from './sign-in-routes.ts';

/** Platform cap on token lifetimes issued from the console, minutes, when none is configured. */
export const DEFAULT_TOKEN_TTL_CAP_MINUTES = 1440;

/**
 * The console API's routes under `/console/api`, as `/openapi.json`
 * documents them: sign-in and the set-password links (before the
 * signed-in check), then the resources ({@link CONSOLE_ROUTES}).
 */
export const CONSOLE_API_ROUTES: RouteGroup = { prefix: '/console/api', records: [...SIGN_IN_ROUTES, ...PASSWORD_LINK_ROUTES, ...CONSOLE_ROUTES] };

/** What the console needs (server/app.ts passes its own dependencies). */
export interface ConsoleAppDeps {
  store: Store;
  /** Clock in epoch milliseconds. */
  now: () => number;
  /** Keep sign-in rate-limit counts in the store's database, shared by every replica on it. */
  sharedRateLimits?: boolean;
  /** Folder of the built widget (`dist/`); the console's script is in its `console/` unless `consoleDistDir` says otherwise. */
  widgetDistDir?: string;
  /** Folder of the built console (`dist/console`), served at `/console/console.js`. */
  consoleDistDir?: string;
  /** Platform cap on token lifetimes issued from the console, minutes (default {@link DEFAULT_TOKEN_TTL_CAP_MINUTES}). */
  tokenTtlCapMinutes?: number;
  /** Where website imports run (server/app.ts makes one when not given). */
  imports: ImportJobs;
  /** Where uploads of files run (server/app.ts makes one on the imports' registry when not given). */
  uploads: UploadJobs;
  /** Private addresses a website import may reach (`KB_IMPORT_ALLOW_PRIVATE_ADDRESSES`; default none). */
  importAllowPrivateAddresses?: boolean | readonly string[];
}

/**
 * Mounts the console under `/console` on the app: same-origin requests only, sessions, the
 * sign-in and set-password link routes, the JSON API (signed-in people only) and the page with
 * its script.
 */
export function mountConsole(app: Express, deps: ConsoleAppDeps): void {
  // The console authenticates with a session cookie, never a widget token.
  app.use('/console', sameOriginOnly);
  app.use('/console/api', (request, response, next) => {
    response.setHeader('Cache-Control', 'no-store');
    if (request.is('application/json') === false) {
      const given = request.get('content-type') ?? 'none';
      throw problem(415, 'unsupported_media_type', `Send the body as application/json, not "${given}"`);
    }
    next();
  });
  app.use(
    '/console/api/knowledge-bases/:kbId/documents',
    announcedBodyLimit(MAX_DOCUMENT_BODY_BYTES, `${MAX_DOCUMENT_BODY_BYTES / (1024 * 1024)} MiB`),
    express.json({ limit: MAX_DOCUMENT_BODY_BYTES }),
  );
  app.use(
    '/console/api/knowledge-bases/:kbId/uploads',
    announcedBodyLimit(MAX_UPLOAD_BODY_BYTES, `${MAX_UPLOAD_BODY_BYTES / (1024 * 1024)} MiB`, 'send the files in several uploads'),
    express.json({ limit: MAX_UPLOAD_BODY_BYTES }),
  );
  app.use('/console/api', announcedBodyLimit(MAX_JSON_BODY_BYTES, '16 KiB'), express.json({ limit: MAX_JSON_BODY_BYTES }), jsonDepthLimit);
  app.use('/console', consoleSession(deps.store, deps.now));
  app.use('/console/api', signInRoutes({ store: deps.store, now: deps.now, sharedRateLimits: deps.sharedRateLimits === true }));
  // Opened by invited people who have no password yet: before the signed-in check.
  app.use('/console/api', passwordLinkRoutes({ store: deps.store, now: deps.now, sharedRateLimits: deps.sharedRateLimits === true }));
  app.use(
    '/console/api',
    requireSignedIn,
    consoleRoutes({
      store: deps.store,
      now: deps.now,
      tokenTtlCapMinutes: deps.tokenTtlCapMinutes ?? DEFAULT_TOKEN_TTL_CAP_MINUTES,
      publicBaseUrl: (request) => `${request.protocol}://${request.get('host')}`,
      imports: deps.imports,
      uploads: deps.uploads,
      importAllowPrivateAddresses: deps.importAllowPrivateAddresses ?? false,
    }),
  );

  const consoleDistDir = deps.consoleDistDir ?? (deps.widgetDistDir === undefined ? undefined : join(deps.widgetDistDir, 'console'));
  app.use(consolePageRoutes(consoleDistDir));
}
