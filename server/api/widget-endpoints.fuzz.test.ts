import { Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Problem, QueryResponse, SourceSpan } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * A fuzz test of the widget endpoints (docs/http-api.md "Refused requests"; the
 * feedback endpoint too, with spans genuine, altered and forged): 2,000 random requests a
 * run, bodies and headers together - deep nesting, invalid UTF-8, duplicate
 * keys and headers, every content encoding (honest or lying), charsets,
 * sizes around the limit, tokens well- and ill-formed, origins allowed and
 * not. Whatever arrives: never a 5xx, every refusal an RFC 9457
 * problem+json body whose status matches, never an event stream for a
 * refused request, and every accepted stream ends in exactly one `done`.
 */

const ALLOWED_ORIGIN = 'http://localhost:5173';
let fixture: WidgetFixture;
let token: string;
let agent: Agent;
/** The source spans of a real answer, for feedback bodies. */
let genuineSpans: SourceSpan[];

beforeAll(async () => {
  fixture = await createWidgetFixture({ rateLimitPerIp: 1_000_000, rateLimitPerToken: 1_000_000 });
  ({ token } = await fixture.issue({ allowedOrigins: [ALLOWED_ORIGIN] }));
  agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const answer = (await (await fixture.post('query', { question: 'How do I create a directory with its parents?' }, { token })).json()) as QueryResponse;
  genuineSpans = answer.citations.map((citation) => citation.source_span);
});
afterAll(async () => {
  agent.destroy();
  await fixture.close();
});

/** JSON text with duplicate keys, which `JSON.stringify` cannot produce. */
const duplicateKeys = fc
  .tuple(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 2 }))
  .map(([question, other]) => `{"question":${JSON.stringify(question)},"top_k":3,"question":${JSON.stringify(other)},"top_k":"x"}`);

/** Nesting from harmless to far past the limit, in any field. */
const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 6_000 }), fc.constantFrom('top_k', 'options', 'question', 'conversation_id', 'extra'), fc.constantFrom('[', '{"a":'))
  .map(([depth, field, opener]) => {
    const closer = opener === '[' ? ']' : '}';
    return `{"question":"How do I create a directory?","${field}":${opener.repeat(depth)}${opener === '[' ? '' : '1'}${closer.repeat(depth)}}`;
  });

const questions = fc.constantFrom(
  'How do I create a directory with its parents?',
  'How do I read a file?',
  'What is the capital of Peru?',
  '',
  '   ',
  'x'.repeat(2_001),
);

/** A valid query body. */
const VALID_QUERY = '{"question":"How do I create a directory with its parents?"}';

/** Bodies that are valid requests, or nearly. */
const requestLike = fc
  .record(
    {
      question: fc.oneof(questions, fc.string({ maxLength: 80 }), fc.jsonValue({ maxDepth: 2 })),
      top_k: fc.oneof(fc.integer({ min: -3, max: 25 }), fc.double(), fc.jsonValue({ maxDepth: 1 })),
      options: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })), fc.jsonValue({ maxDepth: 2 })),
      conversation_id: fc.jsonValue({ maxDepth: 1 }),
      query: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));

/** A span as a client may send it back: genuine (of an answer of this run), altered, forged, or not a span at all. */
const spanLike = (genuine: readonly SourceSpan[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...genuine) },
    fc.constantFrom(...genuine).map((span) => ({ ref: `${span.ref.slice(0, -2)}xx` })),
    fc.record({ ref: fc.string({ maxLength: 60 }) }),
    fc.jsonValue({ maxDepth: 2 }),
  );

/** Feedback bodies that are valid, or nearly: every field may be missing, of another kind, or out of bounds. */
const feedbackLike = (genuine: readonly SourceSpan[]) =>
  fc
    .record(
      {
        kind: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('rating', 'problem') }, fc.jsonValue({ maxDepth: 1 })),
        question: fc.oneof({ weight: 3, arbitrary: questions }, fc.jsonValue({ maxDepth: 1 })),
        provenance: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('generated', 'abstained', 'qa_shortcut') }, fc.string({ maxLength: 12 })),
        rating: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('up', 'down') }, fc.jsonValue({ maxDepth: 1 })),
        reason: fc.constantFrom('incorrect', 'not_what_i_asked', 'out_of_date', 'broken_link', 'unrelated', 'other', '', 7),
        comment: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('c'.repeat(1_001)), fc.jsonValue({ maxDepth: 1 })),
        source_spans: fc.oneof({ weight: 3, arbitrary: fc.array(spanLike(genuine), { maxLength: 22 }) }, fc.jsonValue({ maxDepth: 2 })),
        source_span: spanLike(genuine),
      },
      { requiredKeys: [] },
    )
    .map((body) => JSON.stringify(body));

/**
 * Text bodies as bytes, shaped for an endpoint (`shaped` nearly valid, `valid` valid) or not at all, some
 * corrupted into invalid UTF-8, with a byte-order mark, truncated, or near the 16 KiB limit.
 */
const bodyBytes = (shaped: fc.Arbitrary<string>, valid: string) => fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: shaped },
      { weight: 2, arbitrary: fc.constant(valid) },
      duplicateKeys,
      deepNesting,
      fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 60 }),
      fc.integer({ min: 16_300, max: 16_500 }).map((size) => `{"question":"q","pad":"${'a'.repeat(size - 23)}"}`),
    ),
    fc.constantFrom('none', 'invalid-utf8', 'bom', 'truncate', 'nul'),
    fc.nat(),
  )
  .map(([text, corruption, position]) => {
    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.length === 0 ? 0 : position % bytes.length;
    switch (corruption) {
      case 'invalid-utf8':
        return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80]), bytes.subarray(at)]);
      case 'bom':
        return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      case 'truncate':
        return bytes.subarray(0, at);
      case 'nul':
        return Buffer.concat([bytes.subarray(0, at), Buffer.from([0]), bytes.subarray(at)]);
      default:
        return bytes;
    }
  });

/** A content encoding, applied honestly or claimed falsely. */
const encoding = fc.constantFrom('none', 'gzip', 'deflate', 'br', 'identity', 'lying-gzip', 'lying-br', 'compress', 'gzip, gzip', 'GZIP');

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'text/plain',
  'application/x-www-form-urlencoded',
  'none',
  'application/json, text/plain',
);

/** How the token is presented: correctly, malformed, twice, in both headers, or not at all. */
const credentials = fc.constantFrom('bearer', 'widget-header', 'bearer-junk', 'bearer-twice', 'both-headers', 'basic', 'none', 'bearer-lowercase', 'unknown-token', 'empty');

const origin = fc.constantFrom('none', ALLOWED_ORIGIN, 'https://evil.example', 'null', 'not a url', 'http://localhost:5173.evil.example', 'HTTP://LOCALHOST:5173');

function headersFor(
  credential: string,
  type: string,
  encoded: string,
  originValue: string,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  switch (credential) {
    case 'bearer':
      headers.Authorization = `Bearer ${token}`;
      break;
    case 'bearer-lowercase':
      headers.Authorization = `bearer ${token}`;
      break;
    case 'widget-header':
      headers['X-Widget-Token'] = token;
      break;
    case 'bearer-junk':
      headers.Authorization = `Bearer ${token} junk`;
      break;
    case 'bearer-twice':
      headers.Authorization = [`Bearer ${token}`, 'Bearer kbw_other'];
      break;
    case 'both-headers':
      headers.Authorization = `Bearer ${token}`;
      headers['X-Widget-Token'] = 'kbw_other';
      break;
    case 'basic':
      headers.Authorization = 'Basic dXNlcjpwYXNz';
      break;
    case 'unknown-token':
      headers.Authorization = 'Bearer kbw_unknown0123456789';
      break;
    case 'empty':
      headers.Authorization = '';
      break;
  }
  if (type !== 'none') headers['Content-Type'] = type;
  if (encoded === 'lying-gzip') headers['Content-Encoding'] = 'gzip';
  else if (encoded === 'lying-br') headers['Content-Encoding'] = 'br';
  else if (encoded !== 'none') headers['Content-Encoding'] = encoded;
  if (originValue !== 'none') headers.Origin = originValue;
  return headers;
}

function encode(bytes: Buffer, encoded: string): Buffer {
  switch (encoded) {
    case 'gzip':
    case 'GZIP':
      return gzipSync(bytes);
    case 'gzip, gzip':
      return gzipSync(gzipSync(bytes));
    case 'deflate':
      return deflateSync(bytes);
    case 'br':
      return brotliCompressSync(bytes);
    default:
      return bytes;
  }
}

interface Received {
  status: number;
  contentType: string;
  body: string;
}

function send(path: string, headers: OutgoingHttpHeaders, body: Buffer): Promise<Received> {
  const url = new URL(`${fixture.baseUrl}/kb-api/api/v1/kb/docs/widget/${path}`);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { ...headers, 'Content-Length': body.length } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The frames of an event-stream body, in order. */
function framesOf(text: string): string[] {
  const frames: string[] = [];
  const parser = createParser({ onEvent: (event) => frames.push(event.event ?? 'message') });
  parser.feed(text);
  return frames;
}

test('2,000 random requests to the three widget endpoints: never a 5xx, every refusal problem+json, no stream for a refused request, every stream ends in one done, feedback accepted only as an empty 204', async () => {
  const seen = new Map<number, number>();
  const validFeedback = JSON.stringify({ kind: 'rating', question: 'How do I create a directory?', provenance: 'generated', rating: 'down', source_spans: genuineSpans });
  await fc.assert(
    fc.asyncProperty(
      fc
        .constantFrom('query', 'query/stream', 'feedback')
        .chain((path) => fc.tuple(fc.constant(path), path === 'feedback' ? bodyBytes(feedbackLike(genuineSpans), validFeedback) : bodyBytes(requestLike, VALID_QUERY))),
      encoding,
      contentType,
      credentials,
      origin,
      async ([path, bytes], encoded, type, credential, originValue) => {
        const received = await send(path, headersFor(credential, type, encoded, originValue), encode(bytes, encoded));
        seen.set(received.status, (seen.get(received.status) ?? 0) + 1);

        expect(received.status).toBeLessThan(500);
        if (path === 'feedback' && received.status < 300) {
          expect({ status: received.status, body: received.body }).toEqual({ status: 204, body: '' });
        } else if (received.status !== 200) {
          expect(received.contentType).toMatch(/^application\/problem\+json/);
          const problem = JSON.parse(received.body) as Problem;
          expect(problem.status).toBe(received.status);
          expect(problem.type).toBe(`urn:kb-widget:problem:${problem.code}`);
          expect(problem.detail).not.toMatch(/\n\s+at |node_modules/);
        } else if (path === 'query/stream') {
          expect(received.contentType).toMatch(/^text\/event-stream/);
          const frames = framesOf(received.body);
          expect(frames.filter((frame) => frame === 'done' || frame === 'error')).toEqual(['done']);
          expect(frames.at(-1)).toBe('done');
        } else {
          expect(received.contentType).toMatch(/^application\/json/);
          expect(JSON.parse(received.body)).toMatchObject({ answer: expect.any(String), abstained: expect.any(Boolean) });
        }
      },
    ),
    {
      numRuns: 2_000,
      // Well-formed requests are rare among the random ones (a few in 1,000): one to each endpoint runs first, so each success is seen.
      examples: (['query', 'query/stream', 'feedback'] as const).map((path) => [
        [path, Buffer.from(path === 'feedback' ? validFeedback : VALID_QUERY)],
        'none',
        'application/json',
        'bearer',
        ALLOWED_ORIGIN,
      ]),
    },
  );
  // The generators (and the examples) reach every kind of outcome, accepted answers and feedback included.
  expect([...seen.keys()].sort()).toEqual(expect.arrayContaining([200, 204, 400, 401, 403, 413, 415]));
}, 300_000);
