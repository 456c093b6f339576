import createHttpError, { isHttpError } from 'http-errors';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { Problem, ProblemCode } from '../../protocol/query-protocol.ts';
import { GenerationError } from '../engine/generation-error.ts';
import { StoreUnavailableError } from '../store/store.ts';

/**
 * Refused requests as RFC 9457 problem details (DESIGN.md "Wire decisions"):
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
 * @param code problem code (DESIGN.md)
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
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, request, response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    if (isHttpError(error)) {
      for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
      const parserProblem = typeof error.type === 'string' ? PARSER_PROBLEMS[error.type] : undefined;
      if (parserProblem) {
        const [status, code] = parserProblem;
        sendProblem(response, status, code, parserDetail(error.type as string, error.message));
        return;
      }
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code in TITLES && error.expose) {
        sendProblem(response, error.status, code as ProblemCode, error.message);
        return;
      }
    }
    if (error instanceof GenerationError) {
      logger.warn({ err: error, path: request.path }, 'answer generator failed');
      response.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      sendProblem(response, 503, 'unavailable', 'The answer generator is temporarily unavailable; retry shortly');
      return;
    }
    if (error instanceof StoreUnavailableError) {
      logger.warn({ err: error, path: request.path }, 'store unavailable');
      response.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      sendProblem(response, 503, 'unavailable', 'The knowledge base is temporarily unavailable; retry shortly');
      return;
    }
    logger.error({ err: error, path: request.path }, 'unexpected error');
    sendProblem(response, 500, 'internal', 'The server failed to handle the request');
  };
}

function parserDetail(type: string, message: string): string {
  switch (type) {
    case 'entity.too.large':
      return 'The request body is larger than the 16 KiB limit';
    case 'entity.parse.failed':
      return `The request body is not valid JSON: ${message}`;
    default:
      return message;
  }
}
