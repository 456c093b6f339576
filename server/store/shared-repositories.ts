import type { SqlExecutor } from './sql-executor.ts';
import { tokenRecord, type TokenRowBase } from './store-records.ts';
import type { RateLimitRepository, SessionRecord, SessionRepository, SettingsRepository, TokenRepository, Visibility } from './store.ts';

/**
 * The repositories whose rules and row mapping are written once for both
 * backends, over a {@link SqlExecutor}: each backend's store takes them as
 * they are (sqlite-store.ts, postgres-store.ts). Times are epoch milliseconds,
 * passed as `BIGINT` so that PostgreSQL types the arithmetic on them.
 */

/** Rate-limit windows kept in the database, shared by every process on it (issue 6). */
export function rateLimitRepository(sql: SqlExecutor): RateLimitRepository {
  return {
    async hitRateLimit(key, windowMs, at) {
      // One statement: concurrent hits from several processes count exactly.
      const row = await sql.get<{ hits: number | string; resetAt: number | string }>(
        `INSERT INTO rate_limits (key, hits, reset_at) VALUES (?, 1, CAST(? AS BIGINT) + CAST(? AS BIGINT))
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN rate_limits.reset_at <= CAST(? AS BIGINT) THEN 1 ELSE rate_limits.hits + 1 END,
           reset_at = CASE WHEN rate_limits.reset_at <= CAST(? AS BIGINT) THEN excluded.reset_at ELSE rate_limits.reset_at END
         RETURNING hits, reset_at AS "resetAt"`,
        [key, at, windowMs, at, at],
      );
      return { hits: Number(row!.hits), resetAt: Number(row!.resetAt) };
    },
    async unhitRateLimit(key, at) {
      await sql.run(`UPDATE rate_limits SET hits = ${sql.dialect.greatest('hits - 1', '0')} WHERE key = ? AND reset_at > CAST(? AS BIGINT)`, [key, at]);
    },
    async resetRateLimit(key) {
      await sql.run('DELETE FROM rate_limits WHERE key = ?', [key]);
    },
    pruneRateLimits(at) {
      return sql.run('DELETE FROM rate_limits WHERE reset_at <= CAST(? AS BIGINT)', [at]);
    },
  };
}

/** Workspace settings created once (the source-span key, ...). */
export function settingsRepository(sql: SqlExecutor): SettingsRepository {
  return {
    async getOrCreateSetting(key, create) {
      const read = async () => (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]))?.value;
      const existing = await read();
      if (existing !== undefined) return existing;
      // Two processes creating at once: the first insert wins, both read its value.
      await sql.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, create()]);
      return (await read())!;
    },
  };
}

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

const TOKEN_COLUMNS = 'id, kb_id, issuer_id, token_hash, allowed_origins, scope, purpose, created_at, expires_at, revoked_at, last_used_at';

/** Widget tokens, stored by the hash of their secret; their lists (origins, scope) in the dialect's list column. */
export function tokenRepository(sql: SqlExecutor): TokenRepository {
  const toToken = (row: TokenRowBase & { allowed_origins: unknown; scope: unknown }) =>
    tokenRecord(row, { allowedOrigins: sql.dialect.readList(row.allowed_origins), scope: sql.dialect.readList(row.scope) as Visibility[] });
  return {
    async insertToken(token) {
      await sql.run(`INSERT INTO tokens (${TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        token.id,
        token.kbId,
        token.issuerId ?? null,
        token.tokenHash,
        sql.dialect.writeList(token.allowedOrigins),
        sql.dialect.writeList(token.scope),
        token.purpose,
        token.createdAt,
        token.expiresAt,
        token.revokedAt ?? null,
        token.lastUsedAt ?? null,
      ]);
    },
    async findTokenByHash(tokenHash) {
      const row = await sql.get<TokenRowBase & { allowed_origins: unknown; scope: unknown }>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE token_hash = ?`, [tokenHash]);
      return row && toToken(row);
    },
    async listTokens(kbId) {
      return (await sql.all<TokenRowBase & { allowed_origins: unknown; scope: unknown }>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE kb_id = ? ORDER BY created_at, id`, [kbId])).map(toToken);
    },
    async revokeToken(id, at) {
      // The first revocation time is kept; a token revoked twice still counts as found.
      return (await sql.run('UPDATE tokens SET revoked_at = COALESCE(revoked_at, CAST(? AS BIGINT)) WHERE id = ?', [at, id])) > 0;
    },
    async recordTokenUse(id, at) {
      await sql.run('UPDATE tokens SET last_used_at = ? WHERE id = ?', [at, id]);
    },
  };
}
