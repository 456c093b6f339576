import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Citation, StreamFrame } from '../../protocol/query-protocol.ts';
import { encodeFrame, HEARTBEAT_COMMENT } from './sse-frame.ts';

/** Everything a client parsed from a stream. */
interface Received {
  events: EventSourceMessage[];
  comments: string[];
  errors: ParseError[];
}

/** What an EventSource-conformant parser reads from text arriving in pieces. */
function parse(pieces: readonly string[]): Received {
  const received: Received = { events: [], comments: [], errors: [] };
  const parser = createParser({
    onEvent: (event) => received.events.push(event),
    onComment: (comment) => received.comments.push(comment),
    onError: (error) => received.errors.push(error),
  });
  for (const piece of pieces) parser.feed(piece);
  return received;
}

describe('encodeFrame', () => {
  it('token frame with a newline in its text encodes as one event line and one data line', () => {
    // Act
    const encoded = encodeFrame({ type: 'token', text: 'a\nb\r\n' });

    // Assert
    expect(encoded).toBe('event: token\ndata: {"type":"token","text":"a\\nb\\r\\n"}\n\n');
  });

  it('any frame sequence split at any points parses back to the same frames with event equal to type', () => {
    // Arrange
    const piece = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('\n', '\r', '\r\n', '\n\n', 'data:', 'data: {}', ':', ': ping', 'event: done', '\u2028', '\u0000', '"\\'),
    );
    const text = fc.array(piece, { maxLength: 4 }).map((pieces) => pieces.join(''));
    const citation: fc.Arbitrary<Citation> = fc.record(
      { index: fc.nat(), doc_id: text, kb_id: text, source_span: fc.record({ ref: text }), text },
      { requiredKeys: ['index', 'doc_id', 'kb_id', 'source_span'] },
    );
    const frame: fc.Arbitrary<StreamFrame> = fc.oneof(
      fc.record({ type: fc.constant('token' as const), text }),
      fc.record({ type: fc.constant('citations' as const), citations: fc.array(citation, { maxLength: 3 }) }),
      fc.record({ type: fc.constant('abstain' as const), answer: text }),
      fc.record({ type: fc.constant('reset' as const) }),
      fc.record({ type: fc.constant('suggestions' as const), questions: fc.array(text, { maxLength: 3 }) }),
      fc.record({ type: fc.constant('done' as const), abstained: fc.boolean() }),
      fc.record({
        type: fc.constant('error' as const),
        code: fc.constantFrom('generation_failed', 'upstream_unavailable', 'timeout', 'internal'),
        message: text,
      }),
    );

    fc.assert(
      fc.property(fc.array(frame, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), (frames, cuts) => {
        // Arrange
        const encoded = frames.map(encodeFrame).join('');
        const points = [...new Set(cuts.map((cut) => cut % (encoded.length + 1)))].sort((a, b) => a - b);
        const pieces = [...points, encoded.length].map((point, position, ends) => encoded.slice(position === 0 ? 0 : ends[position - 1], point));

        // Act
        const received = parse(pieces);

        // Assert
        expect(received.events.map((event) => event.event)).toEqual(frames.map((sent) => sent.type));
        expect(received.events.map((event) => JSON.parse(event.data) as unknown)).toEqual(frames);
        expect(received.comments).toEqual([]);
        expect(received.errors).toEqual([]);
      }),
    );
  });
});

describe('HEARTBEAT_COMMENT', () => {
  it('heartbeat comment between frames is read by a client as a comment, not an event', () => {
    // Act
    const received = parse([encodeFrame({ type: 'token', text: 'a' }), HEARTBEAT_COMMENT, encodeFrame({ type: 'done', abstained: false })]);

    // Assert
    expect(received.comments).toEqual(['ping']);
    expect(received.events.map((event) => event.event)).toEqual(['token', 'done']);
    expect(received.errors).toEqual([]);
  });
});
