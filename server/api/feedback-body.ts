import { z } from 'zod';
import { problem } from '../http/problem.ts';
import { MAX_QUESTION_CHARACTERS, MAX_TOP_K, shownValue } from './query-body.ts';
import type { ProblemReason, ProblemReport, Provenance, RatingFeedback, RatingReason } from '../../protocol/query-protocol.ts';

/**
 * Validation of the feedback endpoint's body (protocol/query-protocol.ts
 * `FeedbackRequest`, DESIGN.md "Wire decisions"): `kind` tells a rating of
 * an answer from a problem report on one source; `question` as for the
 * query endpoints; `comment` at most 1,000 characters after trimming (blank
 * = absent); a rating carries at most {@link MAX_TOP_K} source spans, as
 * many as an answer can cite. Unknown fields are ignored. The spans are only
 * shaped here; whether this service issued them, and to whom, is checked by
 * the route (feedback-routes.ts).
 */

/** Longest comment, in characters after trimming. */
export const MAX_COMMENT_CHARACTERS = 1000;

export const RATING_REASONS: readonly RatingReason[] = ['incorrect', 'not_what_i_asked', 'out_of_date', 'other'];
export const PROBLEM_REASONS: readonly ProblemReason[] = ['incorrect', 'out_of_date', 'broken_link', 'unrelated', 'other'];
const PROVENANCES: readonly Provenance[] = ['generated', 'abstained', 'qa_shortcut'];

/** `"a", "b" or "c"`, for messages. */
function listed(values: readonly string[]): string {
  const quoted = values.map((value) => `"${value}"`);
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function oneOf<Value extends string>(field: string, values: readonly Value[]) {
  return z.enum(values as [Value, ...Value[]], { error: `Field "${field}" must be ${listed(values)}` });
}

const sourceSpan = (field: string) =>
  z.record(z.string(), z.unknown(), { error: `${field} must be a source_span object, as the citation carried it` });

const common = {
  question: z
    .string({ error: 'Field "question" must be a string' })
    .trim()
    .min(1, { error: 'Field "question" must not be empty' })
    .max(MAX_QUESTION_CHARACTERS, { error: `Field "question" must be at most ${MAX_QUESTION_CHARACTERS} characters` }),
  provenance: oneOf('provenance', PROVENANCES),
  comment: z
    .string({ error: 'Field "comment" must be a string' })
    .trim()
    .max(MAX_COMMENT_CHARACTERS, { error: `Field "comment" must be at most ${MAX_COMMENT_CHARACTERS} characters` })
    .optional(),
};

const feedbackSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('rating'),
      ...common,
      rating: oneOf('rating', ['up', 'down'] as const),
      reason: oneOf('reason', RATING_REASONS).optional(),
      source_spans: z
        .array(sourceSpan('Each of "source_spans"'), { error: `Field "source_spans" must be an array of the answer's source_span objects` })
        .max(MAX_TOP_K, { error: `Field "source_spans" must hold at most ${MAX_TOP_K} source spans` }),
    })
    .refine((body) => body.reason === undefined || body.rating === 'down', {
      error: 'Field "reason" is only for rating "down"',
      path: ['reason'],
    }),
  z.object({
    kind: z.literal('problem'),
    ...common,
    source_span: sourceSpan('Field "source_span"'),
    reason: oneOf('reason', PROBLEM_REASONS),
  }),
]);

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
  const parsed = feedbackSchema.safeParse(body);
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
