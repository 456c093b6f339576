import { join } from 'node:path';
import express, { type Express } from 'express';
import { rateLimit, type Options as RateLimitOptions } from 'express-rate-limit';
import { SharedRateLimitStore } from './http/shared-rate-limit-store.ts';
import type { Logger } from 'pino';
import { problem, problemHandler } from './http/problem.ts';
import { announcedBodyLimit, jsonDepthLimit } from './api/body-guards.ts';
import { MAX_BODY_BYTES } from './api/query-body.ts';
import { feedbackRoutes } from './api/feedback-routes.ts';
import { queryRoutes } from './api/query-routes.ts';
import { DEFAULT_MAX_STREAM_SECONDS, DEFAULT_MAX_STREAMS_PER_TOKEN, OpenStreamCounter, streamCap } from './api/stream-limits.ts';
import { widgetAssetRoutes } from './api/widget-asset.ts';
import { widgetAuth, type WidgetLocals } from './api/widget-auth.ts';
import { widgetCors } from './api/widget-cors.ts';
import { consoleSession, requireSignedIn } from './http/console-session.ts';
import { consolePageRoutes } from './console-api/console-page.ts';
import { consoleRoutes, MAX_DOCUMENT_BODY_BYTES } from './console-api/console-routes.ts';
import { OPENAPI_DOCUMENT } from './console-api/openapi.ts';
import { sameOriginOnly } from './http/same-origin-check.ts';
import { signInRoutes } from './console-api/sign-in-routes.ts';
import type { AnswerEngine } from './engine/answer-engine.ts';
import type { SourceSpanCodec } from './engine/source-span.ts';
import type { Store } from './store/store.ts';

/** Everything the app needs, passed explicitly so tests can build their own. */
/** Token lifetime cap when the app is not told one (the configuration default). */
export const DEFAULT_TOKEN_TTL_CAP_MINUTES = 1440;

export interface AppDeps {
  store: Store;
  engine: AnswerEngine;
  codec: SourceSpanCodec;
  logger: Logger;
  /** Clock in epoch milliseconds. */
  now: () => number;
  rateLimitPerIp: number;
  rateLimitPerToken: number;
  /** Number of trusted reverse proxies (Express `trust proxy`). */
  trustedProxies: number;
  /**
   * Keep rate-limit counts in the store's database, shared by every replica
   * on it (set with `DATABASE_URL`); default false: in this process's memory.
   */
  sharedRateLimits?: boolean;
  /**
   * Folder of the built widget (`dist/`), served at `/widget/kb-widget.js`
   * and `/widget/kb-widget.mjs`; omitted = the widget script is not served.
   */
  widgetDistDir?: string;
  /**
   * Folder of the built console (`dist/console`), served at
   * `/console/console.js` to the page at `/console`; default: `console/`
   * inside `widgetDistDir`. Without either, the page is served but its
   * script answers 404.
   */
  consoleDistDir?: string;
  /** Platform cap on token lifetimes issued from the console, minutes (default {@link DEFAULT_TOKEN_TTL_CAP_MINUTES}). */
  tokenTtlCapMinutes?: number;
  /** Answer streams one token may hold open at once in this process (default {@link DEFAULT_MAX_STREAMS_PER_TOKEN}). */
  maxStreamsPerToken?: number;
  /** Longest life of one answer stream, seconds (default {@link DEFAULT_MAX_STREAM_SECONDS}). */
  maxStreamSeconds?: number;
}

/** Base path of the widget endpoints (SPEC.md 4). */
export const WIDGET_API_PATH = '/kb-api/api/v1/kb/:kbId/widget';

/**
 * Builds the Express app. Reads top to bottom as a request's path: health,
 * the widget script; widget endpoints: CORS, media type, announced size,
 * body parser with a size limit, nesting depth, per-IP limit, token check, per-token limit, open-stream cap (streams only),
 * the query routes and the feedback route; console:
 * same-origin check, no caching, media type, body parser, session cookie,
 * sign-in routes, console API, the console page; JSON 404, one error handler last.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustedProxies);
  app.set('json replacer', omitNull);

  app.get('/healthz', async (_request, response) => {
    await deps.store.ping();
    response.json({ status: 'ok' });
  });
  app.get('/openapi.json', (_request, response) => {
    response.json(OPENAPI_DOCUMENT);
  });
  if (deps.widgetDistDir !== undefined) app.use(widgetAssetRoutes(deps.widgetDistDir));

  app.use('/kb-api', widgetCors());
  app.use('/kb-api', (request, _response, next) => {
    if (request.method === 'POST' && !request.is('application/json')) {
      const given = request.get('content-type') ?? 'none';
      throw problem(415, 'unsupported_media_type', `Send the body as application/json, not "${given}"`);
    }
    next();
  });
  app.use('/kb-api', announcedBodyLimit(MAX_BODY_BYTES, '16 KiB'), express.json({ limit: MAX_BODY_BYTES, strict: false }), jsonDepthLimit);
  const sharedStore = (prefix: string) =>
    deps.sharedRateLimits === true ? { store: new SharedRateLimitStore(deps.store, prefix, deps.now) } : {};
  app.use('/kb-api', rateLimit({ ...limitOptions(deps.rateLimitPerIp, 'client'), ...sharedStore('widget-ip:') }));
  app.use(
    WIDGET_API_PATH,
    widgetAuth(deps.store, deps.now),
    rateLimit({
      ...limitOptions(deps.rateLimitPerToken, 'token'),
      ...sharedStore('widget-token:'),
      keyGenerator: (_request, response) => (response.locals as WidgetLocals).grant.token.id,
    }),
  );
  app.post(`${WIDGET_API_PATH}/query/stream`, streamCap(new OpenStreamCounter(deps.maxStreamsPerToken ?? DEFAULT_MAX_STREAMS_PER_TOKEN)));
  app.use(
    WIDGET_API_PATH,
    queryRoutes({
      engine: deps.engine,
      codec: deps.codec,
      logger: deps.logger,
      maxStreamMilliseconds: (deps.maxStreamSeconds ?? DEFAULT_MAX_STREAM_SECONDS) * 1000,
    }),
  );
  app.use(WIDGET_API_PATH, feedbackRoutes({ store: deps.store, codec: deps.codec, now: deps.now }));

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
    announcedBodyLimit(MAX_DOCUMENT_BODY_BYTES, '5 MiB'),
    express.json({ limit: MAX_DOCUMENT_BODY_BYTES }),
  );
  app.use('/console/api', announcedBodyLimit(MAX_BODY_BYTES, '16 KiB'), express.json({ limit: MAX_BODY_BYTES }), jsonDepthLimit);
  app.use('/console', consoleSession(deps.store, deps.now));
  app.use('/console/api', signInRoutes({ store: deps.store, now: deps.now, sharedRateLimits: deps.sharedRateLimits === true }));
  app.use(
    '/console/api',
    requireSignedIn,
    consoleRoutes({
      store: deps.store,
      now: deps.now,
      tokenTtlCapMinutes: deps.tokenTtlCapMinutes ?? DEFAULT_TOKEN_TTL_CAP_MINUTES,
      publicBaseUrl: (request) => `${request.protocol}://${request.get('host')}`,
    }),
  );

  const consoleDistDir = deps.consoleDistDir ?? (deps.widgetDistDir === undefined ? undefined : join(deps.widgetDistDir, 'console'));
  app.use(consolePageRoutes(consoleDistDir));

  app.use((request) => {
    throw problem(404, 'not_found', `No endpoint at ${request.method} ${request.path}`);
  });
  app.use(problemHandler(deps.logger));
  return app;
}

function limitOptions(limit: number, what: 'client' | 'token'): Partial<RateLimitOptions> {
  return {
    windowMs: 60_000,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (request, _response, next) => {
      const resetTime = (request as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + 60_000) - Date.now()) / 1000));
      next(
        problem(429, 'rate_limited', `Too many requests from this ${what}: at most ${limit} a minute; retry in ${seconds} s`, {
          'Retry-After': String(seconds),
        }),
      );
    },
  };
}

/** JSON replacer that drops `null` values: fields with no value are omitted (SPEC.md 2). */
function omitNull(_key: string, value: unknown): unknown {
  return value === null ? undefined : value;
}
