/**
 * Types that cross the wire between the query service and its clients
 * (docs/specification.md).
 *
 * Types only: the widget imports them with `import type`, so no validator or
 * server code reaches its bundle. Optional fields are omitted, never `null`.
 */

/** Body of both query endpoints (docs/specification.md "Query request"). */
export interface QueryRequest {
  /** The question in plain language, 1..2000 characters after trimming. */
  question: string;
  /** Passages to retrieve before answering, 1..20; the service chooses when omitted. */
  top_k?: number;
  /** Reserved for per-call tuning; unknown keys are ignored. */
  options?: Record<string, unknown>;
  /** Accepted and ignored: the endpoints hold no conversation. */
  conversation_id?: string;
}

/** How an answer was produced (docs/specification.md "Query response"). */
export type Provenance = 'generated' | 'abstained' | 'qa_shortcut';

/**
 * Opaque locator of a cited passage (docs/specification.md "Citation"). Clients must not parse
 * `ref`; they pass the object back unchanged when reporting a problem.
 */
export interface SourceSpan {
  ref: string;
}

/** What an answer was drawn from (docs/specification.md "Citation"). */
export interface Citation {
  /** The `[n]` marker used inside the answer text. */
  index: number;
  /** Stable, readable document identifier, e.g. `fs.md`. */
  doc_id: string;
  /** Knowledge base the passage belongs to. */
  kb_id: string;
  source_span: SourceSpan;
  /** The quoted passage: only in streamed `citations` frames, only when quotable. */
  text?: string;
  /**
   * Readable name of the passage's place: the document title and its section
   * headings, joined by ` › `, e.g. `File system › fs.stat()`. Optional and
   * additive: omitted when the service has none, never empty or `null`.
   */
  title?: string;
  /**
   * Absolute URL of the passage's page, with the section anchor, e.g.
   * `https://docs.example.com/fs#fs-stat`, when the knowledge base has a site
   * URL. Optional and additive like `title`.
   */
  url?: string;
}

/** Response of the JSON endpoint (docs/specification.md "Query response"). */
export interface QueryResponse {
  /** The grounded answer with `[n]` markers, or the refusal message when abstained. */
  answer: string;
  citations: Citation[];
  provenance: Provenance;
  abstained: boolean;
}

/** Stream frames (docs/specification.md "Stream frames"): `type` always equals the SSE event name. */
export interface TokenFrame {
  type: 'token';
  text: string;
}
export interface CitationsFrame {
  type: 'citations';
  citations: Citation[];
}
export interface AbstainFrame {
  type: 'abstain';
  answer: string;
}
export interface ResetFrame {
  type: 'reset';
}
export interface SuggestionsFrame {
  type: 'suggestions';
  questions: string[];
}
export interface DoneFrame {
  type: 'done';
  abstained: boolean;
  /**
   * How the answer was produced (as in the JSON response), so a client can
   * send it back with feedback. Optional and additive: the
   * service always sends it; clients of older services fall back to
   * `abstained` or `generated`.
   */
  provenance?: Provenance;
}
/** Codes of a stream `error` frame (docs/specification.md "Stream frames"). */
export type StreamErrorCode = 'generation_failed' | 'upstream_unavailable' | 'timeout' | 'internal';
export interface ErrorFrame {
  type: 'error';
  code: StreamErrorCode;
  message: string;
}

export type StreamFrame =
  | TokenFrame
  | CitationsFrame
  | AbstainFrame
  | ResetFrame
  | SuggestionsFrame
  | DoneFrame
  | ErrorFrame;

/**
 * Why a visitor rated an answer down (docs/http-api.md "Feedback and problem
 * reports"): it is wrong, it answers
 * another question, it is out of date, or something else.
 */
export type RatingReason = 'incorrect' | 'not_what_i_asked' | 'out_of_date' | 'other';

/**
 * What is wrong with one cited source: its content is wrong or out of date,
 * its link is broken, it does not back the answer it is cited for, or
 * something else.
 */
export type ProblemReason = 'incorrect' | 'out_of_date' | 'broken_link' | 'unrelated' | 'other';

/**
 * A visitor's rating of one finished answer (`kind: "rating"`), body of
 * `POST /kb-api/api/v1/kb/{kbId}/widget/feedback`. The service is
 * stateless, so the body carries the question and the answer's provenance
 * and `source_span`s as the answer had them.
 */
export interface RatingFeedback {
  kind: 'rating';
  /** The question as asked, 1..2000 characters after trimming. */
  question: string;
  /** The answer's provenance, as in its response or `done` frame. */
  provenance: Provenance;
  rating: 'up' | 'down';
  /** Only with `rating: "down"`. */
  reason?: RatingReason;
  /** The visitor's words, at most 1,000 characters after trimming; blank counts as absent. */
  comment?: string;
  /** The `source_span` of each of the answer's citations, unchanged, at most 20 (empty for an abstention). */
  source_spans: SourceSpan[];
}

/** A visitor's report of a problem with one cited source (`kind: "problem"`), same endpoint. */
export interface ProblemReport {
  kind: 'problem';
  /** The question the source was cited for, 1..2000 characters after trimming. */
  question: string;
  /** The provenance of the answer that cited it. */
  provenance: Provenance;
  /** The citation's `source_span`, unchanged. */
  source_span: SourceSpan;
  reason: ProblemReason;
  /** At most 1,000 characters after trimming; blank counts as absent. */
  comment?: string;
}

/** Body of the feedback endpoint: one schema, told apart by `kind`. Answered 204. */
export type FeedbackRequest = RatingFeedback | ProblemReport;

/**
 * Codes of refused requests (docs/http-api.md "Refused requests"). The console API
 * adds 401 `unauthenticated` (no valid session), 403 `forbidden` (signed in
 * but the role does not allow it) and 403 `cross_site_request` (a
 * state-changing request from another origin), and 409 `conflict` (the
 * change contradicts what exists, e.g. inviting a member) and 404/410
 * `invalid_link` (a set-password link unknown, used, replaced or expired).
 */
export type ProblemCode =
  | 'invalid_request'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'missing_token'
  | 'invalid_token'
  | 'token_expired'
  | 'token_revoked'
  | 'origin_not_allowed'
  | 'kb_mismatch'
  | 'unauthenticated'
  | 'forbidden'
  | 'cross_site_request'
  | 'not_found'
  | 'conflict'
  | 'invalid_link'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

/** RFC 9457 problem details body of every refused request. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
}
