import type { SqlExecutor } from '../sql-executor.ts';
import type { SessionRecord, SessionRepository } from './sessions.ts';

/** Console sign-in sessions, by the hash of their id. */
export function sessionRepository(sql: SqlExecutor): SessionRepository {
  return {
    async createSession(session) {
      // Housekeeping first, then the new session: two statements, since the
      // sessions deleted had expired whether or not the insert succeeds.
      await sql.run('DELETE FROM sessions WHERE expires_at <= CAST(? AS BIGINT)', [session.createdAt]);
      await sql.run('INSERT INTO sessions (id_hash, user_id, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?)', [
        session.idHash,
        session.userId,
        session.createdAt,
        session.expiresAt,
        session.lastSeenAt,
      ]);
    },
    async findSession(idHash) {
      const row = await sql.get<{ [Field in keyof SessionRecord]: SessionRecord[Field] | string }>(
        `SELECT id_hash AS "idHash", user_id AS "userId", created_at AS "createdAt", expires_at AS "expiresAt", last_seen_at AS "lastSeenAt"
         FROM sessions WHERE id_hash = ?`,
        [idHash],
      );
      if (row === undefined) return undefined;
      return {
        idHash: String(row.idHash),
        userId: String(row.userId),
        createdAt: Number(row.createdAt),
        expiresAt: Number(row.expiresAt),
        lastSeenAt: Number(row.lastSeenAt),
      };
    },
    async touchSession(idHash, at, expiresAt) {
      await sql.run('UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id_hash = ?', [at, expiresAt, idHash]);
    },
    async deleteSession(idHash) {
      await sql.run('DELETE FROM sessions WHERE id_hash = ?', [idHash]);
    },
    deleteSessionsOf(userId) {
      return sql.run('DELETE FROM sessions WHERE user_id = ?', [userId]);
    },
  };
}
