import { isOriginAllowed } from '../../protocol/origins.ts';
import { hashToken, TOKEN_PREFIX } from './widget-tokens.ts';
import { hasUpdatePermission, tokenReach } from '../access/access-rules.ts';
import type { Reach, TokenRecord, TokenRepository, WorkspaceRepository } from '../store/store.ts';
import type { ProblemCode } from '../../protocol/query-protocol.ts';

/**
 * The check every widget request passes before any answer work or stream
 * starts (docs/specification.md "Authentication", docs/design-decisions.md "Tokens and origins"), in this order:
 * token present, known, not revoked, not expired, issuer still holding
 * update permission, bound to the requested knowledge base, origin allowed.
 */

/** What the request presented. */
export interface WidgetCredentials {
  /** The token from `Authorization: Bearer` or `X-Widget-Token`, if any. */
  token: string | undefined;
  /** `{kbId}` of the request path. */
  kbId: string;
  /** The `Origin` header; undefined for a server-to-server call (accepted, docs/specification.md "Authentication"). */
  origin: string | undefined;
  /** Epoch milliseconds. */
  now: number;
}

/** A passed check: the token and what its questions may reach. */
export interface WidgetGrant {
  ok: true;
  token: TokenRecord;
  reach: Reach;
}

/** A failed check: the problem code and a sentence saying what was wrong. */
export interface WidgetRefusal {
  ok: false;
  code: Extract<
    ProblemCode,
    'missing_token' | 'invalid_token' | 'token_expired' | 'token_revoked' | 'kb_mismatch' | 'origin_not_allowed'
  >;
  detail: string;
}

/**
 * @returns a grant, or a refusal with its code; never throws for bad input
 * @throws StoreUnavailableError when the store cannot be reached
 */
export async function checkWidgetRequest(store: Pick<TokenRepository, 'findTokenByHash'> & Pick<WorkspaceRepository, 'getRole'>, credentials: WidgetCredentials): Promise<WidgetGrant | WidgetRefusal> {
  const { token: presented, now } = credentials;
  if (presented === undefined || presented === '') {
    return {
      ok: false,
      code: 'missing_token',
      detail: 'Send a widget token in the Authorization: Bearer header or the X-Widget-Token header',
    };
  }
  const token = presented.startsWith(TOKEN_PREFIX) ? await store.findTokenByHash(hashToken(presented)) : undefined;
  if (!token) return { ok: false, code: 'invalid_token', detail: 'The widget token is not valid' };
  if (token.revokedAt !== undefined) {
    return { ok: false, code: 'token_revoked', detail: `The widget token ${token.id} has been revoked` };
  }
  if (now >= token.expiresAt) {
    return {
      ok: false,
      code: 'token_expired',
      detail: `The widget token expired at ${new Date(token.expiresAt).toISOString()}; ask for a fresh one`,
    };
  }
  if (token.issuerId === undefined) {
    return {
      ok: false,
      code: 'token_revoked',
      detail: `The widget token ${token.id} no longer works: its issuer was removed from the workspace`,
    };
  }
  const role = await store.getRole(token.kbId, token.issuerId);
  if (!hasUpdatePermission(role)) {
    return {
      ok: false,
      code: 'token_revoked',
      detail: `The widget token ${token.id} no longer works: its issuer lost update permission on knowledge base "${token.kbId}"`,
    };
  }
  if (token.kbId !== credentials.kbId) {
    return {
      ok: false,
      code: 'kb_mismatch',
      detail: `The widget token is bound to knowledge base "${token.kbId}", not "${credentials.kbId}"`,
    };
  }
  if (credentials.origin !== undefined && !isOriginAllowed(credentials.origin, token.allowedOrigins)) {
    return {
      ok: false,
      code: 'origin_not_allowed',
      detail: `Origin "${credentials.origin}" is not allowed for this token`,
    };
  }
  return { ok: true, token, reach: tokenReach(token.kbId, token.issuerId, role, token.scope) };
}
