import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * One log line per request (pino-http), under a request id: the client's
 * `X-Request-Id` when it is a plausible id, else a new UUID, returned in the
 * response's `X-Request-Id` either way, so a person reporting a problem and
 * the operator reading the log speak of the same request.
 *
 * A line holds the method, the path (never the query string), the status,
 * the response time and the request id: never a header (tokens and session
 * cookies travel there) and never a body (questions travel there).
 */

/** The header that carries the request id, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id taken from a client: 1 to 128 letters, digits and `.`, `_`, `:`, `-` (a UUID, a trace id). */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id of a request.
 *
 * @param given the client's `X-Request-Id`, if any
 * @returns it when valid, else a new random UUID
 */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : randomUUID();
}

/** The path of a request URL, without its query string. */
function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

/**
 * @param logger the service's logger; each request's line (and `request.log`, for errors) is its child with the request id
 */
export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (request: IncomingMessage, response: ServerResponse) => {
      const id = requestIdOf(request.headers['x-request-id']);
      response.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    serializers: {
      req: (request: { id: unknown; method: string; url: string }) => ({ id: request.id, method: request.method, path: pathOf(request.url) }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
    customLogLevel: (_request, response, error) => (error !== undefined || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info'),
    customSuccessMessage: (request, response) => `${request.method} ${pathOf(request.url)} ${response.statusCode}`,
    customErrorMessage: (request, response) => `${request.method} ${pathOf(request.url)} ${response.statusCode}`,
    // Health and metrics probes every few seconds would drown the log.
    autoLogging: { ignore: (request) => ['/healthz', '/readyz', '/metrics'].includes(pathOf(request.url)) },
  }) as unknown as RequestHandler;
}
