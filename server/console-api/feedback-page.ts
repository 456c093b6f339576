import type { ConsoleFeedback } from '../../protocol/console-protocol.ts';
import { problem } from '../http/problem.ts';
import type { FeedbackCursor, FeedbackRecord } from '../store/store.ts';

/**
 * How the console API pages and shows visitors' feedback (`GET
 * /console/api/knowledge-bases/{kbId}/feedback`, docs/http-api.md): newest first,
 * `limit` records a page, `cursor` the opaque `next_cursor` of the previous
 * page; passages named by document id and title, never by raw span.
 */

/** Records a page when `limit` is not given, and the most one may ask for. */
export const DEFAULT_FEEDBACK_LIMIT = 50;
export const MAX_FEEDBACK_LIMIT = 100;

export type { ConsoleFeedback };

/**
 * @param query the request's query string (`limit`, `cursor`)
 * @returns the page size and where to continue
 * @throws a 400 `invalid_request` problem for a `limit` that is not an integer
 *   from 1 to {@link MAX_FEEDBACK_LIMIT}, or a `cursor` this API did not give
 */
export function feedbackPage(query: Record<string, unknown>): { limit: number; before?: FeedbackCursor } {
  const { limit, cursor } = query;
  let size = DEFAULT_FEEDBACK_LIMIT;
  if (limit !== undefined) {
    size = typeof limit === 'string' && /^\d{1,3}$/.test(limit) ? Number(limit) : 0;
    if (size < 1 || size > MAX_FEEDBACK_LIMIT) {
      throw problem(400, 'invalid_request', `limit: must be an integer from 1 to ${MAX_FEEDBACK_LIMIT}, got ${JSON.stringify(limit)}`);
    }
  }
  if (cursor === undefined) return { limit: size };
  const match = typeof cursor === 'string' ? /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1')) : null;
  if (!match) throw problem(400, 'invalid_request', 'cursor: not a next_cursor this API gave; start again without it');
  return { limit: size, before: { createdAt: Number(match[1]), id: Number(match[2]) } };
}

/** The `next_cursor` that continues after `record`. */
export function feedbackCursor(record: FeedbackRecord): string {
  return Buffer.from(`${record.createdAt}.${record.id}`, 'latin1').toString('base64url');
}

export function toConsoleFeedback(record: FeedbackRecord): ConsoleFeedback {
  const passages = record.passages.flatMap((passage) => (passage.title === undefined ? [] : [{ doc_id: passage.docId, title: passage.title }]));
  return {
    id: record.id,
    kind: record.kind,
    created_at: new Date(record.createdAt).toISOString(),
    question: record.question,
    provenance: record.provenance,
    ...(record.rating === undefined ? {} : { rating: record.rating }),
    ...(record.reason === undefined ? {} : { reason: record.reason }),
    ...(record.comment === undefined ? {} : { comment: record.comment }),
    passages,
    unlisted_passages: record.passages.length - passages.length,
  };
}
