import type { Request, RequestHandler } from 'express';
import { problem } from '../http/problem.ts';
import { checkWidgetRequest, type WidgetGrant } from '../auth/token-check.ts';
import { groupedReads } from '../store/grouped-calls.ts';
import type { TokenRepository, WorkspaceRepository } from '../store/store.ts';

/**
 * Middleware that authenticates a widget request before any answer work or
 * stream begins (docs/specification.md "Endpoints" and "Authentication"): reads the token from
 * `Authorization: Bearer` or `X-Widget-Token`, runs the token check, and on
 * success leaves the grant in `response.locals.grant`. Refusals are 401
 * problems with `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750
 * section 3) or 403 problems.
 */

/** Where the grant of a passed check is kept for the route. */
export interface WidgetLocals {
  grant: WidgetGrant;
}

/**
 * @returns the token a request presents: everything after the scheme when
 *   `Authorization` uses the Bearer scheme (RFC 6750 2.1: a malformed
 *   credential such as `Bearer <token> junk` is presented as is, so the check
 *   refuses it as `invalid_token`, not as missing), else `X-Widget-Token`
 */
export function presentedToken(request: Request): string | undefined {
  const authorization = request.get('authorization');
  const bearer = authorization === undefined ? undefined : /^Bearer(?:[ ]+(.*))?$/is.exec(authorization.trim());
  const credential = bearer?.[1]?.trim();
  return credential ? credential : request.get('x-widget-token')?.trim();
}

/**
 * How often a token's "last used" time is written, in milliseconds: once a
 * minute is precise enough for the token list and keeps a write off every request.
 */
export const LAST_USED_PRECISION_MILLISECONDS = 60_000;

export function widgetAuth(store: Pick<TokenRepository, 'findTokenByHash' | 'recordTokenUse'> & Pick<WorkspaceRepository, 'getRole'>, now: () => number): RequestHandler {
  const recorded = new Map<string, number>();
  const recordUse = (tokenId: string, at: number): void => {
    if ((recorded.get(tokenId) ?? -Infinity) + LAST_USED_PRECISION_MILLISECONDS > at) return;
    if (recorded.size >= 10_000) recorded.clear();
    recorded.set(tokenId, at);
    void store.recordTokenUse(tokenId, at).catch(() => recorded.delete(tokenId));
  };
  // The requests presenting a token while it (or its issuer's role) is being read share the next read (store/grouped-calls.ts).
  const reads = {
    findTokenByHash: groupedReads(
      (hash: string) => store.findTokenByHash(hash),
      (hash) => hash,
    ),
    getRole: groupedReads(
      (kbId: string, userId: string) => store.getRole(kbId, userId),
      (kbId, userId) => `${kbId}\n${userId}`,
    ),
  };
  return async (request, response, next) => {
    const result = await checkWidgetRequest(reads, {
      token: presentedToken(request),
      kbId: String(request.params.kbId),
      origin: request.get('origin'),
      now: now(),
    });
    if (!result.ok) {
      const isAuthentication = result.code !== 'kb_mismatch' && result.code !== 'origin_not_allowed';
      const headers: Record<string, string> = {};
      if (isAuthentication) {
        headers['WWW-Authenticate'] =
          result.code === 'missing_token' ? 'Bearer' : `Bearer error="invalid_token", error_description="${result.detail.replace(/"/g, "'")}"`;
      }
      throw problem(isAuthentication ? 401 : 403, result.code, result.detail, headers);
    }
    (response.locals as WidgetLocals).grant = result;
    recordUse(result.token.id, now());
    next();
  };
}
