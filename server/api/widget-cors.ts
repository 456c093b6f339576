import cors from 'cors';
import type { RequestHandler } from 'express';
import { normalizeOrigin } from '../../protocol/origins.ts';

/**
 * CORS for the widget endpoints (docs/design-decisions.md "Tokens and origins"): preflights
 * are answered for any well-formed Origin, since they carry no token; the
 * real request enforces the token's allowed origins. Responses echo the
 * request's Origin (never `*`) with `Vary: Origin` and no credentials, so a
 * page can read the JSON of a refusal and say why.
 */
export function widgetCors(): RequestHandler {
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && normalizeOrigin(origin) !== undefined),
    methods: ['POST'],
    allowedHeaders: ['Authorization', 'X-Widget-Token', 'Content-Type'],
    exposedHeaders: ['Retry-After', 'WWW-Authenticate'],
    credentials: false,
    maxAge: 600,
  });
}
