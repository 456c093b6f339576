import { problem } from '../http/problem.ts';
import { shownValue } from './query-body.ts';
import type { ProblemReport, RatingFeedback } from '../../protocol/query-protocol.ts';
import { FeedbackRequestSchema } from '../../protocol/query-schemas.ts';
import { MAX_COMMENT_CHARACTERS, PROBLEM_REASONS, RATING_REASONS } from '../../protocol/query-terms.ts';

/**
 * Validation of the feedback endpoint's body (protocol/query-protocol.ts
 * `FeedbackRequest`, docs/specification.md "Feedback"): `kind` tells a rating of
 * an answer from a problem report on one source; `question` as for the
 * query endpoints; `comment` at most 1,000 characters after trimming (blank
 * = absent); a rating carries at most `MAX_TOP_K` source spans, as
 * many as an answer can cite. Unknown fields are ignored. The spans are only
 * shaped here; whether this service issued them, and to whom, is checked by
 * the route (feedback-routes.ts).
 */

export { MAX_COMMENT_CHARACTERS, PROBLEM_REASONS, RATING_REASONS };

/**
 * A validated rating or problem report, as on the wire but with its spans
 * (a problem report's one as `sourceSpans[0]`) still to be verified; question
 * and comment trimmed, a blank comment absent.
 */
export type ValidFeedback = (Omit<RatingFeedback, 'source_spans'> | Omit<ProblemReport, 'source_span'>) & { sourceSpans: unknown[] };

/**
 * @param body the parsed JSON body (any value)
 * @returns the feedback (see {@link ValidFeedback})
 * @throws a 400 `invalid_request` problem saying which field was wrong and, for a wrong value, what it was
 */
export function parseFeedbackBody(body: unknown): ValidFeedback {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw problem(400, 'invalid_request', 'The request body must be a JSON object with a "kind" field');
  }
  const fields = body as Record<string, unknown>;
  if (fields.kind !== 'rating' && fields.kind !== 'problem') {
    throw problem(400, 'invalid_request', `Field "kind" must be "rating" or "problem"${shownValue(fields.kind)}`);
  }
  const parsed = FeedbackRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'body');
    if (fields[field] === undefined) throw problem(400, 'invalid_request', `Field "${field}" is required`);
    // The wrong value itself (one span of a list), but never the visitor's own words.
    const value = issue?.path.reduce<unknown>((parent, key) => (parent as Record<PropertyKey, unknown>)[key], body);
    const shown = field === 'question' || field === 'comment' ? '' : shownValue(value);
    throw problem(400, 'invalid_request', `${issue?.message ?? 'The request body is invalid'}${shown}`);
  }
  const { data } = parsed;
  const comment = data.comment ? { comment: data.comment } : {};
  if (data.kind === 'problem') {
    return { kind: 'problem', question: data.question, provenance: data.provenance, reason: data.reason, ...comment, sourceSpans: [data.source_span] };
  }
  return {
    kind: 'rating',
    question: data.question,
    provenance: data.provenance,
    rating: data.rating,
    ...(data.reason === undefined ? {} : { reason: data.reason }),
    ...comment,
    sourceSpans: data.source_spans,
  };
}
