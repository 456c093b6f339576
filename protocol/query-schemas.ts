import { z } from 'zod';
import type { ProblemReason, Provenance, RatingReason } from './query-protocol.ts';

/**
 * The widget endpoints' wire types (docs/specification.md) as zod
 * schemas, for the server and the OpenAPI document: the server validates
 * request bodies with them (its refusals name the field, in these messages),
 * and `/openapi.json`'s widget schemas are generated from them
 * (server/console-api/openapi.ts). The widget never imports this module: it
 * takes the same types from protocol/query-protocol.ts (`import type`), and
 * query-schemas.test.ts checks at compile time that both say the same.
 */

/** Longest question, in characters after trimming. */
export const MAX_QUESTION_CHARACTERS = 2000;
/** Largest `top_k` a request may ask for, and most source spans a rating may carry (as many as an answer can cite). */
export const MAX_TOP_K = 20;
/** Longest feedback comment, in characters after trimming. */
export const MAX_COMMENT_CHARACTERS = 1000;

export const PROVENANCES = ['generated', 'abstained', 'qa_shortcut'] as const satisfies readonly Provenance[];
export const RATING_REASONS = ['incorrect', 'not_what_i_asked', 'out_of_date', 'other'] as const satisfies readonly RatingReason[];
export const PROBLEM_REASONS = ['incorrect', 'out_of_date', 'broken_link', 'unrelated', 'other'] as const satisfies readonly ProblemReason[];

/** Codes of refused requests (docs/http-api.md "Refused requests"), with the console's. */
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

/** Body of the feedback endpoint (docs/specification.md "Feedback"): a rating of an answer, or a problem report on one source, told apart by `kind`. */
export const FeedbackRequestSchema = z
  .discriminatedUnion('kind', [
    z
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
      .meta({ title: 'Rating of an answer' }),
    z
      .object({
        kind: z.literal('problem'),
        ...feedbackCommon,
        source_span: returnedSpan('Field "source_span"'),
        reason: oneOf('reason', PROBLEM_REASONS),
      })
      .meta({ title: 'Problem report on one source' }),
  ])
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
