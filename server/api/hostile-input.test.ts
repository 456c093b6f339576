import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * Regressions of the hostile-input defects (docs/http-api.md "Refused requests"), at the HTTP level on
 * the test run's backend: each once answered 500 `internal` or held the
 * connection; each is now a problem+json refusal that opens no stream.
 */

const OWNER_PASSWORD = 'owner-password-0123';
let fixture: WidgetFixture;
let token: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: OWNER_PASSWORD } });
  ({ token } = await fixture.issue({ allowedOrigins: [] }));
});
afterAll(async () => {
  await fixture.close();
});

/** Asserts a problem+json refusal with `status` and `code` (never a stream); returns its detail. */
async function expectProblem(response: Response, status: number, code: string): Promise<string> {
  const body = await response.text();
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({
    status,
    type: expect.stringMatching(/^application\/problem\+json/),
  });
  const problem = JSON.parse(body) as Problem;
  expect(problem.code).toBe(code);
  return problem.detail;
}

/** `{"question":"q","top_k":[[[…]]]}` with `depth` nested arrays: about 8 KB at 4,100 levels. */
function deeplyNested(depth: number): string {
  return `{"question":"q","top_k":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

/** The three widget endpoints, each with a valid body and its success status. */
const ENDPOINTS = [
  { path: 'query', valid: { question: 'How do I create a directory?' }, accepted: 200 },
  { path: 'query/stream', valid: { question: 'How do I create a directory?' }, accepted: 200 },
  {
    path: 'feedback',
    valid: { kind: 'rating', question: 'How do I create a directory?', provenance: 'generated', rating: 'up', source_spans: [] },
    accepted: 204,
  },
] as const;

describe.each(ENDPOINTS)('POST /widget/$path with hostile input', ({ path, valid, accepted }) => {
  test('a field nested 5,000 arrays deep (10 KB): 400 invalid_request naming the depth limit, not a stack overflow', async () => {
    const response = await fixture.post(path, deeplyNested(5_000), { token });

    expect(await expectProblem(response, 400, 'invalid_request')).toMatch(/deeper than 32 levels/);
  });

  test('an options object nested 33 levels deep: 400; 30 levels deep: accepted', async () => {
    const nested = (depth: number) => `${JSON.stringify(valid).slice(0, -1)},"options":${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}}`;

    await expectProblem(await fixture.post(path, nested(33), { token }), 400, 'invalid_request');
    const answered = await fixture.post(path, nested(30), { token });
    await answered.body?.cancel();
    expect(answered.status).toBe(accepted);
  });

  test('Content-Encoding: gzip on a body that is not gzip: 400 invalid_request saying so', async () => {
    const response = await fixture.post(path, '{"question":"How do I create a directory?"}', { token, headers: { 'Content-Encoding': 'gzip' } });

    expect(await expectProblem(response, 400, 'invalid_request')).toMatch(/Content-Encoding/);
  });

  test('Content-Encoding: gzip on a gzip body: accepted', async () => {
    const response = await fetch(`${fixture.baseUrl}/kb-api/api/v1/kb/docs/widget/${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(JSON.stringify(valid)),
    });
    await response.body?.cancel();

    expect(response.status).toBe(accepted);
  });

  test('Content-Encoding: compress (not supported): 415 unsupported_media_type', async () => {
    const response = await fixture.post(path, '{"question":"q"}', { token, headers: { 'Content-Encoding': 'compress' } });

    await expectProblem(response, 415, 'unsupported_media_type');
  });

  test('Authorization: Bearer <token> junk: 401 invalid_token, not missing_token', async () => {
    const response = await fixture.post(path, { question: 'How do I create a directory?' }, { headers: { Authorization: `Bearer ${token} junk` } });

    await expectProblem(response, 401, 'invalid_token');
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('Authorization: Bearer with no credential and no X-Widget-Token: 401 missing_token', async () => {
    await expectProblem(await fixture.post(path, { question: 'q' }, { headers: { Authorization: 'Bearer ' } }), 401, 'missing_token');
  });
});

describe('malformed percent-encoding in a path', () => {
  test('widget endpoint /kb/%ZZ/widget/query: 400 invalid_request', async () => {
    const response = await fetch(`${fixture.baseUrl}/kb-api/api/v1/kb/%ZZ/widget/query`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{"question":"q"}',
    });

    expect(await expectProblem(response, 400, 'invalid_request')).toMatch(/percent-encoding/);
  });

  test.each([
    ['GET', '/knowledge-bases/%ZZ'],
    ['GET', '/knowledge-bases/%ZZ/documents'],
    ['DELETE', '/knowledge-bases/docs/documents/%ZZ.md'],
    ['DELETE', '/knowledge-bases/docs/tokens/%ZZ'],
    ['DELETE', '/knowledge-bases/docs/members/%ZZ'],
  ])('console %s %s, signed in: 400 invalid_request', async (method, path) => {
    const cookie = await fixture.signIn('owner@example.com', OWNER_PASSWORD);

    const response = await fetch(`${fixture.baseUrl}/console/api${path}`, {
      method,
      headers: { Cookie: cookie, Origin: fixture.baseUrl, 'Content-Type': 'application/json' },
    });

    await expectProblem(response, 400, 'invalid_request');
  });
});

describe('a body announced larger than the limit', () => {
  /** Sends only the head of a POST announcing `length` bytes; returns what came back and whether the server closed the connection. */
  async function announce(path: string, length: number, method = 'POST', extraHeaders = ''): Promise<{ head: string; closed: boolean }> {
    const url = new URL(fixture.baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(
      `${method} ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n${extraHeaders}` +
        `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
    );
    const closed = await Promise.race([once(socket, 'close').then(() => true), sleep(2_000).then(() => false)]);
    socket.destroy();
    return { head: Buffer.concat(chunks).toString('utf8'), closed };
  }

  test('10 GB announced to the query endpoint, nothing sent: 413 at once and the connection closed', async () => {
    const { head, closed } = await announce('/kb-api/api/v1/kb/docs/widget/query', 10_000_000_000);

    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toContain('application/problem+json');
    expect(head).toContain('"code":"payload_too_large"');
    expect(closed).toBe(true);
  });

  test('16 KiB + 1 announced to the stream endpoint: 413, no stream', async () => {
    const { head } = await announce('/kb-api/api/v1/kb/docs/widget/query/stream', 16 * 1024 + 1);

    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).not.toContain('text/event-stream');
  });

  test('16 KiB + 1 announced to the feedback endpoint: 413 at once and the connection closed', async () => {
    const { head, closed } = await announce('/kb-api/api/v1/kb/docs/widget/feedback', 16 * 1024 + 1);

    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toContain('"code":"payload_too_large"');
    expect(closed).toBe(true);
  });

  test('26 MiB announced to a console document upload: 413 before the body is read', async () => {
    const cookie = await fixture.signIn('owner@example.com', OWNER_PASSWORD);

    const { head, closed } = await announce(
      '/console/api/knowledge-bases/docs/documents/big.md',
      26 * 1024 * 1024,
      'PUT',
      `Cookie: ${cookie}\r\nOrigin: ${fixture.baseUrl}\r\n`,
    );

    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toContain('25 MiB');
    expect(closed).toBe(true);
  });
});
