/**
 * The widget endpoints' vocabulary as values (docs/http-api.md), shared by
 * the server, the wire schemas (protocol/query-schemas.ts), the widget and
 * the console. Values only, no validator: the browser code imports this
 * without pulling zod into its bundle.
 */

/** Longest question, in characters after trimming. */
export const MAX_QUESTION_CHARACTERS = 2000;
/** Largest `top_k` a request may ask for, and most source spans a rating may carry (as many as an answer can cite). */
export const MAX_TOP_K = 20;
/** Longest feedback comment, in characters after trimming. */
export const MAX_COMMENT_CHARACTERS = 1000;

/** How an answer was produced: generated from passages, refused, or a curated answer. */
export const PROVENANCES = ['generated', 'abstained', 'qa_shortcut'] as const;

/** One of {@link PROVENANCES}. */
export type Provenance = (typeof PROVENANCES)[number];

/**
 * Why a visitor rated an answer down (docs/http-api.md "Feedback and problem
 * reports"): it is wrong, it answers another question, it is out of date, or
 * something else.
 */
export const RATING_REASONS = ['incorrect', 'not_what_i_asked', 'out_of_date', 'other'] as const;

/** One of {@link RATING_REASONS}. */
export type RatingReason = (typeof RATING_REASONS)[number];

/**
 * What is wrong with one cited source: its content is wrong or out of date,
 * its link is broken, it does not back the answer it is cited for, or
 * something else.
 */
export const PROBLEM_REASONS = ['incorrect', 'out_of_date', 'broken_link', 'unrelated', 'other'] as const;

/** One of {@link PROBLEM_REASONS}. */
export type ProblemReason = (typeof PROBLEM_REASONS)[number];

/** Codes of a stream `error` frame (docs/http-api.md "Stream frames"). */
export const STREAM_ERROR_CODES = ['generation_failed', 'upstream_unavailable', 'timeout', 'internal'] as const;

/** One of {@link STREAM_ERROR_CODES}. */
export type StreamErrorCode = (typeof STREAM_ERROR_CODES)[number];

/**
 * Codes of refused requests (docs/http-api.md "Refused requests"). The console API
 * adds 401 `unauthenticated` (no valid session), 403 `forbidden` (signed in
 * but the role does not allow it) and 403 `cross_site_request` (a
 * state-changing request from another origin), and 409 `conflict` (the
 * change contradicts what exists, e.g. inviting a member) and 404/410
 * `invalid_link` (a set-password link unknown, used, replaced or expired).
 */
export const PROBLEM_CODES = [
  'invalid_request',
  'payload_too_large',
  'unsupported_media_type',
  'missing_token',
  'invalid_token',
  'token_expired',
  'token_revoked',
  'origin_not_allowed',
  'kb_mismatch',
  'unauthenticated',
  'forbidden',
  'cross_site_request',
  'not_found',
  'conflict',
  'invalid_link',
  'rate_limited',
  'internal',
  'unavailable',
] as const;

/** One of {@link PROBLEM_CODES}. */
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** Separator between the parts of a citation title: document title, then section headings ("File system › fs.stat()"). */
export const TITLE_SEPARATOR = ' › ';
