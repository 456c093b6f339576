/**
 * Visitors' feedback: ratings of answers and problem reports on sources,
 * as stored and as listed for one reader. Its SQL is in
 * feedback-repository.ts.
 */

import type { Provenance } from '../../../protocol/query-terms.ts';
import type { Reach } from '../passages/passages.ts';

/**
 * A passage feedback is about, as its `source_span` located it: the
 * document, the passage (chunk ids change when a document is re-ingested)
 * and the document version (a prefix of its content hash).
 */
export interface FeedbackPassage {
  docId: string;
  chunkId: number;
  version: string;
}

/**
 * A visitor's feedback, as stored (docs/http-api.md "Feedback and problem reports"): a `rating` of an answer
 * (`rating` set, `reason` only with `down`) or a `problem` report on one
 * source (`reason` set, one passage). Nothing about the visitor is kept: no
 * address, token or user agent. Reasons are the API's words
 * (protocol/query-protocol.ts); the store keeps them as given.
 */
export interface FeedbackInput {
  kbId: string;
  kind: 'rating' | 'problem';
  /** When it was received, epoch ms. */
  createdAt: number;
  question: string;
  provenance: Provenance;
  rating?: 'up' | 'down';
  reason?: string;
  comment?: string;
  /** The answer's cited passages (a rating, in citation order) or the one reported (a problem). */
  passages: FeedbackPassage[];
}

/**
 * A stored feedback record as listed for one reader: each passage has its
 * document's current title when that document still exists and is inside
 * the reader's reach, and none otherwise (removed, or not theirs to read).
 */
export interface FeedbackRecord extends FeedbackInput {
  /** Increasing with each record of the store. */
  id: number;
  passages: (FeedbackPassage & { title?: string })[];
}

/** Where a page of feedback continues: the last record of the previous page (listing is newest first). */
export interface FeedbackCursor {
  createdAt: number;
  id: number;
}

/** Visitors' ratings and problem reports (docs/http-api.md "Feedback and problem reports"). */
export interface FeedbackRepository {
  /**
   * Stores a visitor's feedback and its passages in one transaction.
   * Throws NotFoundError for an unknown knowledge base.
   *
   * @returns the record's id
   */
  addFeedback(input: FeedbackInput): Promise<number>;
  /**
   * The feedback of `reach.kbId`, newest first (then by id, descending), at
   * most `limit` records from after `before`; passages titled as
   * {@link FeedbackRecord} says, judged by `reach` (the reader's).
   */
  listFeedback(reach: Reach, page: { limit: number; before?: FeedbackCursor }): Promise<FeedbackRecord[]>;
}
