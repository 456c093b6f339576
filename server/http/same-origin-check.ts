import type { Request, RequestHandler } from 'express';
import { problem } from './problem.ts';
import { normalizeOrigin } from '../../protocol/origins.ts';

/**
 * Cross-site request forgery defence of the console (docs/http-api.md "Sign-in and sessions").
 *
 * The console authenticates with a cookie, which a browser attaches to
 * requests that other sites make too. Two layers, as the OWASP Cross-Site
 * Request Forgery Prevention Cheat Sheet recommends for a stateless check:
 *
 * 1. the session cookie is `SameSite=Lax` (console-session.ts), so browsers
 *    leave it off cross-site subrequests and cross-site POSTs;
 * 2. this check ("Verifying Origin with standard headers" and "Fetch
 *    Metadata headers"): a state-changing request (POST, PUT, PATCH,
 *    DELETE) is accepted only when its `Origin` header is this server's own
 *    origin - the request's protocol and host, as Express reads them with
 *    `trust proxy` - or, when a browser sent no `Origin`, when
 *    `Sec-Fetch-Site` is `same-origin` or `none` (typed by the person).
 *    Anything else, including no header at all, `Origin: null`,
 *    `Sec-Fetch-Site: same-site` (a sibling subdomain) and `cross-site`, is
 *    refused with 403 `cross_site_request` before any route runs.
 *
 * Layer 2 also holds where SameSite does not (older browsers, a sibling
 * subdomain, which is "same site"), and protects sign-in itself against
 * login CSRF, where no cookie exists yet. The console sends no CORS headers,
 * so other origins cannot read its responses either. Reads (GET, HEAD) are
 * not checked: they change nothing.
 */

const STATE_CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** @returns the origin this request was addressed to, e.g. `https://kb.example.com` */
export function ownOrigin(request: Request): string | undefined {
  const host = request.host;
  return host === undefined ? undefined : normalizeOrigin(`${request.protocol}://${host}`);
}

/** Middleware refusing state-changing requests from other origins (see the module comment). */
export const sameOriginOnly: RequestHandler = (request, _response, next) => {
  if (!STATE_CHANGING_METHODS.has(request.method)) {
    next();
    return;
  }
  const own = ownOrigin(request);
  const origin = request.get('origin');
  if (origin !== undefined) {
    if (own !== undefined && normalizeOrigin(origin) === own) {
      next();
      return;
    }
    throw problem(
      403,
      'cross_site_request',
      `Origin "${origin}" is not this server's origin "${own ?? 'unknown'}"; console changes are accepted only from the console's own pages`,
    );
  }
  const site = request.get('sec-fetch-site');
  if (site === 'same-origin' || site === 'none') {
    next();
    return;
  }
  throw problem(
    403,
    'cross_site_request',
    site === undefined
      ? `A ${request.method} to the console needs an Origin header naming this server ("${own ?? 'unknown'}")`
      : `Sec-Fetch-Site "${site}" shows a request from another site; console changes are accepted only from the console's own pages`,
  );
};
