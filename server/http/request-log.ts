import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { ServiceMetrics } from './service-metrics.ts';

/**
 * One log line per request, under a request id: the client's
 * `X-Request-Id` when it is a plausible id, else a new UUID, returned in the
 * response's `X-Request-Id` either way, so a person reporting a problem and
 * the operator reading the log speak of the same request.
 *
 * A line is written when the response ends (or the connection closes):
 * `{ req: { id, method, path }, res: { statusCode }, responseTime }` with the
 * message `METHOD /path STATUS`, at `info`, `warn` for 4xx, `error` for 5xx.
 * It never holds a header (tokens and session cookies travel there), a body
 * (questions travel there) or a query string. Error lines of the request
 * carry its id too ({@link requestLogger}, http/problem.ts).
 *
 * Not pino-http: its per-request child logger and serializers cost about
 * 9 KB for each open answer stream (`npm run bench`, 5,000 idle streams: 43
 * against 34 KB), past the 30 KB a stream may take; this middleware keeps
 * one small record per request and one listener shared by all (the
 * request's duration for the metrics is taken in it too), and binds a child
 * logger only when an error is logged.
 */

/** The header that carries the request id, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id taken from a client: 1 to 128 letters, digits and `.`, `_`, `:`, `-` (a UUID, a trace id). */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Probes every few seconds would drown the log. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The request id of a request.
 *
 * @param given the client's `X-Request-Id`, if any
 * @returns it when valid, else a new random UUID
 */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The logger of one request's lines: the service's, with the request's id
 * bound (read from the response's `X-Request-Id`, which {@link requestLog}
 * set). Made only when a line needs it, so a request costs nothing more.
 */
export function requestLogger(logger: Logger, response: { getHeader(name: string): unknown }): Logger {
  const id = response.getHeader(REQUEST_ID_HEADER);
  return typeof id === 'string' ? logger.child({ reqId: id }) : logger;
}

/**
 * Logs each request, and times it into the request metrics when given.
 *
 * @param logger the service's logger
 * @param metrics where request durations are counted, by route template
 * @param routeOf a request path's route template (http/service-metrics.ts `routeTemplateOf`)
 */
export function requestLog(logger: Logger, metrics?: Pick<ServiceMetrics, 'requestDuration'>, routeOf: (path: string) => string = () => 'other'): RequestHandler {
  // One shared listener, called with the response as `this`, and one small record per request:
  // an open answer stream holds them for its whole life (no closure per request).
  const open = new WeakMap<ServerResponse, LoggedRequest>();
  function onClose(this: ServerResponse): void {
    const logged = open.get(this);
    if (logged === undefined) return;
    open.delete(this);
    const status = this.statusCode;
    const seconds = (performance.now() - logged.started) / 1000;
    metrics?.requestDuration.observe({ method: logged.method, route: routeOf(logged.path), status: String(status) }, seconds);
    if (UNLOGGED_PATHS.has(logged.path)) return;
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    const responseTime = Math.round(seconds * 10_000) / 10;
    logger[level]({ req: { id: logged.id, method: logged.method, path: logged.path }, res: { statusCode: status }, responseTime }, `${logged.method} ${logged.path} ${status}`);
  }
  return (request, response, next) => {
    const id = requestIdOf(request.headers['x-request-id']);
    response.setHeader(REQUEST_ID_HEADER, id);
    // The path is read now: routers strip their mount path from the request as it passes through them.
    // Kept beside the response, not on it: a new property would change the shape of every response.
    open.set(response, { id, method: request.method, path: request.path, started: performance.now() });
    response.on('close', onClose);
    next();
  };
}

/** What the request log keeps of a request until its response ends. */
interface LoggedRequest {
  id: string;
  method: string;
  path: string;
  /** `performance.now()` at its arrival. */
  started: number;
}
