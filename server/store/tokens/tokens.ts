/**
 * Widget tokens as the store keeps them: by the hash of their secret, with
 * the origins and visibilities they allow, listed a page at a time. Their
 * SQL is in token-repository.ts; issuing and checking them is
 * server/auth/'s.
 */

import type { TokenPurpose, TokenStatus, Visibility } from '../../../protocol/workspace-terms.ts';

export interface TokenRecord {
  /** Public identifier, e.g. `tok_...`, used to list and revoke. */
  id: string;
  kbId: string;
  /** The user who issued it; absent once that user has been removed (the token no longer works). */
  issuerId?: string;
  /** SHA-256 (hex) of the secret token; the secret itself is never stored. */
  tokenHash: string;
  /** Normalized allowed origins and `*.` patterns; empty = server-only. */
  allowedOrigins: string[];
  /** Visibilities the token may reach, intersected with what its issuer can read. */
  scope: Visibility[];
  /**
   * Why it was issued: `embed` for a customer's page (the Developers tab's
   * form, the CLI), `preview` for the console's live preview (allowed only on
   * the console's own origin, 10 minutes), `demo` for the demo page. All obey
   * the same access rules; expired `preview` and `demo` tokens are deleted
   * ({@link TokenRepository.deleteExpiredTokens}), `embed` ones kept.
   */
  purpose: TokenPurpose;
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
  lastUsedAt?: number;
}

/** Where a page of tokens continues: the last token of the previous page (listing is newest first). */
export interface TokenCursor {
  createdAt: number;
  id: string;
}

/** Which tokens of a knowledge base a page lists (all filters optional, combined with AND). */
export interface TokenFilter {
  /** Status at `now`: `revoked` wins over `expired`, as the console shows it. */
  status?: TokenStatus;
  /** Text contained in one of the allowed origins (stored lowercase; pass it lowercase). */
  origin?: string;
  purpose?: TokenPurpose;
}

/** Widget tokens, stored by the hash of their secret. */
export interface TokenRepository {
  insertToken(token: TokenRecord): Promise<void>;
  findTokenByHash(tokenHash: string): Promise<TokenRecord | undefined>;
  /** Every token of a knowledge base, oldest first (the CLI's list). */
  listTokens(kbId: string): Promise<TokenRecord[]>;
  /**
   * A page of a knowledge base's tokens matching `filter`, newest first
   * (then by id, descending): at most `limit` from after `after`, filtered
   * in SQL; `total` counts every match, all pages together.
   *
   * @param now epoch ms at which `filter.status` is judged
   */
  listTokenPage(
    kbId: string,
    filter: TokenFilter,
    page: { limit: number; after?: TokenCursor; now: number },
  ): Promise<{ tokens: TokenRecord[]; total: number }>;
  /** One token of a knowledge base by its id, or undefined. */
  getToken(kbId: string, id: string): Promise<TokenRecord | undefined>;
  /**
   * Deletes the knowledge base's tokens of the given purposes that expired
   * at or before `now` (the holders of `preview` and `demo` tokens reuse one
   * while valid; expired ones are only clutter). Never pass `embed`: those
   * stay as an audit trail.
   *
   * @returns how many were deleted
   */
  deleteExpiredTokens(kbId: string, purposes: readonly TokenPurpose[], now: number): Promise<number>;
  /** Marks a token revoked at `at`; returns false when no such token exists. */
  revokeToken(id: string, at: number): Promise<boolean>;
  recordTokenUse(id: string, at: number): Promise<void>;
}
