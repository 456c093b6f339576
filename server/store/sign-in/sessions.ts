/**
 * Console sign-in sessions as the store keeps them: by the hash of their
 * id. Their SQL is in session-repository.ts.
 */

/**
 * A signed-in console session (server/http/console-session.ts). The session
 * id lives only in the person's cookie; the store keeps its SHA-256.
 */
export interface SessionRecord {
  /** SHA-256 (hex) of the session id. */
  idHash: string;
  userId: string;
  createdAt: number;
  /** When it ends unless used again: the sliding deadline, never past the absolute one. */
  expiresAt: number;
  lastSeenAt: number;
}

/** Console sign-in sessions, stored by the hash of their id. */
export interface SessionRepository {
  /**
   * Records a new console session, and deletes every session whose
   * `expiresAt` has passed by its `createdAt` (housekeeping).
   */
  createSession(session: SessionRecord): Promise<void>;
  findSession(idHash: string): Promise<SessionRecord | undefined>;
  /** Records a use: `lastSeenAt = at`, `expiresAt` = the new deadline. */
  touchSession(idHash: string, at: number, expiresAt: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of a user (password changed); returns how many there were. */
  deleteSessionsOf(userId: string): Promise<number>;
}
