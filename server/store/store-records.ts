/**
 * Row mapping and record rules both store backends share (sqlite/sqlite-store.ts,
 * postgres/postgres-store.ts): the columns are the same, only the SQL dialect and
 * a few column types differ, so records are built once, here.
 */
import type {
  FeedbackInput,
  FeedbackRecord,
  TokenPurpose,
  TokenRecord,
  Visibility,
} from './store.ts';

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

/** A `feedback` row as both backends select it ({@link FEEDBACK_COLUMNS}). */
export interface FeedbackRow {
  id: number;
  kind: FeedbackInput['kind'];
  created_at: number;
  question: string;
  provenance: FeedbackInput['provenance'];
  rating: 'up' | 'down' | null;
  reason: string | null;
  comment: string | null;
}

/** The columns of a {@link FeedbackRow}. */
export const FEEDBACK_COLUMNS = 'id, kind, created_at, question, provenance, rating, reason, comment';

/** A `feedback_passages` row with its document's title when the document is inside the reader's reach, else null. */
export interface FeedbackPassageRow {
  feedback_id: number;
  doc_id: string;
  chunk_id: number;
  version: string;
  title: string | null;
}

/**
 * Feedback records from their rows, in the order of `rows`; optional
 * fields omitted when their column is null.
 *
 * @param passageRows the passages of those records, each record's in order
 */
export function feedbackRecords(kbId: string, rows: readonly FeedbackRow[], passageRows: readonly FeedbackPassageRow[]): FeedbackRecord[] {
  const passages = new Map<number, FeedbackRecord['passages']>(rows.map((row) => [row.id, []]));
  for (const row of passageRows) {
    passages.get(row.feedback_id)?.push({
      docId: row.doc_id,
      chunkId: row.chunk_id,
      version: row.version,
      ...(row.title === null ? {} : { title: row.title }),
    });
  }
  return rows.map((row) => ({
    id: row.id,
    kbId,
    kind: row.kind,
    createdAt: row.created_at,
    question: row.question,
    provenance: row.provenance,
    ...(row.rating === null ? {} : { rating: row.rating }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.comment === null ? {} : { comment: row.comment }),
    passages: passages.get(row.id)!,
  }));
}
