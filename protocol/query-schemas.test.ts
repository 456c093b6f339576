import { describe, expect, expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import type { Citation, FeedbackRequest, Problem, QueryRequest, QueryResponse, SourceSpan } from './query-protocol.ts';
import { CitationSchema, FeedbackRequestSchema, ProblemSchema, QueryRequestSchema, QueryResponseSchema, SourceSpanSchema } from './query-schemas.ts';

/**
 * The widget reads the wire types of protocol/query-protocol.ts; the server
 * and the OpenAPI document use the schemas of query-schemas.ts. The type
 * checks below fail `npm run typecheck` the moment the two say different
 * things; the runtime checks show the schemas accept what the types describe.
 */

/** A feedback request with its `source_span`s as plain objects (the interface has no index signature). */
type SpansAsObjects<T> = T extends unknown
  ? { [K in keyof T]: T[K] extends SourceSpan ? Record<string, unknown> : T[K] extends readonly SourceSpan[] ? Record<string, unknown>[] : T[K] }
  : never;

describe('query schemas and the widget protocol types', () => {
  test('the response types are exactly the schemas\' output types', () => {
    expectTypeOf<z.output<typeof QueryResponseSchema>>().toEqualTypeOf<QueryResponse>();
    expectTypeOf<z.output<typeof CitationSchema>>().toEqualTypeOf<Citation>();
    expectTypeOf<z.output<typeof SourceSpanSchema>>().toEqualTypeOf<SourceSpan>();
    expectTypeOf<z.output<typeof ProblemSchema>>().toEqualTypeOf<Problem>();
  });

  test('the request types are exactly the schemas\' input types (feedback spans are any object until the route verifies them)', () => {
    expectTypeOf<z.input<typeof QueryRequestSchema>>().toEqualTypeOf<QueryRequest>();
    // Every FeedbackRequest is a valid input of the schema (assignability, checked by the compiler),
    // its spans taken as the plain objects the schema accepts.
    const asInput = (request: SpansAsObjects<FeedbackRequest>): z.input<typeof FeedbackRequestSchema> => request;
    expect(asInput({ kind: 'problem', question: 'q', provenance: 'generated', source_span: { ref: 'r' }, reason: 'unrelated' }).kind).toBe('problem');
  });

  test('a response and a feedback request as the widget builds them: accepted as they are', () => {
    const response: QueryResponse = {
      answer: 'Use `fs.stat()` [1].',
      citations: [{ index: 1, doc_id: 'fs.md', kb_id: 'node-docs', source_span: { ref: 'abc' }, title: 'File system › fs.stat()' }],
      provenance: 'generated',
      abstained: false,
    };
    const feedback: FeedbackRequest = { kind: 'rating', question: 'How big is a file?', provenance: 'generated', rating: 'down', reason: 'incorrect', source_spans: [{ ref: 'abc' }] };

    expect(QueryResponseSchema.parse(response)).toEqual(response);
    expect(FeedbackRequestSchema.parse(feedback)).toEqual(feedback);
  });
});
