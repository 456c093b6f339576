import type { Provenance } from '../../../protocol/query-terms.ts';

/**
 * The question log: each question a visitor asked and what became of it,
 * with the feedback that arrived for it. Its SQL is in
 * question-log-repository.ts.
 */

/** One question a visitor asked and what became of it (docs/operations.md "Question log"). Nothing identifies the visitor: no address, no token. */
export interface QuestionLogEntry {
  kbId: string;
  /** When the answer ended, epoch ms. */
  createdAt: number;
  question: string;
  provenance: Provenance;
  /** Documents cited, in citation order, each once. */
  citedDocIds: string[];
  /** From the request to the answer's end, ms. */
  latencyMs: number;
  /** The endpoint: the JSON answer or the event stream. */
  channel: 'json' | 'stream';
}

/** A logged question with the feedback that arrived for it. */
export interface QuestionLogRecord extends QuestionLogEntry {
  /** Increasing with each record of the store. */
  id: number;
  /** The visitor's rating of the answer, when one arrived. */
  rating?: 'up' | 'down';
  /** The reason given with a 👎. */
  ratingReason?: string;
  /** Problem reports on its sources. */
  problemReports: number;
}

/** Feedback to attach to the logged question it is about. */
export type QuestionFeedback = { kind: 'rating'; rating: 'up' | 'down'; reason?: string } | { kind: 'problem' };

/** The questions visitors asked, kept for the knowledge base's editors (docs/operations.md "Question log"). */
export interface QuestionLogRepository {
  /** Stores entries in one transaction; an entry of a knowledge base removed meanwhile is dropped. */
  addQuestionLogEntries(entries: readonly QuestionLogEntry[]): Promise<void>;
  /** The log of a knowledge base, newest first (then by id, descending), at most `limit` entries from after `before`, none before `since`. */
  listQuestionLog(kbId: string, page: { limit: number; before?: { createdAt: number; id: number }; since?: number }): Promise<QuestionLogRecord[]>;
  /**
   * Attaches feedback to the latest entry of the knowledge base with the same
   * question, asked at most `withinMs` before `at` (a rating replaces an
   * earlier one; a problem report is counted).
   *
   * @returns whether an entry was found
   */
  recordQuestionFeedback(kbId: string, question: string, at: number, withinMs: number, feedback: QuestionFeedback): Promise<boolean>;
  /** Removes the entries older than `before` (epoch ms) of every knowledge base; returns how many. */
  pruneQuestionLog(before: number): Promise<number>;
  /**
   * Questions and abstentions per UTC day from `since` (epoch ms), days with
   * none left out, oldest first.
   *
   * @returns each day as days since 1970-01-01 (UTC) with its counts
   */
  questionLogDays(kbId: string, since: number): Promise<{ day: number; questions: number; abstained: number }[]>;
}
