import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { hashSessionId, SESSION_ABSOLUTE_MILLISECONDS, SESSION_IDLE_MILLISECONDS } from './console-session.ts';

const HOUR = 60 * 60_000;
const OWNER_PASSWORD = 'owner password, long enough';
const ALICE_PASSWORD = 'alice password, long enough';

let fixture: WidgetFixture;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: OWNER_PASSWORD, alice: ALICE_PASSWORD } });
});
afterAll(async () => {
  await fixture.close();
});

function getSession(cookie?: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fixture.baseUrl}/console/api/session`, { headers: cookie === undefined ? headers : { ...headers, Cookie: cookie } });
}

function signInResponse(base: WidgetFixture, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base.baseUrl}/console/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: base.baseUrl, ...headers },
    body: JSON.stringify({ email: 'owner@example.com', password: OWNER_PASSWORD }),
  });
}

async function expectUnauthenticated(response: Response): Promise<Problem> {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Problem;
  expect(body.code).toBe('unauthenticated');
  return body;
}

describe('session cookie', () => {
  test('sign-in over http: kbw_session, 256-bit base64url id, HttpOnly, SameSite=Lax, Path=/, 7 days, not Secure', async () => {
    // Act
    const response = await signInResponse(fixture);

    // Assert
    expect(response.status).toBe(204);
    const [cookie, ...others] = response.headers.getSetCookie();
    expect(others).toEqual([]);
    const attributes = cookie!.split(/;\s*/);
    expect(attributes[0]).toMatch(/^kbw_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', `Max-Age=${7 * 24 * 3600}`]));
    expect(attributes).not.toContain('Secure');
    expect(attributes.some((attribute) => /^Domain=/i.test(attribute))).toBe(false);
  });

  test('sign-in over https behind one trusted proxy (X-Forwarded-Proto: https): the cookie is Secure', async () => {
    // Arrange
    const proxied = await createWidgetFixture({ trustedProxies: 1, consolePasswords: { owner: OWNER_PASSWORD } });
    onTestFinished(() => proxied.close());
    const publicOrigin = proxied.baseUrl.replace('http://', 'https://');

    // Act
    const response = await signInResponse(proxied, { 'X-Forwarded-Proto': 'https', Origin: publicOrigin });

    // Assert
    expect(response.status).toBe(204);
    expect(response.headers.getSetCookie()[0]!.split(/;\s*/)).toEqual(
      expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']),
    );
  });

  test('X-Forwarded-Proto: https without a trusted proxy: ignored, the cookie is not Secure', async () => {
    // Act: the header is not trusted, so the request is http and its own origin is http://…
    const response = await signInResponse(fixture, { 'X-Forwarded-Proto': 'https' });

    // Assert
    expect(response.status).toBe(204);
    expect(response.headers.getSetCookie()[0]!.split(/;\s*/)).not.toContain('Secure');
  });

  test('the store keeps the SHA-256 of the session id, never the id itself', async () => {
    // Arrange
    const cookie = await fixture.signIn('owner@example.com', OWNER_PASSWORD);
    const id = cookie.slice('kbw_session='.length);

    // Act
    const [byHash, byId] = await Promise.all([fixture.store.findSession(hashSessionId(id)), fixture.store.findSession(id)]);

    // Assert
    expect(byHash).toMatchObject({ userId: fixture.users.owner.id, createdAt: fixture.now() });
    expect(byId).toBeUndefined();
  });
});

describe('session lifetime', () => {
  test('used every 11 hours: still signed in a day later (sliding expiry)', async () => {
    // Arrange
    const cookie = await fixture.signIn('alice@example.com', ALICE_PASSWORD);

    // Act
    const statuses: number[] = [];
    for (let step = 0; step < 3; step += 1) {
      fixture.advance(11 * HOUR);
      statuses.push((await getSession(cookie)).status);
    }

    // Assert
    expect(statuses).toEqual([200, 200, 200]);
  });

  test('unused for 12 hours: signed out, the cookie cleared and the session deleted', async () => {
    // Arrange
    const cookie = await fixture.signIn('alice@example.com', ALICE_PASSWORD);
    const idHash = hashSessionId(cookie.slice('kbw_session='.length));
    fixture.advance(SESSION_IDLE_MILLISECONDS - 60_000);
    expect((await getSession(cookie)).status).toBe(200);

    // Act
    fixture.advance(SESSION_IDLE_MILLISECONDS);
    const response = await getSession(cookie);

    // Assert
    const body = await expectUnauthenticated(response);
    expect(body.detail).toBe('Sign in to use the console');
    expect(response.headers.getSetCookie()[0]).toMatch(/^kbw_session=;.*Expires=Thu, 01 Jan 1970/);
    await expect(fixture.store.findSession(idHash)).resolves.toBeUndefined();
  });

  test('used every 11 hours for 7 days: signed out at the 7-day mark all the same (absolute expiry)', async () => {
    // Arrange
    const cookie = await fixture.signIn('alice@example.com', ALICE_PASSWORD);
    const signedInAt = fixture.now();
    const statuses: number[] = [];

    // Act
    while (fixture.now() + 11 * HOUR < signedInAt + SESSION_ABSOLUTE_MILLISECONDS) {
      fixture.advance(11 * HOUR);
      statuses.push((await getSession(cookie)).status);
    }
    fixture.advance(signedInAt + SESSION_ABSOLUTE_MILLISECONDS - fixture.now());
    const atSevenDays = await getSession(cookie);

    // Assert
    expect(statuses.length).toBeGreaterThan(10);
    expect(new Set(statuses)).toEqual(new Set([200]));
    await expectUnauthenticated(atSevenDays);
  });

  test('the user is removed: their session ends with them', async () => {
    // Arrange
    const user = await fixture.store.createUser({ email: 'leaving@example.com', name: 'Leaving' });
    await fixture.store.setPasswordHash(user.id, (await fixture.store.getPasswordHash(fixture.users.alice.id))!);
    const cookie = await fixture.signIn('leaving@example.com', ALICE_PASSWORD);

    // Act
    await fixture.store.removeUser(user.id);

    // Assert
    await expectUnauthenticated(await getSession(cookie));
  });
});

describe('credentials the console does not accept', () => {
  test('a valid widget token alone on GET /console/api/session: 401 unauthenticated saying widget tokens are not accepted', async () => {
    // Arrange
    const { token } = await fixture.issue();

    // Act
    const response = await getSession(undefined, { Authorization: `Bearer ${token}` });

    // Assert
    const body = await expectUnauthenticated(response);
    expect(body.detail).toBe('Widget tokens are not accepted by the console; sign in with your email and password');
  });

  test('a valid widget token as the session cookie value: 401 unauthenticated', async () => {
    const { token } = await fixture.issue();

    await expectUnauthenticated(await getSession(`kbw_session=${token}`));
  });

  test('a well-formed but unknown session id: 401 unauthenticated and the cookie cleared', async () => {
    const response = await getSession(`kbw_session=${'A'.repeat(43)}`);

    await expectUnauthenticated(response);
    expect(response.headers.getSetCookie()[0]).toMatch(/^kbw_session=;/);
  });
});
