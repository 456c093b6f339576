import type { z } from 'zod';
import type {
  AbstainFrameSchema,
  CitationSchema,
  CitationsFrameSchema,
  DoneFrameSchema,
  ErrorFrameSchema,
  FeedbackRequestSchema,
  ProblemReportSchema,
  ProblemSchema,
  QueryRequestSchema,
  QueryResponseSchema,
  RatingFeedbackSchema,
  ResetFrameSchema,
  SourceSpanSchema,
  StreamFrameSchema,
  SuggestionsFrameSchema,
  TokenFrameSchema,
} from './query-schemas.ts';

/**
 * Types that cross the wire between the query service and its clients
 * (docs/http-api.md), inferred from the zod schemas of
 * protocol/query-schemas.ts: each concept is written once, as a schema.
 *
 * Types only, imported with `import type`: no validator or server code
 * reaches the widget's bundle. The value lists (provenances, reasons, codes)
 * are in protocol/query-terms.ts. Optional fields are omitted, never `null`.
 * Requests are the schemas' input types (what a client sends), answers their
 * output types.
 */

export type { ProblemCode, ProblemReason, Provenance, RatingReason, StreamErrorCode } from './query-terms.ts';

/** Body of both query endpoints (docs/http-api.md "Query request"). */
export type QueryRequest = z.input<typeof QueryRequestSchema>;

/**
 * Opaque locator of a cited passage. Clients must not parse `ref`; they pass
 * the object back unchanged when reporting a problem.
 */
export type SourceSpan = z.infer<typeof SourceSpanSchema>;

/** What an answer was drawn from: the `[n]` marker's `index`, the document, its readable `title` and `url`. */
export type Citation = z.infer<typeof CitationSchema>;

/** Response of the JSON endpoint. */
export type QueryResponse = z.infer<typeof QueryResponseSchema>;

/** Stream frames: `type` always equals the SSE event name. */
export type TokenFrame = z.infer<typeof TokenFrameSchema>;
export type CitationsFrame = z.infer<typeof CitationsFrameSchema>;
export type AbstainFrame = z.infer<typeof AbstainFrameSchema>;
export type ResetFrame = z.infer<typeof ResetFrameSchema>;
export type SuggestionsFrame = z.infer<typeof SuggestionsFrameSchema>;
export type DoneFrame = z.infer<typeof DoneFrameSchema>;
export type ErrorFrame = z.infer<typeof ErrorFrameSchema>;
export type StreamFrame = z.infer<typeof StreamFrameSchema>;

/**
 * A visitor's rating of one finished answer (`kind: "rating"`), body of
 * `POST /kb-api/api/v1/kb/{kbId}/widget/feedback`. The service is stateless,
 * so the body carries the question and the answer's provenance and
 * `source_span`s as the answer had them.
 */
export type RatingFeedback = z.input<typeof RatingFeedbackSchema>;

/** A visitor's report of a problem with one cited source (`kind: "problem"`), same endpoint. */
export type ProblemReport = z.input<typeof ProblemReportSchema>;

/** Body of the feedback endpoint: one schema, told apart by `kind`. Answered 204. */
export type FeedbackRequest = z.input<typeof FeedbackRequestSchema>;

/** RFC 9457 problem details body of every refused request. */
export type Problem = z.infer<typeof ProblemSchema>;
