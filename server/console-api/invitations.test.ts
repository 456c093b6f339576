import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { InvitationSchema, type Invitation, type MemberList } from '../../protocol/console-protocol.ts';
import type { Problem } from '../../protocol/query-protocol.ts';
import { hashPassword } from '../auth/password-hash.ts';
import { hashPasswordLinkSecret, PASSWORD_LINK_TTL_MILLISECONDS } from '../auth/password-links.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { OPENAPI_DOCUMENT } from '../app.ts';

/**
 * Invitations over real HTTP (docs/http-api.md "Members and invitations"): an owner invites an email
 * with a role and is shown a one-time set-password link; the invitee opens
 * it, chooses a password and is signed in. The fixture's `docs` has owner,
 * alice (editor) and reader with passwords, and bob (editor) without one: a
 * pending member. Each test speaks from its own client address (one trusted
 * proxy), so the failures one test provokes on purpose never count against
 * another's set-password limit.
 */
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new password, long enough';
let fixture: WidgetFixture;
const logLines: string[] = [];
let clientAddress = 0;

beforeAll(async () => {
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  fixture = await createWidgetFixture({
    consolePasswords: { owner: PASSWORD, alice: PASSWORD, reader: PASSWORD },
    trustedProxies: 1,
    logger: pino({ level: 'info' }, logStream),
  });
});
afterAll(async () => {
  await fixture.close();
});
beforeEach(() => {
  clientAddress += 1;
});

function call(method: string, path: string, options: { cookie?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { Origin: fixture.baseUrl, 'X-Forwarded-For': `203.0.113.${clientAddress}` };
  if (options.cookie) headers.Cookie = options.cookie;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${fixture.baseUrl}/console/api${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
}

async function problemOf(response: Response, status: number, code: string): Promise<Problem> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as Problem;
  expect(body.code).toBe(code);
  return body;
}

/** Signs the owner in now (the clock moves in some tests, and sessions end with it). */
function owner(): Promise<string> {
  return fixture.signIn('owner@example.com', PASSWORD);
}

async function invite(email: string, role: string, kbId = 'docs', cookie?: string): Promise<Response> {
  return call('POST', `/knowledge-bases/${kbId}/invitations`, { cookie: cookie ?? (await owner()), body: { email, role } });
}

/** The secret of a set-password link: the part after `#/set-password/`. */
function secretOf(invitation: Invitation): string {
  return invitation.set_password_url!.split('#/set-password/')[1]!;
}

async function members(kbId = 'docs'): Promise<MemberList['members']> {
  return ((await (await call('GET', `/knowledge-bases/${kbId}/members`, { cookie: await owner() })).json()) as MemberList).members;
}

function setPassword(token: string, password = NEW_PASSWORD): Promise<Response> {
  return call('POST', '/set-password', { body: { token, password } });
}

describe('POST /knowledge-bases/{kbId}/invitations', () => {
  test('a new email: 201 with a one-time link to the console for 7 days; the person is listed as pending and cannot sign in yet', async () => {
    // Act
    const response = await invite('  Dana@Example.com ', 'reader');

    // Assert
    expect(response.status).toBe(201);
    const invitation = (await response.json()) as Invitation;
    expect(InvitationSchema.parse(invitation)).toEqual(invitation);
    expect(invitation).toMatchObject({ email: 'dana@example.com', role: 'reader', pending: true });
    expect(invitation.set_password_url).toMatch(new RegExp(`^${fixture.baseUrl}/console#/set-password/kbp_[A-Za-z0-9_-]{43}$`));
    expect(invitation.expires_at).toBe(new Date(fixture.now() + PASSWORD_LINK_TTL_MILLISECONDS).toISOString());
    expect(await members()).toContainEqual({ user_id: invitation.user_id, email: 'dana@example.com', role: 'reader', pending: true });
    // Only the hash is stored.
    await expect(fixture.store.findPasswordLink(hashPasswordLinkSecret(secretOf(invitation)))).resolves.toMatchObject({ userId: invitation.user_id });
    await expect(fixture.store.findPasswordLink(secretOf(invitation))).resolves.toBeUndefined();
    await expect(call('POST', '/session', { body: { email: 'dana@example.com', password: NEW_PASSWORD } }).then((answer) => answer.status)).resolves.toBe(401);
  });

  test('a person whose account has a password: added at once, no link (pending false)', async () => {
    const response = await invite('reader@example.com', 'editor', 'other');

    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ user_id: fixture.users.reader.id, email: 'reader@example.com', role: 'editor', pending: false });
    expect(await members('other')).toContainEqual({ user_id: fixture.users.reader.id, email: 'reader@example.com', role: 'editor' });
  });

  test('an existing member: 409 conflict naming them and their role, their role unchanged', async () => {
    const body = await problemOf(await invite('alice@example.com', 'owner'), 409, 'conflict');

    expect(body.detail).toBe('alice@example.com is already a member of "docs" as editor; change their role in the members list instead');
    await expect(fixture.store.getRole('docs', fixture.users.alice.id)).resolves.toBe('editor');
  });

  test.each([
    ['not an email', { email: 'dana.example.com', role: 'reader' }, 'email: not an email address'],
    ['an unknown role', { email: 'erin@example.com', role: 'admin' }, 'role:'],
    ['no role', { email: 'erin@example.com' }, 'role:'],
  ])('%s: 400 invalid_request naming the field, nobody created', async (_case, body, detail) => {
    const response = await call('POST', '/knowledge-bases/docs/invitations', { cookie: await owner(), body });

    expect((await problemOf(response, 400, 'invalid_request')).detail).toContain(detail);
    await expect(fixture.store.findUserByEmail('erin@example.com')).resolves.toBeUndefined();
  });

  test('an editor or a reader: 403 forbidden; not a member: 404; nobody created or added', async () => {
    const alice = await fixture.signIn('alice@example.com', PASSWORD);
    const reader = await fixture.signIn('reader@example.com', PASSWORD);

    await problemOf(await invite('frank@example.com', 'reader', 'docs', alice), 403, 'forbidden');
    await problemOf(await invite('frank@example.com', 'reader', 'docs', reader), 403, 'forbidden');
    await problemOf(await invite('frank@example.com', 'reader', 'other', alice), 404, 'not_found');
    await expect(fixture.store.findUserByEmail('frank@example.com')).resolves.toBeUndefined();
  });

  test('a pending member of another knowledge base the owner owns too: added with a new link that replaces the old one', async () => {
    const first = (await (await invite('gina@example.com', 'reader', 'docs')).json()) as Invitation;

    const again = (await (await invite('gina@example.com', 'editor', 'other')).json()) as Invitation;

    expect(again).toMatchObject({ user_id: first.user_id, role: 'editor', pending: true });
    await problemOf(await setPassword(secretOf(first)), 410, 'invalid_link');
    expect((await setPassword(secretOf(again))).status).toBe(204);
  });

  test('a pending member of a knowledge base the owner does not own: added, but no link (it would hand over that membership too)', async () => {
    // Arrange: carol owns only "third"; bob is a pending editor of "docs"
    const carol = await fixture.store.createUser({ email: 'carol@example.com', name: 'Carol' });
    await fixture.store.setPasswordHash(carol.id, await hashPassword(PASSWORD));
    await fixture.store.createKnowledgeBase({ id: 'third', name: 'Third' });
    await fixture.store.setRole('third', carol.id, 'owner');
    const carolCookie = await fixture.signIn('carol@example.com', PASSWORD);

    // Act
    const response = await invite('bob@example.com', 'reader', 'third', carolCookie);
    const newLink = await call('POST', `/knowledge-bases/third/members/${fixture.users.bob.id}/password-link`, { cookie: carolCookie, body: {} });

    // Assert
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ user_id: fixture.users.bob.id, email: 'bob@example.com', role: 'reader', pending: true });
    expect((await problemOf(newLink, 403, 'forbidden')).detail).toBe(
      'bob@example.com is also a member of knowledge bases you do not own; only an owner of all of them can create a set-password link for them',
    );
  });
});

describe('the set-password link', () => {
  test('check names the account; set-password sets it and signs in; the person then uses the console and signs in with it', async () => {
    // Arrange
    const invitation = (await (await invite('hana@example.com', 'reader')).json()) as Invitation;

    // Act
    const check = await call('POST', '/set-password/check', { body: { token: secretOf(invitation) } });
    const response = await setPassword(secretOf(invitation));

    // Assert
    expect(await check.json()).toEqual({ email: 'hana@example.com', expires_at: invitation.expires_at });
    expect(response.status).toBe(204);
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('kbw_session='))!.split(';')[0]!;
    const knowledgeBases = await call('GET', '/knowledge-bases', { cookie });
    expect(await knowledgeBases.json()).toEqual({ knowledge_bases: [{ id: 'docs', name: 'Docs', role: 'reader' }] });
    expect(await members()).toContainEqual({ user_id: invitation.user_id, email: 'hana@example.com', role: 'reader' });
    await expect(fixture.signIn('hana@example.com', NEW_PASSWORD)).resolves.toMatch(/^kbw_session=/);
  });

  test('works once: used again, 410 saying so, and the password chosen first still holds', async () => {
    const invitation = (await (await invite('ivan@example.com', 'reader')).json()) as Invitation;
    expect((await setPassword(secretOf(invitation))).status).toBe(204);

    const again = await setPassword(secretOf(invitation), 'another password, long enough');

    expect((await problemOf(again, 410, 'invalid_link')).detail).toBe('This set-password link has already been used; sign in with the password chosen then');
    expect(again.headers.getSetCookie()).toEqual([]);
    await expect(fixture.signIn('ivan@example.com', NEW_PASSWORD)).resolves.toMatch(/^kbw_session=/);
  });

  test('expired after 7 days: check and set-password both 410, no password set; a new link from the owner works', async () => {
    // Arrange
    const invitation = (await (await invite('jane@example.com', 'reader')).json()) as Invitation;
    fixture.advance(PASSWORD_LINK_TTL_MILLISECONDS);

    // Act
    const check = await call('POST', '/set-password/check', { body: { token: secretOf(invitation) } });
    const response = await setPassword(secretOf(invitation));
    const renewed = await call('POST', `/knowledge-bases/docs/members/${invitation.user_id}/password-link`, { cookie: await owner(), body: {} });

    // Assert
    expect((await problemOf(check, 410, 'invalid_link')).detail).toBe('This set-password link has expired; ask the owner who invited you for a new link');
    await problemOf(response, 410, 'invalid_link');
    await expect(fixture.store.getPasswordHash(invitation.user_id)).resolves.toBeUndefined();
    expect(renewed.status).toBe(201);
    expect((await setPassword(secretOf((await renewed.json()) as Invitation))).status).toBe(204);
  });

  test('a newer link for the same person: the older one is refused as replaced, the newer one works', async () => {
    const invitation = (await (await invite('kim@example.com', 'reader')).json()) as Invitation;

    const renewed = await call('POST', `/knowledge-bases/docs/members/${invitation.user_id}/password-link`, { cookie: await owner(), body: {} });
    const older = await setPassword(secretOf(invitation));

    const newer = (await renewed.json()) as Invitation;
    expect(InvitationSchema.parse(newer)).toEqual(newer);
    expect(newer).toMatchObject({ user_id: invitation.user_id, email: 'kim@example.com', role: 'reader', pending: true });
    expect(secretOf(newer)).not.toBe(secretOf(invitation));
    expect((await problemOf(older, 410, 'invalid_link')).detail).toMatch(/^This set-password link was replaced by a newer one/);
    expect((await setPassword(secretOf(newer))).status).toBe(204);
  });

  test('an unknown link: 404 invalid_link, nothing set', async () => {
    const response = await setPassword(`kbp_${'A'.repeat(43)}`);

    expect((await problemOf(response, 404, 'invalid_link')).detail).toMatch(/^This set-password link is not valid/);
  });

  test('a password of 11 characters: 400 with the policy sentence, and the link still works', async () => {
    const invitation = (await (await invite('lena@example.com', 'reader')).json()) as Invitation;

    const short = await setPassword(secretOf(invitation), 'elevenchars');

    expect((await problemOf(short, 400, 'invalid_request')).detail).toBe('Password must be at least 12 characters long; this one has 11');
    expect((await setPassword(secretOf(invitation))).status).toBe(204);
  });

  test('a new link for a member who has a password: 409; for someone not a member: 404; from an editor: 403', async () => {
    const cookie = await owner();
    const alice = await fixture.signIn('alice@example.com', PASSWORD);

    await problemOf(await call('POST', `/knowledge-bases/docs/members/${fixture.users.alice.id}/password-link`, { cookie, body: {} }), 409, 'conflict');
    await problemOf(await call('POST', '/knowledge-bases/docs/members/usr_nobody/password-link', { cookie, body: {} }), 404, 'not_found');
    await problemOf(await call('POST', `/knowledge-bases/docs/members/${fixture.users.bob.id}/password-link`, { cookie: alice, body: {} }), 403, 'forbidden');
  });

  test('from another site: 403 cross_site_request, the link not used', async () => {
    const invitation = (await (await invite('mia@example.com', 'reader')).json()) as Invitation;

    const response = await fetch(`${fixture.baseUrl}/console/api/set-password`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://evil.test' },
      body: JSON.stringify({ token: secretOf(invitation), password: NEW_PASSWORD }),
    });

    await problemOf(response, 403, 'cross_site_request');
    expect((await setPassword(secretOf(invitation))).status).toBe(204);
  });

  test('10 failed attempts from one client: the 11th is 429 with Retry-After, even with a good link; another client is not held up', async () => {
    const invitation = (await (await invite('nina@example.com', 'reader')).json()) as Invitation;
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect((await call('POST', '/set-password/check', { body: { token: `kbp_guess${attempt}` } })).status).toBe(404);
    }

    const limited = await setPassword(secretOf(invitation));
    clientAddress += 1;
    const elsewhere = await setPassword(secretOf(invitation));

    expect((await problemOf(limited, 429, 'rate_limited')).detail).toMatch(/^Too many failed set-password attempts from this client: at most 10 in 15 minutes/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(elsewhere.status).toBe(204);
  });

  test('no log line holds a link secret', async () => {
    const invitation = (await (await invite('olga@example.com', 'reader')).json()) as Invitation;
    await call('POST', '/set-password/check', { body: { token: secretOf(invitation) } });
    await setPassword(secretOf(invitation));
    await setPassword(secretOf(invitation));

    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(secretOf(invitation));
  });
});

test('the OpenAPI document names the invitation, link and set-password routes with their schemas', () => {
  const paths = OPENAPI_DOCUMENT.paths as unknown as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>>;

  expect(paths['/console/api/knowledge-bases/{kbId}/invitations']?.post?.responses['201']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/Invitation');
  expect(paths['/console/api/knowledge-bases/{kbId}/members/{userId}/password-link']?.post?.responses['201']?.content?.['application/json']?.schema.$ref).toBe(
    '#/components/schemas/Invitation',
  );
  expect(paths['/console/api/set-password/check']?.post?.responses['200']?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/PasswordLink');
  expect(paths['/console/api/set-password']?.post?.responses['204']).toBeDefined();
});
