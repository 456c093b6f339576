import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { OPENAPI_DOCUMENT } from './openapi.ts';

/**
 * Every console route's authorization over real HTTP: signed out (401),
 * signed in without the role (403), not a member (404, nothing revealed),
 * cross-site (403), and a widget token never accepted. Roles in the fixture's
 * `docs`: owner, alice and bob editors, reader a reader; `other` is owned by
 * owner only.
 */
const PASSWORD = 'correct horse battery staple';
let fixture: WidgetFixture;
const cookies: Record<'owner' | 'alice' | 'reader', string> = { owner: '', alice: '', reader: '' };

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: PASSWORD, alice: PASSWORD, reader: PASSWORD }, tokenTtlCapMinutes: 120 });
  cookies.owner = await fixture.signIn('owner@example.com', PASSWORD);
  cookies.alice = await fixture.signIn('alice@example.com', PASSWORD);
  cookies.reader = await fixture.signIn('reader@example.com', PASSWORD);
});
afterAll(async () => {
  await fixture.close();
});

function call(method: string, path: string, options: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { Origin: fixture.baseUrl, ...options.headers };
  if (options.cookie) headers.Cookie = options.cookie;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${fixture.baseUrl}/console/api${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
}

async function code(response: Response): Promise<string> {
  return ((await response.json()) as Problem).code;
}

const ROUTES: [string, string, unknown?][] = [
  ['GET', '/knowledge-bases'],
  ['GET', '/knowledge-bases/docs'],
  ['GET', '/knowledge-bases/docs/documents'],
  ['GET', '/knowledge-bases/docs/members'],
  ['PUT', '/knowledge-bases/docs/members/x', { role: 'reader' }],
  ['DELETE', '/knowledge-bases/docs/members/x'],
  ['GET', '/knowledge-bases/docs/tokens'],
  ['POST', '/knowledge-bases/docs/tokens', { allowed_origins: [] }],
  ['DELETE', '/knowledge-bases/docs/tokens/tok_x'],
];

describe('every console route', () => {
  test.each(ROUTES)('%s %s signed out: 401 unauthenticated', async (method, path, body) => {
    const response = await call(method, path, { body });

    expect(response.status).toBe(401);
    expect(await code(response)).toBe('unauthenticated');
  });

  test.each(ROUTES)('%s %s with only a widget token: 401 unauthenticated', async (method, path, body) => {
    const { token } = await fixture.issue();

    const response = await call(method, path, { body, headers: { Authorization: `Bearer ${token}` } });

    expect(response.status).toBe(401);
  });

  test.each(ROUTES.filter(([method]) => method !== 'GET'))('%s %s from another site: 403 cross_site_request', async (method, path, body) => {
    const response = await call(method, path, { body, cookie: cookies.owner, headers: { Origin: 'https://evil.test' } });

    expect(response.status).toBe(403);
    expect(await code(response)).toBe('cross_site_request');
  });
});

describe('knowledge bases', () => {
  test('list: only the ones the person is a member of, with their role', async () => {
    const response = await call('GET', '/knowledge-bases', { cookie: cookies.alice });

    expect(await response.json()).toEqual({ knowledge_bases: [{ id: 'docs', name: 'Docs', role: 'editor' }] });
  });

  test('a knowledge base the person is not a member of: 404, as if it did not exist', async () => {
    const response = await call('GET', '/knowledge-bases/other', { cookie: cookies.alice });

    expect(response.status).toBe(404);
    expect(await code(response)).toBe('not_found');
  });

  test('a reader: sees the knowledge base and is told they cannot issue tokens; the cap and default are given', async () => {
    const response = await call('GET', '/knowledge-bases/docs', { cookie: cookies.reader });

    expect(await response.json()).toMatchObject({
      role: 'reader',
      can_issue_tokens: false,
      can_manage_members: false,
      token_ttl_cap_minutes: 120,
      token_ttl_default_minutes: 60,
    });
  });

  test('documents: a reader sees public and workspace ones, not a restricted one they are not listed on', async () => {
    const response = await call('GET', '/knowledge-bases/docs/documents', { cookie: cookies.reader });

    const ids = ((await response.json()) as { documents: { doc_id: string }[] }).documents.map((document) => document.doc_id);
    expect(ids).toEqual(['guide.md', 'internal.md', 'private-notes.md']);
  });

  test('documents: alice, a listed reader, also sees the restricted one', async () => {
    const response = await call('GET', '/knowledge-bases/docs/documents', { cookie: cookies.alice });

    const ids = ((await response.json()) as { documents: { doc_id: string }[] }).documents.map((document) => document.doc_id);
    expect(ids).toContain('secret.md');
  });
});

describe('tokens from the console', () => {
  test('an editor issues a token: 201, shown once with a snippet; the widget endpoint accepts it from the allowed origin', async () => {
    const response = await call('POST', '/knowledge-bases/docs/tokens', {
      cookie: cookies.alice,
      body: { allowed_origins: ['http://localhost:5173'], ttl_minutes: 30 },
    });

    expect(response.status).toBe(201);
    const issued = (await response.json()) as { token: string; id: string; snippet: string; expires_at: string; status: string };
    expect(issued.token).toMatch(/^kbw_/);
    expect(issued.status).toBe('active');
    expect(issued.snippet).toContain(`token="${issued.token}"`);
    expect(Date.parse(issued.expires_at) - fixture.now()).toBe(30 * 60_000);
    const answer = await fixture.post('query', { question: 'How do I read a file?' }, { token: issued.token, headers: { Origin: 'http://localhost:5173' } });
    expect(answer.status).toBe(200);
    const listed = (await (await call('GET', '/knowledge-bases/docs/tokens', { cookie: cookies.reader })).json()) as { tokens: { id: string; issuer: string }[] };
    expect(listed.tokens.find((token) => token.id === issued.id)).toMatchObject({ issuer: 'alice@example.com' });
    expect(JSON.stringify(listed)).not.toContain(issued.token);
  });

  test('a reader issues a token: 403 forbidden, nothing issued', async () => {
    const before = (await fixture.store.listTokens('docs')).length;

    const response = await call('POST', '/knowledge-bases/docs/tokens', { cookie: cookies.reader, body: { allowed_origins: [] } });

    expect(response.status).toBe(403);
    expect(await code(response)).toBe('forbidden');
    expect((await fixture.store.listTokens('docs')).length).toBe(before);
  });

  test.each([
    [{ allowed_origins: ['shop.example.com/path'] }, 'shop.example.com/path'],
    [{ allowed_origins: ['https://ok.example'], ttl_minutes: 121 }, 'cap of 120 minutes'],
    [{ allowed_origins: ['https://ok.example'], scope: ['everything'] }, 'scope'],
    [{ allowed_origins: 'https://ok.example' }, 'allowed_origins'],
  ])('issue with %j: 400 invalid_request naming the problem', async (body, words) => {
    const response = await call('POST', '/knowledge-bases/docs/tokens', { cookie: cookies.owner, body });

    expect(response.status).toBe(400);
    expect(((await response.json()) as Problem).detail).toContain(words);
  });

  test('revoke: 204, the next widget request is refused with token_revoked; a reader cannot revoke', async () => {
    const { token, id } = await fixture.issue();
    const byReader = await call('DELETE', `/knowledge-bases/docs/tokens/${id}`, { cookie: cookies.reader });
    expect(byReader.status).toBe(403);

    const response = await call('DELETE', `/knowledge-bases/docs/tokens/${id}`, { cookie: cookies.alice });

    expect(response.status).toBe(204);
    const refused = await fixture.post('query', { question: 'How do I read a file?' }, { token });
    expect(await code(refused)).toBe('token_revoked');
  });
});

describe('members', () => {
  test('an editor changes a role: 403; the owner does: 200', async () => {
    const target = fixture.users.bob.id;
    expect((await call('PUT', `/knowledge-bases/docs/members/${target}`, { cookie: cookies.alice, body: { role: 'reader' } })).status).toBe(403);

    const response = await call('PUT', `/knowledge-bases/docs/members/${target}`, { cookie: cookies.owner, body: { role: 'owner' } });

    expect(response.status).toBe(200);
    expect(await fixture.store.getRole('docs', target)).toBe('owner');
    await fixture.store.setRole('docs', target, 'editor');
  });

  test('the last owner demoting themself: 400, the knowledge base keeps an owner', async () => {
    const response = await call('PUT', `/knowledge-bases/docs/members/${fixture.users.owner.id}`, { cookie: cookies.owner, body: { role: 'reader' } });

    expect(response.status).toBe(400);
    expect(await fixture.store.getRole('docs', fixture.users.owner.id)).toBe('owner');
  });
});

test('GET /openapi.json: OpenAPI 3.1 describing the widget endpoints and every console route', async () => {
  const response = await fetch(`${fixture.baseUrl}/openapi.json`);
  const document = (await response.json()) as typeof OPENAPI_DOCUMENT;

  expect(document.openapi).toBe('3.1.0');
  const paths = Object.keys(document.paths);
  expect(paths).toContain('/kb-api/api/v1/kb/{kbId}/widget/query');
  expect(paths).toContain('/kb-api/api/v1/kb/{kbId}/widget/query/stream');
  for (const [method, path] of ROUTES) {
    const template = path.replace('/docs', '/{kbId}').replace(/members\/x$/, 'members/{userId}').replace(/tokens\/tok_x$/, 'tokens/{tokenId}');
    const operations = (document.paths as Record<string, Record<string, unknown>>)[`/console/api${template}`];
    expect(operations?.[method.toLowerCase()], `${method} ${template}`).toBeDefined();
  }
});
