import { z } from 'zod';
import { MAX_COMMENT_CHARACTERS, MAX_QUESTION_CHARACTERS, MAX_TOP_K, PROBLEM_CODES, PROBLEM_REASONS, PROVENANCES, RATING_REASONS, STREAM_ERROR_CODES } from './query-terms.ts';

/**
 * The widget endpoints' wire types (docs/specification.md) as zod
 * schemas, for the server and the OpenAPI document: the server validates
 * request bodies with them (its refusals name the field, in these messages),
 * and `/openapi.json`'s widget schemas are generated from them
 * (server/http/openapi-document.ts). The widget never imports this module's
 * values: it takes the types inferred from these schemas from
 * protocol/query-protocol.ts (`import type`), and the value lists from the
 * zod-free protocol/query-terms.ts.
 */

/** `"a", "b" or "c"`, for messages. */
function listed(values: readonly string[]): string {
  const quoted = values.map((value) => `"${value}"`);
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** One of `values`, refused with a message naming the field and the values allowed. */
function oneOf<Value extends string>(field: string, values: readonly Value[]) {
  return z.enum(values as [Value, ...Value[]], { error: `Field "${field}" must be ${listed(values)}` });
}

const question = () =>
  z
    .string({ error: 'Field "question" must be a string' })
    .trim()
    .min(1, { error: 'Field "question" must not be empty' })
    .max(MAX_QUESTION_CHARACTERS, { error: `Field "question" must be at most ${MAX_QUESTION_CHARACTERS} characters` });

const topKMessage = `Field "top_k" must be an integer from 1 to ${MAX_TOP_K}`;

/** Body of both query endpoints (docs/specification.md "Query request"). Unknown fields are ignored. */
export const QueryRequestSchema = z
  .object({
    question: question().meta({ description: 'The question in plain language, 1..2000 characters after trimming' }),
    top_k: z
      .number({ error: topKMessage })
      .int({ error: topKMessage })
      .min(1, { error: topKMessage })
      .max(MAX_TOP_K, { error: topKMessage })
      .optional()
      .meta({ description: 'Passages to retrieve before answering; the service chooses when omitted' }),
    options: z.record(z.string(), z.unknown(), { error: 'Field "options" must be an object' }).optional().meta({ description: 'Reserved for per-call tuning' }),
    conversation_id: z.string({ error: 'Field "conversation_id" must be a string' }).optional().meta({ description: 'Accepted and ignored' }),
  })
  .meta({ id: 'QueryRequest', description: 'A question' });

/** Opaque locator of a cited passage (docs/specification.md "Citation"): passed back unchanged. */
export const SourceSpanSchema = z.object({ ref: z.string() }).meta({ id: 'SourceSpan', description: 'Opaque locator of a cited passage; pass back unchanged' });

/** What an answer was drawn from (docs/specification.md "Citation"). */
export const CitationSchema = z
  .object({
    index: z.number().int().meta({ description: 'The `[n]` marker used inside `answer`' }),
    doc_id: z.string(),
    kb_id: z.string(),
    source_span: SourceSpanSchema,
    text: z.string().optional().meta({ description: 'Quoted passage: only in streamed citations frames, only when quotable' }),
    title: z
      .string()
      .optional()
      .meta({ description: 'Readable place: document title and section headings, e.g. "File system › fs.stat()" (additive; omitted when empty)' }),
    url: z
      .string()
      .optional()
      .meta({ format: 'uri', description: "Page URL with the section's anchor, when the knowledge base has a site URL (additive; omitted otherwise)" }),
  })
  .meta({ id: 'Citation', description: 'A passage the answer cites' });

/** How an answer was produced (docs/specification.md "Query response"). */
export const ProvenanceSchema = z.enum(PROVENANCES);

/** Response of the JSON endpoint (docs/specification.md "Query response"). */
export const QueryResponseSchema = z
  .object({
    answer: z.string().meta({ description: 'The grounded answer with `[n]` markers, or the refusal message when abstained' }),
    citations: z.array(CitationSchema),
    provenance: ProvenanceSchema,
    abstained: z.boolean(),
  })
  .meta({ id: 'QueryResponse', description: 'The answer, or an abstention' });

/** A `source_span` as feedback carries it back: any object; whether the service issued it is checked by the route. */
const returnedSpan = (field: string) =>
  z.record(z.string(), z.unknown(), { error: `${field} must be a source_span object, as the citation carried it` }).meta({
    description: "A citation's `source_span`, unchanged",
  });

const feedbackCommon = {
  question: question().meta({ description: 'The question as asked' }),
  provenance: oneOf('provenance', PROVENANCES).meta({ description: "The answer's provenance, from its response or `done` frame" }),
  comment: z
    .string({ error: 'Field "comment" must be a string' })
    .trim()
    .max(MAX_COMMENT_CHARACTERS, { error: `Field "comment" must be at most ${MAX_COMMENT_CHARACTERS} characters` })
    .optional()
    .meta({ description: "The visitor's words; blank counts as absent" }),
};

/** A visitor's rating of one finished answer (`kind: "rating"`), the feedback endpoint's first body. */
export const RatingFeedbackSchema = z
  .object({
    kind: z.literal('rating'),
    ...feedbackCommon,
    rating: oneOf('rating', ['up', 'down'] as const),
    reason: oneOf('reason', RATING_REASONS).optional().meta({ description: 'Only with `rating: "down"`' }),
    source_spans: z
      .array(returnedSpan('Each of "source_spans"'), { error: `Field "source_spans" must be an array of the answer's source_span objects` })
      .max(MAX_TOP_K, { error: `Field "source_spans" must hold at most ${MAX_TOP_K} source spans` })
      .meta({ description: "The answer's citations' spans (empty for an abstention)" }),
  })
  .refine((body) => body.reason === undefined || body.rating === 'down', {
    error: 'Field "reason" is only for rating "down"',
    path: ['reason'],
  })
  .meta({ title: 'Rating of an answer' });

/** A visitor's report of a problem with one cited source (`kind: "problem"`), the feedback endpoint's second body. */
export const ProblemReportSchema = z
  .object({
    kind: z.literal('problem'),
    ...feedbackCommon,
    source_span: returnedSpan('Field "source_span"'),
    reason: oneOf('reason', PROBLEM_REASONS),
  })
  .meta({ title: 'Problem report on one source' });

/** Body of the feedback endpoint (docs/http-api.md "Feedback"): a rating of an answer, or a problem report on one source, told apart by `kind`. */
export const FeedbackRequestSchema = z
  .discriminatedUnion('kind', [RatingFeedbackSchema, ProblemReportSchema])
  .meta({ id: 'FeedbackRequest', description: 'A rating of an answer or a problem report on one source' });

/** RFC 9457 problem details body of every refused request. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().meta({ description: 'What was wrong, with the offending value' }),
    code: z.enum(PROBLEM_CODES),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

/** The schemas named in the OpenAPI document's `components.schemas`, by their `id`. */
export const QUERY_SCHEMAS = [QueryRequestSchema, SourceSpanSchema, CitationSchema, QueryResponseSchema, FeedbackRequestSchema, ProblemSchema] as const;

/** Stream frames (docs/http-api.md "Stream frames"): `type` always equals the SSE event name. */
export const TokenFrameSchema = z.object({ type: z.literal('token'), text: z.string() });
export const CitationsFrameSchema = z.object({ type: z.literal('citations'), citations: z.array(CitationSchema) });
export const AbstainFrameSchema = z.object({ type: z.literal('abstain'), answer: z.string() });
export const ResetFrameSchema = z.object({ type: z.literal('reset') });
export const SuggestionsFrameSchema = z.object({ type: z.literal('suggestions'), questions: z.array(z.string()) });
/**
 * `provenance`: how the answer was produced (as in the JSON response), so a
 * client can send it back with feedback. Optional and additive: the service
 * always sends it; clients of older services fall back to `abstained` or
 * `generated`.
 */
export const DoneFrameSchema = z.object({ type: z.literal('done'), abstained: z.boolean(), provenance: ProvenanceSchema.optional() });
export const ErrorFrameSchema = z.object({ type: z.literal('error'), code: z.enum(STREAM_ERROR_CODES), message: z.string() });
export const StreamFrameSchema = z.discriminatedUnion('type', [
  TokenFrameSchema,
  CitationsFrameSchema,
  AbstainFrameSchema,
  ResetFrameSchema,
  SuggestionsFrameSchema,
  DoneFrameSchema,
  ErrorFrameSchema,
]);
