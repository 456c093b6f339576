/**
 * One-time set-password links as the store keeps them: by the hash of their
 * secret. Their SQL is in password-link-repository.ts.
 */

/**
 * A one-time set-password link (docs/console.md "Members"): an owner invites a
 * person who has no password yet and is shown a link carrying a secret; the
 * person opens it and chooses a password. The secret lives only in the link;
 * the store keeps its SHA-256.
 */
export interface PasswordLinkRecord {
  /** SHA-256 (hex) of the link's secret. */
  secretHash: string;
  userId: string;
  createdAt: number;
  /** The link works until this time (exclusive). */
  expiresAt: number;
  /** When it was used to set a password; absent while unused. */
  usedAt?: number;
  /** When a newer link for the same user replaced it; absent while it is the user's newest. */
  replacedAt?: number;
}

/** One-time set-password links, stored by the hash of their secret (server/auth/password-links.ts). */
export interface PasswordLinkRepository {
  /**
   * Records a new link and marks every earlier link of the same user that
   * is neither used nor replaced as replaced at its `createdAt`, in one
   * transaction: only a user's newest link works. Also deletes links that
   * expired more than 30 days before it (housekeeping).
   */
  createPasswordLink(link: PasswordLinkRecord): Promise<void>;
  findPasswordLink(secretHash: string): Promise<PasswordLinkRecord | undefined>;
  /**
   * Uses a link, in one transaction: when it is neither used nor replaced,
   * has not expired at `at` and its user has no password yet, marks it used
   * at `at` and sets the user's password hash.
   *
   * @returns the user's id, or undefined when the link was not usable (then nothing changed)
   */
  usePasswordLink(secretHash: string, at: number, passwordHash: string): Promise<string | undefined>;
}
