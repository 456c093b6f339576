import createHttpError, { isHttpError } from 'http-errors';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { Problem, ProblemCode } from '../../protocol/query-protocol.ts';
import { GenerationError, StoreUnavailableError } from '../errors.ts';
import { requestLogger } from './request-log.ts';

/**
 * Refused requests as RFC 9457 problem details (docs/specification.md "Refused requests"):
 * errors are values with a status (`http-errors`) carrying a problem `code`,
 * turned into an `application/problem+json` response in exactly one place,
 * {@link problemHandler}. Never a stack trace, never a 500 for bad input.
 */

/** Title of each problem code: short, stable, human. */
const TITLES: Record<ProblemCode, string> = {
  invalid_request: 'Invalid request',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  missing_token: 'Missing token',
  invalid_token: 'Invalid token',
  token_expired: 'Token expired',
  token_revoked: 'Token revoked',
  origin_not_allowed: 'Origin not allowed',
  kb_mismatch: 'Knowledge base mismatch',
  unauthenticated: 'Not signed in',
  forbidden: 'Forbidden',
  cross_site_request: 'Cross-site request refused',
  not_found: 'Not found',
  conflict: 'Conflict',
  invalid_link: 'Link not valid',
  rate_limited: 'Too many requests',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
};

/** Seconds a client should wait before retrying a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Creates a refusal to throw or pass to `next`.
 *
 * @param status HTTP status
 * @param code problem code (docs/http-api.md "Refused requests")
 * @param detail what was wrong, with the offending value
 * @param headers extra response headers (e.g. `Retry-After`)
 */
export function problem(status: number, code: ProblemCode, detail: string, headers?: Record<string, string>) {
  return createHttpError(status, detail, { code, headers, expose: true });
}

/** @returns the problem `type` URI of a code */
export function problemType(code: ProblemCode): string {
  return `urn:kb-widget:problem:${code}`;
}

/** Writes a problem response. */
export function sendProblem(response: Response, status: number, code: ProblemCode, detail: string): void {
  const body: Problem = { type: problemType(code), title: TITLES[code], status, detail, code };
  response.status(status).type('application/problem+json').send(JSON.stringify(body));
}

const PARSER_PROBLEMS: Record<string, [number, ProblemCode]> = {
  'entity.too.large': [413, 'payload_too_large'],
  'entity.parse.failed': [400, 'invalid_request'],
  'encoding.unsupported': [415, 'unsupported_media_type'],
  'charset.unsupported': [415, 'unsupported_media_type'],
  'request.aborted': [400, 'invalid_request'],
  'request.size.invalid': [400, 'invalid_request'],
  'stream.encoding.set': [500, 'internal'],
};

/**
 * The one error handler, last in the app: maps errors to problem responses.
 * Body-parser errors become 400/413/415, store outages 503 with
 * `Retry-After`, anything unexpected a logged 500 `internal`.
 */
export function problemHandler(appLogger: Logger): ErrorRequestHandler {
  return (error: unknown, request, response, next) => {
    // An error line carries the request's id (http/request-log.ts); the child logger is made only for a line.
    const logger = () => requestLogger(appLogger, response);
    if (response.headersSent) {
      next(error);
      return;
    }
    // A refusal sent before the request's body was read: the connection is
    // closed after the response, so an unread body (announced as 10 GB, say)
    // is never waited for.
    if (!request.complete) response.setHeader('Connection', 'close');
    if (isHttpError(error)) {
      for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
      const parserProblem = typeof error.type === 'string' ? PARSER_PROBLEMS[error.type] : undefined;
      if (parserProblem) {
        const [status, code] = parserProblem;
        sendProblem(response, status, code, parserDetail(error.type as string, error.message, (error as { limit?: unknown }).limit));
        return;
      }
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code in TITLES && error.expose) {
        sendProblem(response, error.status, code as ProblemCode, error.message);
        return;
      }
    }
    const clientError = libraryClientError(error);
    if (clientError) {
      sendProblem(response, clientError.status, clientError.code, clientError.detail);
      return;
    }
    if (error instanceof GenerationError) {
      logger().warn({ err: error, path: request.path }, 'answer generator failed');
      response.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      sendProblem(response, 503, 'unavailable', 'The answer generator is temporarily unavailable; retry shortly');
      return;
    }
    if (error instanceof StoreUnavailableError) {
      logger().warn({ err: error, path: request.path }, 'store unavailable');
      response.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      sendProblem(response, 503, 'unavailable', 'The knowledge base is temporarily unavailable; retry shortly');
      return;
    }
    logger().error({ err: error, path: request.path }, 'unexpected error');
    sendProblem(response, 500, 'internal', 'The server failed to handle the request');
  };
}

/** Problem codes of the client-error statuses libraries raise on their own. */
const STATUS_CODES: Record<number, ProblemCode> = {
  400: 'invalid_request',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * A client error raised by a library rather than by this project's code,
 * which keeps its 4xx status: the router's malformed percent-encoding in a
 * path (a URIError with `status` 400), body-parser's corrupt gzip or deflate
 * body (an http-error whose `code` is zlib's, such as `Z_DATA_ERROR`).
 * Anything else (no status, or a 5xx) is not a client error.
 */
function libraryClientError(error: unknown): { status: number; code: ProblemCode; detail: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  const code = STATUS_CODES[status] ?? 'invalid_request';
  if (error instanceof URIError) {
    return { status: 400, code: 'invalid_request', detail: 'The request path holds a malformed percent-encoding (such as "%ZZ")' };
  }
  const zlibCode = (error as { code?: unknown }).code;
  if (typeof zlibCode === 'string' && zlibCode.startsWith('Z_')) {
    return { status: 400, code: 'invalid_request', detail: `The request body does not match its Content-Encoding: ${error.message}` };
  }
  return { status: STATUS_CODES[status] ? status : 400, code, detail: error.message };
}

/** `16384` → "16 KiB", `5242880` → "5 MiB". */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function parserDetail(type: string, message: string, limit: unknown): string {
  switch (type) {
    case 'entity.too.large':
      return `The request body is larger than the ${typeof limit === 'number' ? formatBytes(limit) : 'size'} limit`;
    case 'entity.parse.failed':
      return `The request body is not valid JSON: ${message}`;
    default:
      return message;
  }
}
