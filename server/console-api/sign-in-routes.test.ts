import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { hashSessionId } from '../http/console-session.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

const OWNER_PASSWORD = 'owner password, long enough';
const ALICE_PASSWORD = 'alice password, long enough';

let fixture: WidgetFixture;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: OWNER_PASSWORD, alice: ALICE_PASSWORD } });
});
afterAll(async () => {
  await fixture.close();
});

/** A console request from the app's own origin (unless `headers` says otherwise). */
function request(
  base: WidgetFixture,
  method: 'GET' | 'POST' | 'DELETE',
  options: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Origin: base.baseUrl, ...options.headers };
  if (options.cookie !== undefined) headers.Cookie = options.cookie;
  if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
  return fetch(`${base.baseUrl}/console/api/session`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
}

function signIn(email: string, password: string, base = fixture, headers: Record<string, string> = {}): Promise<Response> {
  return request(base, 'POST', { body: { email, password }, headers });
}

async function problemOf(response: Response, status: number, code: string): Promise<Problem> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Problem;
  expect(body).toMatchObject({ type: `urn:kb-widget:problem:${code}`, status, code });
  return body;
}

describe('POST /console/api/session', () => {
  test('right email and password: 204 without a body, then GET /session names the person', async () => {
    // Act
    const response = await signIn('owner@example.com', OWNER_PASSWORD);
    const cookie = response.headers.getSetCookie()[0]!.split(';')[0]!;
    const session = await request(fixture, 'GET', { cookie });

    // Assert
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    const { owner } = fixture.users;
    expect(await session.json()).toEqual({ user: { id: owner.id, email: owner.email, name: owner.name } });
  });

  test('email in other case with spaces around it: signed in', async () => {
    const response = await signIn('  Alice@Example.COM ', ALICE_PASSWORD);

    expect(response.status).toBe(204);
  });

  test('wrong password, unknown email, and a user with no password yet: the same 401 body', async () => {
    // Act
    const responses = await Promise.all([
      signIn('owner@example.com', 'not the owner password'),
      signIn('nobody@example.com', OWNER_PASSWORD),
      signIn('bob@example.com', 'whatever bob might type'),
    ]);

    // Assert
    const bodies = await Promise.all(responses.map((response) => problemOf(response, 401, 'unauthenticated')));
    expect(bodies[0]).toEqual({
      type: 'urn:kb-widget:problem:unauthenticated',
      title: 'Not signed in',
      status: 401,
      detail: 'The email or password is not correct',
      code: 'unauthenticated',
    });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    for (const response of responses) expect(response.headers.getSetCookie()).toEqual([]);
  });

  test('unknown email: as slow as a wrong password (a scrypt against a dummy hash)', async () => {
    // Arrange: the first attempts warm up the connection and the dummy hash
    await signIn('owner@example.com', 'warming up the server');
    const timed = async (email: string): Promise<number> => {
      const started = performance.now();
      await (await signIn(email, 'a wrong password, long')).text();
      return performance.now() - started;
    };

    // Act
    const unknownEmail = await timed('nobody@example.com');

    // Assert: a lookup alone takes about a millisecond; one scrypt with these
    // parameters (32 MiB, three passes) cannot take less than 20 ms on any
    // machine this runs on. A floor, not a ratio: machine load only makes the
    // request slower, so it cannot make this fail.
    expect(unknownEmail).toBeGreaterThan(20);
  });

  test.each([
    ['no email', { password: OWNER_PASSWORD }],
    ['a number as password', { email: 'owner@example.com', password: 12 }],
    ['an array', [1, 2]],
  ])('%s: 400 invalid_request naming the field', async (_case, body) => {
    const problem = await problemOf(await request(fixture, 'POST', { body }), 400, 'invalid_request');

    expect(problem.detail).toMatch(/^Send a JSON object \{"email": "\.\.\.", "password": "\.\.\."\}/);
  });

  test('a form-encoded body: 415 unsupported_media_type', async () => {
    const response = await request(fixture, 'POST', {
      body: `email=owner%40example.com&password=${encodeURIComponent(OWNER_PASSWORD)}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });

    await problemOf(response, 415, 'unsupported_media_type');
  });

  test('signing in again with a session cookie: a new session id, the old session deleted (no fixation)', async () => {
    // Arrange
    const first = await fixture.signIn('owner@example.com', OWNER_PASSWORD);

    // Act
    const again = await request(fixture, 'POST', { body: { email: 'owner@example.com', password: OWNER_PASSWORD }, cookie: first });

    // Assert
    const second = again.headers.getSetCookie().at(-1)!.split(';')[0]!;
    expect(again.status).toBe(204);
    expect(second).not.toBe(first);
    expect((await request(fixture, 'GET', { cookie: first })).status).toBe(401);
    expect((await request(fixture, 'GET', { cookie: second })).status).toBe(200);
  });
});

describe('GET /console/api/session', () => {
  test('no cookie: 401 unauthenticated', async () => {
    await problemOf(await request(fixture, 'GET'), 401, 'unauthenticated');
  });
});

describe('DELETE /console/api/session', () => {
  test('signed in: 204, the cookie cleared, the session deleted, the old cookie no longer works', async () => {
    // Arrange
    const cookie = await fixture.signIn('alice@example.com', ALICE_PASSWORD);

    // Act
    const response = await request(fixture, 'DELETE', { cookie });

    // Assert
    expect(response.status).toBe(204);
    const cleared = response.headers.getSetCookie()[0]!.split(/;\s*/);
    expect(cleared).toEqual(expect.arrayContaining(['kbw_session=', 'Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(cleared.find((attribute) => attribute.startsWith('Expires='))).toBe('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    await expect(fixture.store.findSession(hashSessionId(cookie.slice('kbw_session='.length)))).resolves.toBeUndefined();
    await problemOf(await request(fixture, 'GET', { cookie }), 401, 'unauthenticated');
  });

  test('not signed in: 204 all the same (signing out twice is harmless)', async () => {
    expect((await request(fixture, 'DELETE')).status).toBe(204);
  });
});

describe('sign-in attempt limits', () => {
  /** A fixture behind one trusted proxy, so each test can speak from several client addresses. */
  async function proxiedFixture(): Promise<WidgetFixture> {
    const proxied = await createWidgetFixture({ trustedProxies: 1, consolePasswords: { owner: OWNER_PASSWORD, alice: ALICE_PASSWORD } });
    onTestFinished(() => proxied.close());
    return proxied;
  }
  const from = (address: string) => ({ 'X-Forwarded-For': address });

  test('10 wrong passwords for one email from 10 addresses: the 11th attempt, even with the right password, is 429 with Retry-After', async () => {
    // Arrange
    const proxied = await proxiedFixture();
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const response = await signIn('owner@example.com', `wrong password #${attempt}`, proxied, from(`203.0.113.${attempt}`));
      expect(response.status).toBe(401);
    }

    // Act
    const limited = await signIn('owner@example.com', OWNER_PASSWORD, proxied, from('203.0.113.99'));
    const otherEmail = await signIn('alice@example.com', ALICE_PASSWORD, proxied, from('203.0.113.99'));

    // Assert
    const body = await problemOf(limited, 429, 'rate_limited');
    expect(body.detail).toMatch(/^Too many failed sign-in attempts for this email: at most 10 in 15 minutes; retry in \d+ s$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    expect(limited.headers.getSetCookie()).toEqual([]);
    expect(otherEmail.status).toBe(204);
  });

  test('10 failures from one address over several emails: the 11th attempt from it is 429, another address still signs in', async () => {
    // Arrange
    const proxied = await proxiedFixture();
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const response = await signIn(`guess${attempt}@example.com`, 'a guessed password', proxied, from('198.51.100.7'));
      expect(response.status).toBe(401);
    }

    // Act
    const limited = await signIn('owner@example.com', OWNER_PASSWORD, proxied, from('198.51.100.7'));
    const elsewhere = await signIn('owner@example.com', OWNER_PASSWORD, proxied, from('198.51.100.8'));

    // Assert
    const body = await problemOf(limited, 429, 'rate_limited');
    expect(body.detail).toMatch(/^Too many failed sign-in attempts from this client/);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(elsewhere.status).toBe(204);
  });

  test('11 successful sign-ins in a row from one address: none refused (only failures count)', async () => {
    const proxied = await proxiedFixture();

    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      statuses.push((await signIn('owner@example.com', OWNER_PASSWORD, proxied, from('192.0.2.1'))).status);
    }

    expect(new Set(statuses)).toEqual(new Set([204]));
  });
});
