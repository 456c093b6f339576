import { createHash, randomBytes } from 'node:crypto';
import type { PasswordLinkRecord, PasswordLinkRepository } from '../store/store.ts';

/**
 * One-time set-password links (docs/console.md "Members"): an owner invites a
 * person by email and is shown a link to pass on (no mail is sent); the
 * person opens it, chooses a password and is signed in.
 *
 * The link's secret is 32 random bytes (256 bits), base64url, prefixed
 * `kbp_` so secret scanners can recognise a leaked one. It travels in the
 * URL's fragment (`/console#/set-password/kbp_…`), which browsers send to no
 * server and put in no `Referer`, and then in a JSON body: never in a path
 * or query string the request log would write. The store keeps its SHA-256
 * only (OWASP Forgot Password Cheat Sheet: single use, expiring, stored
 * hashed). A link works once, for {@link PASSWORD_LINK_TTL_MILLISECONDS},
 * only while it is its user's newest, and only while that user has no
 * password.
 */

/** Lifetime of a set-password link, ms (7 days). */
export const PASSWORD_LINK_TTL_MILLISECONDS = 7 * 24 * 60 * 60_000;
/** Recognisable prefix of a link's secret. */
export const PASSWORD_LINK_PREFIX = 'kbp_';
const SECRET_BYTES = 32;

/** @returns the SHA-256 (hex) under which a link's secret is stored and looked up */
export function hashPasswordLinkSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Creates a user's set-password link; their earlier links stop working.
 *
 * @param at the time of creation, epoch ms
 * @returns the secret (for the link only, never stored or logged) and when it expires, epoch ms
 */
export async function createPasswordLink(
  store: Pick<PasswordLinkRepository, 'createPasswordLink'>,
  userId: string,
  at: number,
): Promise<{ secret: string; expiresAt: number }> {
  const secret = PASSWORD_LINK_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  const expiresAt = at + PASSWORD_LINK_TTL_MILLISECONDS;
  await store.createPasswordLink({ secretHash: hashPasswordLinkSecret(secret), userId, createdAt: at, expiresAt });
  return { secret, expiresAt };
}

/**
 * The address of the console page where a link's secret sets a password.
 *
 * @param baseUrl the server's public origin, e.g. `https://kb.example.com`
 */
export function setPasswordUrl(baseUrl: string, secret: string): string {
  return `${baseUrl}/console#/set-password/${secret}`;
}

/** What a link can do now: `usable`, or why not. */
export type PasswordLinkState = 'usable' | 'unknown' | 'used' | 'replaced' | 'expired' | 'password_set';

/**
 * @param link the stored link, undefined when no link has the secret's hash
 * @param userHasPassword whether the link's user has a password already (set another way since)
 * @param at now, epoch ms
 */
export function passwordLinkState(link: PasswordLinkRecord | undefined, userHasPassword: boolean, at: number): PasswordLinkState {
  if (link === undefined) return 'unknown';
  if (link.usedAt !== undefined) return 'used';
  if (link.replacedAt !== undefined) return 'replaced';
  if (at >= link.expiresAt) return 'expired';
  if (userHasPassword) return 'password_set';
  return 'usable';
}

/** A sentence for the person who opened a link that cannot be used, saying why and what to do. */
export function passwordLinkRefusal(state: Exclude<PasswordLinkState, 'usable'>): string {
  const askAgain = 'ask the owner who invited you for a new link';
  switch (state) {
    case 'unknown':
      return `This set-password link is not valid; check that it was copied whole, or ${askAgain}`;
    case 'used':
      return 'This set-password link has already been used; sign in with the password chosen then';
    case 'replaced':
      return `This set-password link was replaced by a newer one; use the newest link you were given, or ${askAgain}`;
    case 'expired':
      return `This set-password link has expired; ${askAgain}`;
    case 'password_set':
      return 'This account already has a password; sign in with it';
  }
}
