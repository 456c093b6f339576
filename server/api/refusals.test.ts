import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

let fixture: WidgetFixture;
let token: string;
const QUESTION = { question: 'How do I create a directory with its parents?' };
/** A valid feedback body: a rating without spans (those are checked in feedback-routes.test.ts). */
const RATING = { kind: 'rating', question: QUESTION.question, provenance: 'generated', rating: 'up', source_spans: [] };

/** The three widget endpoints: the same refusals before any work, each with its own success. */
const ENDPOINTS = [
  { path: 'query', body: QUESTION, accepted: 200 },
  { path: 'query/stream', body: QUESTION, accepted: 200 },
  { path: 'feedback', body: RATING, accepted: 204 },
] as const;

beforeAll(async () => {
  fixture = await createWidgetFixture();
  ({ token } = await fixture.issue());
});
afterAll(async () => {
  await fixture.close();
});

/** Asserts a problem+json refusal that did not open a stream; returns the body. */
async function expectProblem(response: Response, status: number, code: string): Promise<Problem> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Problem;
  expect(body).toEqual({
    type: `urn:kb-widget:problem:${code}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code,
  });
  expect(body.detail).not.toMatch(/\n\s+at /);
  return body;
}

describe.each(ENDPOINTS)('refusals of POST /widget/$path', ({ path, body: valid, accepted }) => {
  test('no token: 401 missing_token with WWW-Authenticate', async () => {
    const response = await fixture.post(path, valid);

    await expectProblem(response, 401, 'missing_token');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  test('unknown token: 401 invalid_token with the RFC 6750 error', async () => {
    const response = await fixture.post(path, valid, { token: 'kbw_not-a-real-token' });

    await expectProblem(response, 401, 'invalid_token');
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('token without the kbw_ prefix: 401 invalid_token', async () => {
    await expectProblem(await fixture.post(path, valid, { token: 'abc' }), 401, 'invalid_token');
  });

  test('revoked token: 401 token_revoked on the next request', async () => {
    const issued = await fixture.issue();
    const before = await fixture.post(path, valid, { token: issued.token });
    await before.body?.cancel();
    expect(before.status).toBe(accepted);

    await fixture.store.revokeToken(issued.id, fixture.now());

    await expectProblem(await fixture.post(path, valid, { token: issued.token }), 401, 'token_revoked');
  });

  test('token one millisecond before expiry: accepted; at expiry: 401 token_expired', async () => {
    const issued = await fixture.issue({ ttlMinutes: 5 });
    fixture.advance(issued.expiresAt - fixture.now() - 1);
    const before = await fixture.post(path, valid, { token: issued.token });
    await before.body?.cancel();
    expect(before.status).toBe(accepted);

    fixture.advance(1);

    await expectProblem(await fixture.post(path, valid, { token: issued.token }), 401, 'token_expired');
  });

  test('issuer demoted to reader: 401 token_revoked; promoted again: accepted', async () => {
    const issued = await fixture.issue({ issuerId: fixture.users.bob.id });
    await fixture.store.setRole('docs', fixture.users.bob.id, 'reader');

    await expectProblem(await fixture.post(path, valid, { token: issued.token }), 401, 'token_revoked');

    await fixture.store.setRole('docs', fixture.users.bob.id, 'editor');
    const restored = await fixture.post(path, valid, { token: issued.token });
    await restored.body?.cancel();
    expect(restored.status).toBe(accepted);
  });

  test('token of another knowledge base: 403 kb_mismatch', async () => {
    await expectProblem(await fixture.post(path, valid, { token, kbId: 'other' }), 403, 'kb_mismatch');
  });

  test.each([
    'https://localhost:5173',
    'http://localhost:5174',
    'http://127.0.0.1:5173',
    'http://localhost:5173.evil.test',
    'null',
  ])('origin %s not in the token: 403 origin_not_allowed', async (origin) => {
    const response = await fixture.post(path, valid, { token, headers: { Origin: origin } });

    await expectProblem(response, 403, 'origin_not_allowed');
  });

  test('allowed origin: accepted, Origin echoed with Vary: Origin', async () => {
    const response = await fixture.post(path, valid, { token, headers: { Origin: 'http://localhost:5173' } });
    await response.body?.cancel();

    expect(response.status).toBe(accepted);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('vary')).toMatch(/Origin/i);
  });

  test('refused origin: Origin still echoed so the page can read why', async () => {
    const response = await fixture.post(path, valid, { token, headers: { Origin: 'https://evil.test' } });

    await expectProblem(response, 403, 'origin_not_allowed');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://evil.test');
  });

  test.each([
    ['malformed JSON', '{"question": '],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
  ])('%s: 400 invalid_request', async (_case, body) => {
    await expectProblem(await fixture.post(path, body, { token }), 400, 'invalid_request');
  });

  test('body over 16 KiB: 413 payload_too_large', async () => {
    const body = JSON.stringify({ ...valid, padding: 'x'.repeat(17 * 1024) });

    await expectProblem(await fixture.post(path, body, { token }), 413, 'payload_too_large');
  });

  test('body that is not JSON: 415 unsupported_media_type', async () => {
    const response = await fixture.post(path, 'question=How', {
      token,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });

    await expectProblem(response, 415, 'unsupported_media_type');
  });
});

describe.each(['query', 'query/stream'] as const)('refusals of the query body, POST /widget/%s', (path) => {
  test.each([
    ['query instead of question', { query: 'How?' }],
    ['empty question', { question: '' }],
    ['blank question', { question: '   \n ' }],
    ['question of 2001 characters', { question: 'a'.repeat(2001) }],
    ['numeric question', { question: 42 }],
    ['top_k 0', { question: 'How?', top_k: 0 }],
    ['top_k 21', { question: 'How?', top_k: 21 }],
    ['top_k 1.5', { question: 'How?', top_k: 1.5 }],
    ['top_k as a string', { question: 'How?', top_k: '3' }],
    ['top_k null', { question: 'How?', top_k: null }],
    ['options as an array', { question: 'How?', options: [] }],
    ['conversation_id as a number', { question: 'How?', conversation_id: 7 }],
  ])('%s: 400 invalid_request', async (_case, body) => {
    await expectProblem(await fixture.post(path, body, { token }), 400, 'invalid_request');
  });

  test('query instead of question: the detail names the right field', async () => {
    const body = await expectProblem(await fixture.post(path, { query: 'How?' }, { token }), 400, 'invalid_request');

    expect(body.detail).toContain('"question"');
  });

  test('question of exactly 2000 characters after trimming: accepted', async () => {
    const response = await fixture.post(path, { question: `  ${'word '.repeat(400)}  ` }, { token });
    await response.body?.cancel();

    expect(response.status).toBe(200);
  });
});

describe('other routes', () => {
  test('unknown path: 404 not_found as problem+json', async () => {
    const response = await fetch(`${fixture.baseUrl}/kb-api/api/v2/nothing`);

    await expectProblem(response, 404, 'not_found');
  });

  test.each(['query', 'feedback'])('GET on the %s endpoint: 404 not_found', async (path) => {
    const response = await fetch(`${fixture.baseUrl}/kb-api/api/v1/kb/docs/widget/${path}`, {
      headers: { Authorization: `Bearer ${token}` },
    });

    await expectProblem(response, 404, 'not_found');
  });

  test('GET /healthz: 200 ok', async () => {
    const response = await fetch(`${fixture.baseUrl}/healthz`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('preflight', () => {
  test.each(ENDPOINTS)('$path, any well-formed origin: 204 allowing POST and the token headers, origin echoed', async ({ path }) => {
    const response = await fetch(`${fixture.baseUrl}/kb-api/api/v1/kb/docs/widget/${path}`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://shop.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, x-widget-token',
      },
    });

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-widget-token');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toMatch(/Origin/i);
  });

  test.each(ENDPOINTS)('$path, origin "null": no CORS permission', async ({ path }) => {
    const response = await fetch(`${fixture.baseUrl}/kb-api/api/v1/kb/docs/widget/${path}`, {
      method: 'OPTIONS',
      headers: { Origin: 'null', 'Access-Control-Request-Method': 'POST' },
    });

    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('rate limits', () => {
  test('more requests a minute than the per-token limit: 429 rate_limited with Retry-After', async () => {
    const limited = await createWidgetFixture({ rateLimitPerToken: 2 });
    try {
      const issued = await limited.issue();
      for (let count = 0; count < 2; count += 1) {
        expect((await limited.post('query', QUESTION, { token: issued.token })).status).toBe(200);
      }

      const response = await limited.post('query/stream', QUESTION, { token: issued.token });

      await expectProblem(response, 429, 'rate_limited');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  test.each([
    ['token', { rateLimitPerToken: 2 }],
    ['client', { rateLimitPerIp: 2 }],
  ] as const)('feedback shares the per-%s limit with questions: a question, a rating, then a rating is 429 rate_limited', async (what, limits) => {
    const limited = await createWidgetFixture(limits);
    try {
      const issued = await limited.issue();
      expect((await limited.post('query', QUESTION, { token: issued.token })).status).toBe(200);
      expect((await limited.post('feedback', RATING, { token: issued.token })).status).toBe(204);

      const response = await limited.post('feedback', RATING, { token: issued.token });

      expect((await expectProblem(response, 429, 'rate_limited')).detail).toContain(`from this ${what}`);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
