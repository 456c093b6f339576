import { hasUpdatePermission } from '../access/access-rules.ts';
import { createHash, randomBytes } from 'node:crypto';
import { formatAllowedOrigin, parseAllowedOrigin } from '../../protocol/origins.ts';
import type { Store, TokenPurpose, TokenRecord, Visibility } from '../store/store.ts';
import { VISIBILITIES } from '../store/store.ts';

/**
 * Widget tokens (docs/specification.md "Authentication", docs/design-decisions.md "Tokens and
 * origins"): opaque,
 * high-entropy, prefixed `kbw_`, shown once at issue and stored only as a
 * SHA-256 hash, bound to one knowledge base and a list of allowed origins.
 */

/** Recognisable prefix of every widget token (lets secret scanners find leaked ones). */
export const TOKEN_PREFIX = 'kbw_';
/** Default lifetime (docs/specification.md "Limits"). */
export const DEFAULT_TOKEN_TTL_MINUTES = 60;
/** Default scope: public documents only (docs/design-decisions.md "Access rules"). */
export const DEFAULT_TOKEN_SCOPE: readonly Visibility[] = ['public'];
/** Random bytes per token: 256 bits, far beyond guessing. */
const TOKEN_BYTES = 32;

/** Why an issue request was refused. */
export class TokenIssueError extends Error {
  override name = 'TokenIssueError';
  /** `forbidden`: the issuer lacks update permission; `invalid`: a bad lifetime, origin or scope. */
  readonly reason: 'forbidden' | 'invalid';
  constructor(reason: 'forbidden' | 'invalid', message: string) {
    super(message);
    this.reason = reason;
  }
}

/** @returns the SHA-256 (hex) under which a token is stored and looked up */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface IssueTokenInput {
  kbId: string;
  issuerId: string;
  /** Exact origins or `https://*.example.com` patterns; empty = server-only. */
  allowedOrigins: readonly string[];
  /** Lifetime in minutes, 1..cap; default {@link DEFAULT_TOKEN_TTL_MINUTES} (or the cap if lower). */
  ttlMinutes?: number;
  /** Visibilities to reach; default {@link DEFAULT_TOKEN_SCOPE}. */
  scope?: readonly Visibility[];
  /** `embed` (default) for a customer's page, `preview` for the console's live preview, `demo` for the demo page. */
  purpose?: TokenPurpose;
}

export interface IssueTokenSettings {
  /** Platform cap on a token's lifetime, in minutes. */
  ttlCapMinutes: number;
  now: number;
}

/** Purposes whose expired tokens are deleted rather than kept: their holders reuse one while valid, so expired ones are clutter. */
export const PURGED_TOKEN_PURPOSES: readonly TokenPurpose[] = ['preview', 'demo'];

/**
 * Issues a token. The issuer must have update permission (`editor` or
 * `owner`) on the knowledge base now; a lifetime above the cap is refused,
 * never silently shortened. Issuing a `preview` or `demo` token first
 * deletes the knowledge base's expired ones ({@link PURGED_TOKEN_PURPOSES});
 * `embed` tokens are never deleted.
 *
 * @returns the secret token (shown once) and the stored record
 * @throws TokenIssueError
 */
export async function issueToken(
  store: Store,
  input: IssueTokenInput,
  settings: IssueTokenSettings,
): Promise<{ token: string; record: TokenRecord }> {
  const role = await store.getRole(input.kbId, input.issuerId);
  if (!hasUpdatePermission(role)) {
    throw new TokenIssueError(
      'forbidden',
      `Issuing a token needs update permission (editor or owner) on knowledge base "${input.kbId}"`,
    );
  }
  const ttlMinutes = input.ttlMinutes ?? Math.min(DEFAULT_TOKEN_TTL_MINUTES, settings.ttlCapMinutes);
  if (!Number.isInteger(ttlMinutes) || ttlMinutes < 1) {
    throw new TokenIssueError('invalid', `Token lifetime must be a whole number of minutes of at least 1, got ${ttlMinutes}`);
  }
  if (ttlMinutes > settings.ttlCapMinutes) {
    throw new TokenIssueError(
      'invalid',
      `Token lifetime of ${ttlMinutes} minutes exceeds the platform cap of ${settings.ttlCapMinutes} minutes`,
    );
  }
  const allowedOrigins = input.allowedOrigins.map((value) => {
    const parsed = parseAllowedOrigin(value);
    if (!parsed) {
      throw new TokenIssueError(
        'invalid',
        `Allowed origin "${value}" is not an origin like https://shop.example.com or https://*.example.com`,
      );
    }
    return formatAllowedOrigin(parsed);
  });
  const scope = [...new Set(input.scope ?? DEFAULT_TOKEN_SCOPE)];
  const unknown = scope.find((visibility) => !VISIBILITIES.includes(visibility));
  if (unknown !== undefined || scope.length === 0) {
    throw new TokenIssueError('invalid', `Scope must list some of ${VISIBILITIES.join(', ')}, got "${scope.join(',')}"`);
  }
  const token = TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
  const record: TokenRecord = {
    id: `tok_${randomBytes(9).toString('base64url')}`,
    kbId: input.kbId,
    issuerId: input.issuerId,
    tokenHash: hashToken(token),
    allowedOrigins: [...new Set(allowedOrigins)],
    scope,
    purpose: input.purpose ?? 'embed',
    createdAt: settings.now,
    expiresAt: settings.now + ttlMinutes * 60_000,
  };
  if (PURGED_TOKEN_PURPOSES.includes(record.purpose)) await store.deleteExpiredTokens(input.kbId, PURGED_TOKEN_PURPOSES, settings.now);
  await store.insertToken(record);
  return { token, record };
}
