import type { SqlExecutor } from './sql-executor.ts';
import { tokenRecord, type TokenRowBase } from './store-records.ts';
import type { TokenRepository, Visibility } from './store.ts';

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
