import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { CONSOLE_SCHEMAS, type MemberList, type UploadJobList } from '../../protocol/console-protocol.ts';
import type { Problem } from '../../protocol/query-protocol.ts';
import { ProblemSchema, QueryResponseSchema } from '../../protocol/query-schemas.ts';
import { makePdf } from '../testing/pdf-fixture.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { OPENAPI_DOCUMENT } from '../app.ts';

/**
 * Every console route's authorization over real HTTP: signed out (401),
 * signed in without the role (403), not a member (404, nothing revealed),
 * cross-site (403), and a widget token never accepted. Roles in the fixture's
 * `docs`: owner, alice and bob editors, reader a reader; `other` is owned by
 * owner only. `secret.md` (restricted) lists alice, not bob, as a reader.
 */
const PASSWORD = 'correct horse battery staple';
let fixture: WidgetFixture;
const cookies: Record<'owner' | 'alice' | 'bob' | 'reader', string> = { owner: '', alice: '', bob: '', reader: '' };

beforeAll(async () => {
  fixture = await createWidgetFixture({
    consolePasswords: { owner: PASSWORD, alice: PASSWORD, bob: PASSWORD, reader: PASSWORD },
    tokenTtlCapMinutes: 120,
  });
  cookies.owner = await fixture.signIn('owner@example.com', PASSWORD);
  cookies.alice = await fixture.signIn('alice@example.com', PASSWORD);
  cookies.bob = await fixture.signIn('bob@example.com', PASSWORD);
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
  ['GET', '/knowledge-bases/docs/feedback'],
  ['GET', '/knowledge-bases/docs/insights'],
  ['GET', '/knowledge-bases/docs/questions.csv'],
  ['PATCH', '/knowledge-bases/docs/documents/added/x.md', { visibility: 'public' }],
  ['PUT', '/knowledge-bases/docs/members/x', { role: 'reader' }],
  ['DELETE', '/knowledge-bases/docs/members/x'],
  ['POST', '/knowledge-bases/docs/invitations', { email: 'x@example.com', role: 'reader' }],
  ['POST', '/knowledge-bases/docs/members/x/password-link', {}],
  ['GET', '/knowledge-bases/docs/tokens'],
  ['POST', '/knowledge-bases/docs/tokens', { allowed_origins: [] }],
  ['POST', '/knowledge-bases/docs/tokens/preview', { scope: ['public'] }],
  ['DELETE', '/knowledge-bases/docs/tokens/tok_x'],
  ['PUT', '/knowledge-bases/docs/documents/added/x.md', { content: '# X', visibility: 'public' }],
  ['DELETE', '/knowledge-bases/docs/documents/added/x.md'],
  ['POST', '/knowledge-bases/docs/uploads', { files: [{ doc_id: 'added/x.md', content: '# X' }], visibility: 'public' }],
  ['GET', '/knowledge-bases/docs/uploads'],
  ['GET', '/knowledge-bases/docs/uploads/upl_x'],
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

  test('a reader: sees the knowledge base and is told they cannot issue tokens or edit documents; the cap and default are given', async () => {
    const response = await call('GET', '/knowledge-bases/docs', { cookie: cookies.reader });

    expect(await response.json()).toMatchObject({
      role: 'reader',
      can_issue_tokens: false,
      can_manage_members: false,
      can_edit_documents: false,
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
    const listed = (await (await call('GET', '/knowledge-bases/docs/tokens?limit=100', { cookie: cookies.reader })).json()) as { tokens: { id: string; issuer: string }[] };
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

describe('preview tokens from the console', () => {
  type PreviewToken = { token: string; id: string; purpose: string; allowed_origins: string[]; scope: string[]; created_at: string; expires_at: string };

  async function preview(cookie: string, scope?: string[]): Promise<PreviewToken> {
    const response = await call('POST', '/knowledge-bases/docs/tokens/preview', { cookie, body: scope === undefined ? {} : { scope } });
    expect(response.status).toBe(201);
    return (await response.json()) as PreviewToken;
  }

  async function citedDocuments(token: string, question: string): Promise<string[]> {
    const response = await fixture.post('query', { question }, { token, headers: { Origin: fixture.baseUrl } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { citations: { doc_id: string }[] }).citations.map((citation) => citation.doc_id);
  }

  test('an editor asks for one: 201, purpose preview, only the console origin, 10 minutes, public scope by default; listed as preview', async () => {
    const issued = await preview(cookies.alice);

    expect(issued).toMatchObject({ purpose: 'preview', allowed_origins: [fixture.baseUrl], scope: ['public'] });
    expect(issued.token).toMatch(/^kbw_/);
    expect(Date.parse(issued.expires_at) - Date.parse(issued.created_at)).toBe(10 * 60_000);
    expect(issued).not.toHaveProperty('snippet');
    const listed = (await (await call('GET', '/knowledge-bases/docs/tokens?limit=100', { cookie: cookies.reader })).json()) as { tokens: { id: string; purpose: string }[] };
    expect(listed.tokens.find((token) => token.id === issued.id)).toMatchObject({ purpose: 'preview' });
    expect(listed.tokens.filter((token) => token.purpose === 'embed').length).toBeGreaterThan(0);
  });

  test('the widget endpoint accepts it from the console origin and refuses it from any other origin with origin_not_allowed', async () => {
    const { token } = await preview(cookies.alice);
    const consolePort = new URL(fixture.baseUrl).port;

    expect(await citedDocuments(token, 'How do I create a directory with its missing parent directories?')).toContain('guide.md');
    for (const origin of ['http://localhost:5173', `http://localhost:${consolePort}`, 'https://evil.test', `https://127.0.0.1:${consolePort}`]) {
      const refused = await fixture.post('query', { question: 'How do I read a file?' }, { token, headers: { Origin: origin } });
      expect(refused.status, origin).toBe(403);
      expect(await code(refused), origin).toBe('origin_not_allowed');
    }
  });

  test('scope restricted: reaches a restricted document only when the issuer can read it (alice yes, bob never)', async () => {
    const question = 'When does the quokka launch happen?';
    const everything = ['public', 'workspace', 'restricted'];
    const byAlice = await preview(cookies.alice, everything);
    const byBob = await preview(cookies.bob, everything);

    const citedForAlice = await citedDocuments(byAlice.token, question);
    const citedForBob = await citedDocuments(byBob.token, question);

    expect(citedForAlice).toContain('secret.md');
    expect(citedForBob).not.toContain('secret.md');
    const stream = await fixture.post('query/stream', { question }, { token: byBob.token, headers: { Origin: fixture.baseUrl } });
    expect(await stream.text()).not.toMatch(/quokka|secret\.md/i);
  });

  test('default public scope: a workspace document is not reached even by an owner', async () => {
    const issued = await preview(cookies.owner);

    expect(await citedDocuments(issued.token, 'When is the zebra rollout deployed to staging?')).not.toContain('internal.md');
  });

  test('a reader asks for one: 403 forbidden, nothing issued; a non-member: 404', async () => {
    const before = (await fixture.store.listTokens('docs')).length;

    const byReader = await call('POST', '/knowledge-bases/docs/tokens/preview', { cookie: cookies.reader, body: {} });
    const byNonMember = await call('POST', '/knowledge-bases/other/tokens/preview', { cookie: cookies.alice, body: {} });

    expect(byReader.status).toBe(403);
    expect(await code(byReader)).toBe('forbidden');
    expect(byNonMember.status).toBe(404);
    expect(await code(byNonMember)).toBe('not_found');
    expect((await fixture.store.listTokens('docs')).length).toBe(before);
  });

  test('an unknown scope: 400 invalid_request naming the scope', async () => {
    const response = await call('POST', '/knowledge-bases/docs/tokens/preview', { cookie: cookies.owner, body: { scope: ['everything'] } });

    expect(response.status).toBe(400);
    expect(((await response.json()) as Problem).detail).toContain('scope');
  });

  test('revoked from the list: the next preview question is refused with token_revoked', async () => {
    const issued = await preview(cookies.alice);

    expect((await call('DELETE', `/knowledge-bases/docs/tokens/${issued.id}`, { cookie: cookies.alice })).status).toBe(204);

    const refused = await fixture.post('query', { question: 'How do I read a file?' }, { token: issued.token, headers: { Origin: fixture.baseUrl } });
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

  test('removing a member: an editor gets 403; the owner gets 204 and the member is gone', async () => {
    const target = fixture.users.bob.id;
    expect((await call('DELETE', `/knowledge-bases/docs/members/${target}`, { cookie: cookies.alice })).status).toBe(403);

    const response = await call('DELETE', `/knowledge-bases/docs/members/${target}`, { cookie: cookies.owner });

    expect(response.status).toBe(204);
    expect(await fixture.store.getRole('docs', target)).toBeUndefined();
    await fixture.store.setRole('docs', target, 'editor');
  });

  test('the last owner removing themself: 400 with a sentence saying why, the knowledge base keeps its owner', async () => {
    const response = await call('DELETE', `/knowledge-bases/docs/members/${fixture.users.owner.id}`, { cookie: cookies.owner });

    expect(response.status).toBe(400);
    expect(((await response.json()) as Problem).detail).toContain('needs at least one owner');
    expect(await fixture.store.getRole('docs', fixture.users.owner.id)).toBe('owner');
  });

  test('the last owner demoting themself: 400, the knowledge base keeps an owner', async () => {
    const response = await call('PUT', `/knowledge-bases/docs/members/${fixture.users.owner.id}`, { cookie: cookies.owner, body: { role: 'reader' } });

    expect(response.status).toBe(400);
    expect(await fixture.store.getRole('docs', fixture.users.owner.id)).toBe('owner');
  });
});

describe('documents from the console', () => {
  const ZEBRA_PAGE = '# Zebra care\n\n## Feeding\n\nA zebra grazes on tall grass for most of the day.\n';

  async function ask(question: string, scope: ('public' | 'workspace' | 'restricted')[] = ['public']) {
    const { token } = await fixture.issue({ issuerId: fixture.users.alice.id, scope });
    const response = await fixture.post('query', { question }, { token });
    return (await response.json()) as { abstained: boolean; citations: { doc_id: string }[] };
  }

  test('an editor adds a markdown page at a nested id: 201 with its passages; the widget answers from it; replaced: 200 updated; same again: unchanged; removed: 204 and no longer cited', async () => {
    const path = '/knowledge-bases/docs/documents/animals/zebra.md';

    const created = await call('PUT', path, { cookie: cookies.alice, body: { content: ZEBRA_PAGE, visibility: 'public' } });
    const answered = await ask('Where does a zebra graze?');
    const updated = await call('PUT', path, { cookie: cookies.alice, body: { content: `${ZEBRA_PAGE}\nZebras drink daily.\n`, visibility: 'public' } });
    const unchanged = await call('PUT', path, { cookie: cookies.alice, body: { content: `${ZEBRA_PAGE}\nZebras drink daily.\n`, visibility: 'public' } });
    const removed = await call('DELETE', path, { cookie: cookies.alice });
    const afterRemoval = await ask('Where does a zebra graze?');

    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ doc_id: 'animals/zebra.md', outcome: 'created', title: 'Zebra care', visibility: 'public', passages: 1 });
    expect(answered.citations.map((citation) => citation.doc_id)).toContain('animals/zebra.md');
    expect([updated.status, ((await updated.json()) as { outcome: string }).outcome]).toEqual([200, 'updated']);
    expect(((await unchanged.json()) as { outcome: string }).outcome).toBe('unchanged');
    expect(removed.status).toBe(204);
    expect(afterRemoval.citations.map((citation) => citation.doc_id)).not.toContain('animals/zebra.md');
  });

  test('an editor uploads a PDF as base64: 201 with its title and passages, and the widget answers from it, citing it', async () => {
    const pdf = await makePdf([[{ text: 'Okapi handbook', size: 22 }, { text: 'Feeding', size: 16 }, { text: 'An okapi browses on leaves and buds in the forest.' }]]);

    const created = await call('PUT', '/knowledge-bases/docs/documents/handbooks/okapi.pdf', {
      cookie: cookies.alice,
      body: { content_base64: Buffer.from(pdf).toString('base64'), visibility: 'public' },
    });
    const answered = await ask('What does an okapi browse on in the forest?');

    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ doc_id: 'handbooks/okapi.pdf', outcome: 'created', title: 'Okapi handbook', passages: 1 });
    expect(answered.abstained).toBe(false);
    expect(answered.citations.map((citation) => citation.doc_id)).toContain('handbooks/okapi.pdf');
    await call('DELETE', '/knowledge-bases/docs/documents/handbooks/okapi.pdf', { cookie: cookies.alice });
  });

  test('a PDF that is not one, text and bytes both given, bytes that are not base64: 400 naming the problem, nothing stored', async () => {
    const refusals = await Promise.all([
      call('PUT', '/knowledge-bases/docs/documents/scan.pdf', {
        cookie: cookies.alice,
        body: { content_base64: Buffer.from('# markdown').toString('base64'), visibility: 'public' },
      }),
      call('PUT', '/knowledge-bases/docs/documents/both.md', {
        cookie: cookies.alice,
        body: { content: '# Both', content_base64: Buffer.from('# Both').toString('base64'), visibility: 'public' },
      }),
      call('PUT', '/knowledge-bases/docs/documents/garbled.md', { cookie: cookies.alice, body: { content_base64: '%%% not base64 %%%', visibility: 'public' } }),
    ]);

    const bodies = await Promise.all(refusals.map(async (response) => [response.status, ((await response.json()) as Problem).detail]));
    expect(bodies).toEqual([
      [400, expect.stringContaining('scan.pdf: The file is not a PDF that can be read')],
      [400, expect.stringContaining('content (text) or content_base64 (bytes), one of them')],
      [400, expect.stringContaining('content_base64: not base64')],
    ]);
    for (const docId of ['scan.pdf', 'both.md', 'garbled.md']) {
      await expect(fixture.store.getDocument('docs', docId)).resolves.toBeUndefined();
    }
  });

  test('an editor changes a document\'s access: restricted to a member, then public and not quotable; the list shows readers; a reader cannot (403); a non-member reader is refused (400)', async () => {
    const path = '/knowledge-bases/docs/documents/animals/ibis.md';
    await call('PUT', path, { cookie: cookies.alice, body: { content: '# Ibis\n\nAn ibis probes mud for food.\n', visibility: 'public' } });

    const restricted = await call('PATCH', path, { cookie: cookies.alice, body: { visibility: 'restricted', readers: [fixture.users.alice.id] } });
    const listed = (await (await call('GET', '/knowledge-bases/docs/documents', { cookie: cookies.alice })).json()) as { documents: { doc_id: string; readers?: string[] }[] };
    const byReader = await call('PATCH', path, { cookie: cookies.reader, body: { visibility: 'public' } });
    const stranger = await call('PATCH', path, { cookie: cookies.alice, body: { visibility: 'restricted', readers: ['usr_stranger'] } });
    const opened = await call('PATCH', path, { cookie: cookies.alice, body: { visibility: 'public', quotable: false } });
    const missing = await call('PATCH', '/knowledge-bases/docs/documents/animals/none.md', { cookie: cookies.alice, body: { visibility: 'public' } });

    expect(restricted.status).toBe(200);
    expect(await restricted.json()).toMatchObject({ doc_id: 'animals/ibis.md', visibility: 'restricted', readers: [fixture.users.alice.id], quotable: true, passages: 1 });
    expect(listed.documents.find((document) => document.doc_id === 'animals/ibis.md')?.readers).toEqual([fixture.users.alice.id]);
    expect(byReader.status).toBe(403);
    expect([stranger.status, ((await stranger.json()) as Problem).detail]).toEqual([400, expect.stringContaining('usr_stranger')]);
    expect(await opened.json()).toMatchObject({ visibility: 'public', quotable: false });
    expect((await fixture.store.getDocument('docs', 'animals/ibis.md'))).toMatchObject({ visibility: 'public', readers: [], quotable: false });
    expect(missing.status).toBe(404);
    await call('DELETE', path, { cookie: cookies.alice });
  });

  test('a reader adds a document: 403 forbidden, nothing stored', async () => {
    const response = await call('PUT', '/knowledge-bases/docs/documents/reader.md', { cookie: cookies.reader, body: { content: '# R', visibility: 'public' } });

    expect(response.status).toBe(403);
    await expect(fixture.store.getDocument('docs', 'reader.md')).resolves.toBeUndefined();
  });

  test('bad input: unsupported extension, empty content, a reader who is not a member, a dot-dot id: 400 naming the problem, nothing stored', async () => {
    const refusals = await Promise.all([
      call('PUT', '/knowledge-bases/docs/documents/notes.docx', { cookie: cookies.alice, body: { content: 'x', visibility: 'public' } }),
      call('PUT', '/knowledge-bases/docs/documents/empty.md', { cookie: cookies.alice, body: { content: '', visibility: 'public' } }),
      call('PUT', '/knowledge-bases/docs/documents/private.md', {
        cookie: cookies.alice,
        body: { content: '# P\n\ntext', visibility: 'restricted', readers: ['usr_stranger'] },
      }),
      call('PUT', '/knowledge-bases/docs/documents/a/../b.md', { cookie: cookies.alice, body: { content: '# B', visibility: 'public' } }),
    ]);

    const bodies = await Promise.all(refusals.map(async (response) => [response.status, ((await response.json()) as Problem).detail]));
    expect(bodies).toEqual([
      [400, expect.stringContaining('no supported extension')],
      [400, expect.stringContaining('empty')],
      [400, expect.stringContaining('usr_stranger')],
      [expect.any(Number), expect.any(String)],
    ]);
    expect(bodies[3]![0]).not.toBe(201);
    for (const docId of ['notes.docx', 'empty.md', 'private.md', 'b.md', 'a/../b.md']) {
      await expect(fixture.store.getDocument('docs', docId)).resolves.toBeUndefined();
    }
  });

  test('a restricted document bob cannot read: bob cannot replace or remove it (403), and it is intact', async () => {
    const before = await fixture.store.getDocument('docs', 'secret.md');

    const replaced = await call('PUT', '/knowledge-bases/docs/documents/secret.md', { cookie: cookies.bob, body: { content: '# Mine', visibility: 'public' } });
    const removed = await call('DELETE', '/knowledge-bases/docs/documents/secret.md', { cookie: cookies.bob });

    expect([replaced.status, removed.status]).toEqual([403, 403]);
    await expect(fixture.store.getDocument('docs', 'secret.md')).resolves.toEqual(before);
  });

  test('a restricted document alice adds for herself: cited through her restricted-scope token, never through bob\'s', async () => {
    const path = '/knowledge-bases/docs/documents/okapi.md';
    await call('PUT', path, {
      cookie: cookies.alice,
      body: { content: '# Okapi\n\nThe okapi lives in the Ituri rainforest.\n', visibility: 'restricted', readers: [fixture.users.alice.id] },
    });

    const asAlice = await ask('Where does the okapi live?', ['public', 'restricted']);
    const { token } = await fixture.issue({ issuerId: fixture.users.bob.id, scope: ['public', 'restricted'] });
    const asBob = (await (await fixture.post('query', { question: 'Where does the okapi live?' }, { token })).json()) as { citations: { doc_id: string }[] };
    await call('DELETE', path, { cookie: cookies.alice });

    expect(asAlice.citations.map((citation) => citation.doc_id)).toContain('okapi.md');
    expect(asBob.citations.map((citation) => citation.doc_id)).not.toContain('okapi.md');
  });

  test('a source larger than the 16 KiB of other console requests but within 5 MiB: accepted', async () => {
    const big = `# Big page\n\n${'Long text about granite quarries. '.repeat(2000)}\n`;

    const response = await call('PUT', '/knowledge-bases/docs/documents/big.md', { cookie: cookies.alice, body: { content: big, visibility: 'public' } });
    await call('DELETE', '/knowledge-bases/docs/documents/big.md', { cookie: cookies.alice });

    expect(response.status).toBe(201);
  });
});

test('GET /openapi.json: OpenAPI 3.1 describing the widget endpoints and every console route', async () => {
  const response = await fetch(`${fixture.baseUrl}/openapi.json`);
  const document = (await response.json()) as typeof OPENAPI_DOCUMENT;

  expect(document.openapi).toBe('3.1.0');
  const paths = Object.keys(document.paths);
  expect(paths).toContain('/kb-api/api/v1/kb/{kbId}/widget/query');
  expect(paths).toContain('/kb-api/api/v1/kb/{kbId}/widget/query/stream');
  expect(paths).toContain('/kb-api/api/v1/kb/{kbId}/widget/feedback');
  for (const [method, path] of ROUTES) {
    const template = path.replace('/docs', '/{kbId}').replace(/members\/x(?=\/|$)/, 'members/{userId}').replace(/tokens\/tok_x$/, 'tokens/{tokenId}').replace(/documents\/added\/x\.md$/, 'documents/{docId}').replace(/uploads\/upl_x$/, 'uploads/{uploadId}');
    const operations = (document.paths as Record<string, Record<string, unknown>>)[`/console/api${template}`];
    expect(operations?.[method.toLowerCase()], `${method} ${template}`).toBeDefined();
  }
});

test('every console answer with a JSON body: exactly the schema the OpenAPI document names for it, as the console app reads it (protocol/console-protocol.ts)', async () => {
  // Arrange
  const document = OPENAPI_DOCUMENT as unknown as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>> };
  const schemas = new Map(CONSOLE_SCHEMAS.map((schema) => [(schema.meta() as { id: string }).id, schema as z.ZodType]));
  const members = (await (await call('GET', '/knowledge-bases/docs/members', { cookie: cookies.owner })).json()) as MemberList;
  const readerId = members.members.find((member) => member.email === 'reader@example.com')!.user_id;
  const calls: [method: string, path: string, template: string, body?: unknown][] = [
    ['GET', '/session', '/session'],
    ['GET', '/knowledge-bases', '/knowledge-bases'],
    ['GET', '/knowledge-bases/docs', '/knowledge-bases/{kbId}'],
    ['GET', '/knowledge-bases/docs/documents', '/knowledge-bases/{kbId}/documents'],
    ['PUT', '/knowledge-bases/docs/documents/shape/x.md', '/knowledge-bases/{kbId}/documents/{docId}', { content: '# X\n\nText of x.', visibility: 'public' }],
    ['GET', '/knowledge-bases/docs/members', '/knowledge-bases/{kbId}/members'],
    ['PUT', `/knowledge-bases/docs/members/${readerId}`, '/knowledge-bases/{kbId}/members/{userId}', { role: 'reader' }],
    ['GET', '/knowledge-bases/docs/feedback', '/knowledge-bases/{kbId}/feedback'],
    ['GET', '/knowledge-bases/docs/insights', '/knowledge-bases/{kbId}/insights'],
    ['PATCH', '/knowledge-bases/docs/documents/shape/x.md', '/knowledge-bases/{kbId}/documents/{docId}', { visibility: 'workspace' }],
    ['POST', '/knowledge-bases/docs/tokens', '/knowledge-bases/{kbId}/tokens', { allowed_origins: ['https://shop.example.com'] }],
    ['POST', '/knowledge-bases/docs/tokens/preview', '/knowledge-bases/{kbId}/tokens/preview', {}],
    ['GET', '/knowledge-bases/docs/tokens', '/knowledge-bases/{kbId}/tokens'],
    ['POST', '/knowledge-bases/docs/uploads', '/knowledge-bases/{kbId}/uploads', { files: [{ doc_id: 'shape/y.md', content: '# Y\n\nText of y.' }], visibility: 'public' }],
    ['GET', '/knowledge-bases/docs/uploads', '/knowledge-bases/{kbId}/uploads'],
  ];

  for (const [method, path, template, body] of calls) {
    // Act
    const response = await call(method, path, { cookie: cookies.owner, body });
    const json = (await response.json()) as unknown;

    // Assert
    const documented = document.paths[`/console/api${template}`]?.[method.toLowerCase()]?.responses[String(response.status)];
    const id = documented?.content?.['application/json']?.schema.$ref?.replace('#/components/schemas/', '');
    expect(id, `${method} ${template} ${response.status}`).toBeDefined();
    const schema = schemas.get(id!)!;
    // Parsing drops what the schema does not name: an undocumented field would make the two differ.
    expect(schema.parse(json), `${method} ${template} as ${id}`).toEqual(json);
    expect((OPENAPI_DOCUMENT.components.schemas as Record<string, unknown>)[id!]).toBeDefined();
  }
  await call('DELETE', '/knowledge-bases/docs/documents/shape/x.md', { cookie: cookies.owner });
  while (((await (await call('GET', '/knowledge-bases/docs/uploads', { cookie: cookies.owner })).json()) as UploadJobList).uploads.some((job) => job.status === 'running')) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await call('DELETE', '/knowledge-bases/docs/documents/shape/y.md', { cookie: cookies.owner });
});

test('the widget endpoints: a JSON answer and a refusal are exactly the schemas the OpenAPI document names for them (protocol/query-schemas.ts)', async () => {
  // Arrange
  const { token } = await fixture.issue();
  const operation = (OPENAPI_DOCUMENT.paths as unknown as Record<string, { post: { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> } }>)[
    '/kb-api/api/v1/kb/{kbId}/widget/query'
  ]!.post;

  // Act
  const answered = await fixture.post('query', { question: 'How do I read a file?' }, { token, headers: { Origin: 'http://localhost:5173' } });
  const refused = await fixture.post('query', { question: 'How do I read a file?' });

  // Assert
  expect(operation.responses['200']!.content['application/json']!.schema.$ref).toBe('#/components/schemas/QueryResponse');
  expect(operation.responses['401']!.content['application/problem+json']!.schema.$ref).toBe('#/components/schemas/Problem');
  const answer = await answered.json();
  expect(QueryResponseSchema.parse(answer)).toEqual(answer);
  const problem = await refused.json();
  expect(refused.status).toBe(401);
  expect(ProblemSchema.parse(problem)).toEqual(problem);
});
