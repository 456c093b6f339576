/**
 * Row mapping and record rules both store backends share (sqlite/sqlite-store.ts,
 * postgres/postgres-store.ts): the columns are the same, only the SQL dialect and
 * a few column types differ, so records are built once, here.
 */
import type { TokenPurpose, TokenRecord, Visibility } from './store.ts';

/** A `tokens` row as both backends select it, its list columns aside (JSON text in SQLite, arrays in PostgreSQL). */
export interface TokenRowBase {
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
export function tokenRecord(row: TokenRowBase, decoded: { allowedOrigins: string[]; scope: Visibility[] }): TokenRecord {
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

