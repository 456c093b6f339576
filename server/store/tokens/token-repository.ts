import type { TokenPurpose, Visibility } from '../../../protocol/workspace-terms.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import type { TokenRecord, TokenRepository } from './tokens.ts';

const TOKEN_COLUMNS = 'id, kb_id, issuer_id, token_hash, allowed_origins, scope, purpose, created_at, expires_at, revoked_at, last_used_at';

/** A `tokens` row as both backends select it, its list columns aside (JSON text in SQLite, arrays in PostgreSQL). */
interface TokenRowBase {
  id: string;
  kb_id: string;
  issuer_id: string | null;
  token_hash: string;
  purpose: TokenPurpose;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

/**
 * A token record from its row; optional fields are omitted when their
 * column is null.
 *
 * @param decoded the backend's allowed origins and scope
 */
function tokenRecord(row: TokenRowBase, decoded: { allowedOrigins: string[]; scope: Visibility[] }): TokenRecord {
  const token: TokenRecord = {
    id: row.id,
    kbId: row.kb_id,
    tokenHash: row.token_hash,
    allowedOrigins: decoded.allowedOrigins,
    scope: decoded.scope,
    purpose: row.purpose,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
  if (row.issuer_id !== null) token.issuerId = row.issuer_id;
  if (row.revoked_at !== null) token.revokedAt = row.revoked_at;
  if (row.last_used_at !== null) token.lastUsedAt = row.last_used_at;
  return token;
}

/** A `tokens` row as selected, its list columns in the dialect's form. */
type TokenRow = TokenRowBase & { allowed_origins: unknown; scope: unknown };

/** Widget tokens, stored by the hash of their secret; their lists (origins, scope) in the dialect's list column. */
export function tokenRepository(sql: SqlExecutor): TokenRepository {
  const toToken = (row: TokenRow) =>
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
      const row = await sql.get<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE token_hash = ?`, [tokenHash]);
      return row && toToken(row);
    },
    async listTokens(kbId) {
      return (await sql.all<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE kb_id = ? ORDER BY created_at, id`, [kbId])).map(toToken);
    },
    async listTokenPage(kbId, filter, page) {
      const conditions = ['kb_id = ?'];
      const params: unknown[] = [kbId];
      if (filter.status === 'revoked') conditions.push('revoked_at IS NOT NULL');
      if (filter.status === 'active') {
        conditions.push('revoked_at IS NULL AND expires_at > ?');
        params.push(page.now);
      }
      if (filter.status === 'expired') {
        conditions.push('revoked_at IS NULL AND expires_at <= ?');
        params.push(page.now);
      }
      if (filter.purpose !== undefined) {
        conditions.push('purpose = ?');
        params.push(filter.purpose);
      }
      if (filter.origin !== undefined) {
        conditions.push(sql.dialect.listElementContains('allowed_origins'));
        params.push(filter.origin);
      }
      const matching = conditions.join(' AND ');
      const after = page.after ? ' AND (created_at < ? OR (created_at = ? AND id < ?))' : '';
      const afterParams = page.after ? [page.after.createdAt, page.after.createdAt, page.after.id] : [];
      const [rows, count] = await Promise.all([
        sql.all<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE ${matching}${after} ORDER BY created_at DESC, id DESC LIMIT ?`, [
          ...params,
          ...afterParams,
          page.limit,
        ]),
        sql.get<{ total: number | string }>(`SELECT COUNT(*) AS total FROM tokens WHERE ${matching}`, params),
      ]);
      return { tokens: rows.map(toToken), total: Number(count?.total ?? 0) };
    },
    async getToken(kbId, id) {
      const row = await sql.get<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE kb_id = ? AND id = ?`, [kbId, id]);
      return row && toToken(row);
    },
    async deleteExpiredTokens(kbId, purposes, now) {
      const deletable = purposes.filter((purpose) => purpose !== 'embed');
      if (deletable.length === 0) return 0;
      return sql.run(`DELETE FROM tokens WHERE kb_id = ? AND ${sql.dialect.memberOf('purpose')} AND expires_at <= ?`, [
        kbId,
        sql.dialect.writeList(deletable),
        now,
      ]);
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
