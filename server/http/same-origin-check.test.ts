import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

const OWNER_PASSWORD = 'owner password, long enough';

let fixture: WidgetFixture;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: OWNER_PASSWORD } });
});
afterAll(async () => {
  await fixture.close();
});

/** A sign-in with the right credentials and exactly the given extra headers (Node's fetch adds no Origin). */
function signIn(headers: Record<string, string>, base = fixture): Promise<Response> {
  return fetch(`${base.baseUrl}/console/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ email: 'owner@example.com', password: OWNER_PASSWORD }),
  });
}

async function expectCrossSiteRefusal(response: Response): Promise<Problem> {
  expect(response.status).toBe(403);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Problem;
  expect(body).toMatchObject({ type: 'urn:kb-widget:problem:cross_site_request', title: 'Cross-site request refused', code: 'cross_site_request' });
  expect(response.headers.getSetCookie()).toEqual([]);
  return body;
}

describe('state-changing console requests from elsewhere', () => {
  test('POST with a foreign Origin: 403 cross_site_request naming both origins, no session', async () => {
    const body = await expectCrossSiteRefusal(await signIn({ Origin: 'https://evil.example' }));

    expect(body.detail).toBe(
      `Origin "https://evil.example" is not this server's origin "${fixture.baseUrl}"; console changes are accepted only from the console's own pages`,
    );
  });

  test.each([
    ['same host, another port', () => `http://127.0.0.1:1`],
    ['same host and port, https instead of http', () => fixture.baseUrl.replace('http:', 'https:')],
    ['localhost for 127.0.0.1', () => fixture.baseUrl.replace('127.0.0.1', 'localhost')],
    ['the opaque origin null', () => 'null'],
  ])('POST with Origin on %s: 403 cross_site_request', async (_case, origin) => {
    await expectCrossSiteRefusal(await signIn({ Origin: origin() }));
  });

  test.each(['cross-site', 'same-site'])('POST without Origin, Sec-Fetch-Site: %s: 403 cross_site_request', async (site) => {
    const body = await expectCrossSiteRefusal(await signIn({ 'Sec-Fetch-Site': site }));

    expect(body.detail).toContain(`Sec-Fetch-Site "${site}"`);
  });

  test('POST without Origin or Sec-Fetch-Site: 403 cross_site_request asking for an Origin header', async () => {
    const body = await expectCrossSiteRefusal(await signIn({}));

    expect(body.detail).toBe(`A POST to the console needs an Origin header naming this server ("${fixture.baseUrl}")`);
  });

  test('DELETE /session (sign-out) with a foreign Origin and a valid cookie: 403, still signed in', async () => {
    // Arrange
    const cookie = await fixture.signIn('owner@example.com', OWNER_PASSWORD);

    // Act
    const response = await fetch(`${fixture.baseUrl}/console/api/session`, {
      method: 'DELETE',
      headers: { Cookie: cookie, Origin: 'https://evil.example' },
    });

    // Assert
    await expectCrossSiteRefusal(response);
    const session = await fetch(`${fixture.baseUrl}/console/api/session`, { headers: { Cookie: cookie } });
    expect(session.status).toBe(200);
  });

  test('POST to an unknown console path with a foreign Origin: 403 before any routing', async () => {
    const response = await fetch(`${fixture.baseUrl}/console/api/anything`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example' },
    });

    await expectCrossSiteRefusal(response);
  });
});

describe('state-changing console requests from the console itself', () => {
  test('POST with the server own Origin: signed in', async () => {
    expect((await signIn({ Origin: fixture.baseUrl })).status).toBe(204);
  });

  test('POST with the own Origin in upper case: signed in (origins are compared normalized)', async () => {
    expect((await signIn({ Origin: fixture.baseUrl.toUpperCase() })).status).toBe(204);
  });

  test.each(['same-origin', 'none'])('POST without Origin, Sec-Fetch-Site: %s: signed in', async (site) => {
    expect((await signIn({ 'Sec-Fetch-Site': site })).status).toBe(204);
  });

  test('behind a trusted TLS proxy: the own origin is https (X-Forwarded-Proto), so https Origin passes and http is refused', async () => {
    // Arrange
    const proxied = await createWidgetFixture({ trustedProxies: 1, consolePasswords: { owner: OWNER_PASSWORD } });
    onTestFinished(() => proxied.close());
    const httpsOrigin = proxied.baseUrl.replace('http:', 'https:');

    // Act
    const https = await signIn({ Origin: httpsOrigin, 'X-Forwarded-Proto': 'https' }, proxied);
    const http = await signIn({ Origin: proxied.baseUrl, 'X-Forwarded-Proto': 'https' }, proxied);

    // Assert
    expect(https.status).toBe(204);
    await expectCrossSiteRefusal(http);
  });
});

describe('reads', () => {
  test('GET with a foreign Origin: not refused by the check (reads change nothing)', async () => {
    const cookie = await fixture.signIn('owner@example.com', OWNER_PASSWORD);

    const response = await fetch(`${fixture.baseUrl}/console/api/session`, { headers: { Cookie: cookie, Origin: 'https://evil.example' } });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
