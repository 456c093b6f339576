import { describe, expect, test } from 'vitest';
import type { FeedbackRequest, QueryResponse, StreamFrame } from './query-protocol.ts';
import { FeedbackRequestSchema, QueryResponseSchema, StreamFrameSchema } from './query-schemas.ts';

/**
 * The widget's wire types are inferred from these schemas
 * (protocol/query-protocol.ts), so they cannot disagree at compile time; the
 * checks below show the schemas accept, unchanged, what the widget builds
 * and what the server streams.
 */
describe('query schemas', () => {
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

  test('stream frames of every type: accepted as they are; an unknown error code is refused', () => {
    const frames: StreamFrame[] = [
      { type: 'token', text: 'Use ' },
      { type: 'citations', citations: [{ index: 1, doc_id: 'fs.md', kb_id: 'node-docs', source_span: { ref: 'abc' }, text: 'fs.stat()' }] },
      { type: 'abstain', answer: 'I could not find that.' },
      { type: 'reset' },
      { type: 'suggestions', questions: ['How big is a file?'] },
      { type: 'done', abstained: false, provenance: 'qa_shortcut' },
      { type: 'error', code: 'timeout', message: 'The answer took too long' },
    ];

    expect(frames.map((frame) => StreamFrameSchema.parse(frame))).toEqual(frames);
    expect(StreamFrameSchema.safeParse({ type: 'error', code: 'oops', message: 'x' }).success).toBe(false);
  });
});
