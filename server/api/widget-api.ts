import express, { type Express } from 'express';
import { rateLimit, type Options as RateLimitOptions } from 'express-rate-limit';
import type { Logger } from 'pino';
import { announcedBodyLimit, jsonDepthLimit } from '../http/body-guards.ts';
import { problem } from '../http/problem.ts';
import type { RouteGroup } from '../http/route-record.ts';
import { SharedRateLimitStore } from '../http/shared-rate-limit-store.ts';
import type { QuestionLogWriter } from '../question-log/question-log-writer.ts';
import type { ServiceMetrics } from '../http/service-metrics.ts';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import type { SourceSpanCodec } from './source-span.ts';
import type { Store } from '../store/store.ts';
import { FEEDBACK_ROUTES, feedbackRoutes } from './feedback-routes.ts';
import { MAX_BODY_BYTES } from './query-body.ts';
import { QUERY_ROUTES, queryRoutes } from './query-routes.ts';
import { DEFAULT_MAX_STREAM_SECONDS, DEFAULT_MAX_STREAMS_PER_TOKEN, OpenStreamCounter } from './stream-limits.ts';
import { widgetAuth, type WidgetLocals } from './widget-auth.ts';
import { widgetCors } from './widget-cors.ts';

/** Path of one knowledge base's widget endpoints (docs/specification.md "Endpoints"). */
export const WIDGET_API_PATH = '/kb-api/api/v1/kb/:kbId/widget';

/** The widget API's routes (the query, stream and feedback endpoints) under {@link WIDGET_API_PATH}, as `/openapi.json` documents them. */
export const WIDGET_API_ROUTES: RouteGroup = { prefix: WIDGET_API_PATH, records: [...QUERY_ROUTES, ...FEEDBACK_ROUTES] };

/** What the widget API needs (server/app.ts passes its own dependencies). */
export interface WidgetApiDeps {
  store: Store;
  engine: AnswerEngine;
  codec: SourceSpanCodec;
  logger: Logger;
  /** Clock in epoch milliseconds. */
  now: () => number;
  rateLimitPerIp: number;
  rateLimitPerToken: number;
  /** Keep rate-limit counts in the store's database, shared by every replica on it. */
  sharedRateLimits?: boolean;
  /** Answer streams one token may hold open at once in this process (default {@link DEFAULT_MAX_STREAMS_PER_TOKEN}). */
  maxStreamsPerToken?: number;
  /** Longest life of one answer stream, seconds (default {@link DEFAULT_MAX_STREAM_SECONDS}). */
  maxStreamSeconds?: number;
  /** Where answers and open streams are counted. */
  metrics?: Pick<ServiceMetrics, 'answers' | 'openStreams'>;
  /** Where answered questions are logged (question-log/question-log-writer.ts); absent when the log is off. */
  questionLog?: QuestionLogWriter;
}

/**
 * Mounts the widget API under `/kb-api` (docs/specification.md) on the app: CORS, JSON
 * bodies of at most 16 KiB, per-client and per-token rate limits, the token
 * check, then the query, stream (its cap on open streams first) and
 * feedback endpoints ({@link WIDGET_API_ROUTES}). On the app itself,
 * not in a router of its own, so that a request passes through no more
 * routers than it did when the app registered these directly (an answer
 * stream holds its request, and what Express keeps on it, for its whole
 * life).
 */
export function mountWidgetApi(app: Express, deps: WidgetApiDeps): void {
  app.use('/kb-api', widgetCors());
  app.use('/kb-api', (request, _response, next) => {
    if (request.method === 'POST' && !request.is('application/json')) {
      const given = request.get('content-type') ?? 'none';
      throw problem(415, 'unsupported_media_type', `Send the body as application/json, not "${given}"`);
    }
    next();
  });
  app.use('/kb-api', announcedBodyLimit(MAX_BODY_BYTES, '16 KiB'), express.json({ limit: MAX_BODY_BYTES, strict: false }), jsonDepthLimit);
  app.use('/kb-api', rateLimit({ ...limitOptions(deps.rateLimitPerIp, 'client'), ...sharedStore(deps, 'widget-ip:') }));
  app.use(
    WIDGET_API_PATH,
    widgetAuth(deps.store, deps.now),
    rateLimit({
      ...limitOptions(deps.rateLimitPerToken, 'token'),
      ...sharedStore(deps, 'widget-token:'),
      keyGenerator: (_request, response) => (response.locals as WidgetLocals).grant.token.id,
    }),
  );
  app.use(
    WIDGET_API_PATH,
    queryRoutes({
      engine: deps.engine,
      codec: deps.codec,
      logger: deps.logger,
      maxStreamMilliseconds: (deps.maxStreamSeconds ?? DEFAULT_MAX_STREAM_SECONDS) * 1000,
      openStreams: new OpenStreamCounter(deps.maxStreamsPerToken ?? DEFAULT_MAX_STREAMS_PER_TOKEN),
      ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
      ...(deps.questionLog === undefined ? {} : { questionLog: deps.questionLog }),
      now: deps.now,
    }),
  );
  app.use(
    WIDGET_API_PATH,
    feedbackRoutes({ store: deps.store, codec: deps.codec, now: deps.now, ...(deps.questionLog === undefined ? {} : { questionLog: deps.questionLog }) }),
  );

}

/** Rate-limit counts in the store's database when the replicas share it (`sharedRateLimits`), else in memory. */
function sharedStore(deps: WidgetApiDeps, prefix: string): { store?: SharedRateLimitStore } {
  return deps.sharedRateLimits === true ? { store: new SharedRateLimitStore(deps.store, prefix, deps.now) } : {};
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
