import { Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * A fuzz test of both widget endpoints (issue 13): 2,000 random requests a
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

beforeAll(async () => {
  fixture = await createWidgetFixture({ rateLimitPerIp: 1_000_000, rateLimitPerToken: 1_000_000 });
  ({ token } = await fixture.issue({ allowedOrigins: [ALLOWED_ORIGIN] }));
  agent = new Agent({ keepAlive: true, maxSockets: 4 });
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

/** Text bodies as bytes, some corrupted into invalid UTF-8, with a byte-order mark, truncated, or near the 16 KiB limit. */
const bodyBytes = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: requestLike },
      { weight: 2, arbitrary: fc.constant('{"question":"How do I create a directory with its parents?"}') },
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

test('2,000 random requests to both widget endpoints: never a 5xx, every refusal problem+json, no stream for a refused request, every stream ends in one done', async () => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('query', 'query/stream'),
      bodyBytes,
      encoding,
      contentType,
      credentials,
      origin,
      async (path, bytes, encoded, type, credential, originValue) => {
        const received = await send(path, headersFor(credential, type, encoded, originValue), encode(bytes, encoded));
        seen.set(received.status, (seen.get(received.status) ?? 0) + 1);

        expect(received.status).toBeLessThan(500);
        if (received.status !== 200) {
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
    { numRuns: 2_000 },
  );
  // The generators reach every kind of outcome, accepted answers included.
  expect([...seen.keys()].sort()).toEqual(expect.arrayContaining([200, 400, 401, 403, 413, 415]));
}, 300_000);
