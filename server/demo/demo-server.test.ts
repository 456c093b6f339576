import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { hashToken } from '../auth/widget-tokens.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { startDemoServer } from './demo-server.ts';

/**
 * The demo page as a browser loads it from `npm start`'s second origin: the
 * real `demo/` page, a real API (the widget fixture) and real tokens.
 */
let fixture: WidgetFixture;
let demo: Server;
let demoUrl: string;
let allowedOrigin: string;

beforeAll(async () => {
  fixture = await createWidgetFixture();
  demo = startDemoServer({
    store: fixture.store,
    apiBaseUrl: fixture.baseUrl,
    port: 0,
    host: '127.0.0.1',
    ownerId: fixture.users.owner.id,
    kbId: 'docs',
    ttlCapMinutes: 1440,
    now: fixture.now,
    logger: pino({ level: 'silent' }),
  });
  await once(demo, 'listening');
  const { port } = demo.address() as AddressInfo;
  demoUrl = `http://127.0.0.1:${port}`;
  allowedOrigin = `http://localhost:${port}`;
});

afterAll(async () => {
  demo.closeAllConnections();
  await new Promise((resolve) => demo.close(resolve));
  await fixture.close();
});

/** @returns the `token` attribute values of the page's `<kb-widget>` elements */
function widgetTokens(page: string): string[] {
  return [...page.matchAll(/<kb-widget\b[^>]*\stoken="([^"]+)"/g)].map((match) => match[1]!);
}

function ask(token: string, origin: string): Promise<Response> {
  return fixture.post('query', { question: 'How do I create a directory with its missing parents?' }, { token, headers: { Origin: origin } });
}

describe('demo page GET /', () => {
  test('embeds the widget as customers do: the API script tag, a launcher and an inline element with starter questions', async () => {
    const response = await fetch(`${demoUrl}/`);
    const page = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page).toContain(`<script src="${fixture.baseUrl}/widget/kb-widget.js"></script>`);
    const elements = page.match(/<kb-widget\b[^>]*>/g) ?? [];
    expect(elements).toHaveLength(2);
    for (const element of elements) {
      expect(element).toContain(`base-url="${fixture.baseUrl}"`);
      expect(element).toContain('kb-id="docs"');
    }
    expect(elements.filter((element) => element.includes('mode="inline"'))).toHaveLength(1);
    const starters = /starter-questions='([^']*)'/.exec(page)?.[1];
    expect(JSON.parse(starters!)).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(page).not.toMatch(/%[A-Z_]+%/);
  });

  test('each load: a kbw_ demo token of the owner for this knowledge base, allowing exactly the page at localhost, for 60 minutes', async () => {
    const [token] = widgetTokens(await (await fetch(`${demoUrl}/`)).text());

    expect(token).toMatch(/^kbw_/);
    const record = await fixture.store.findTokenByHash(hashToken(token!));
    expect(record).toMatchObject({
      kbId: 'docs',
      issuerId: fixture.users.owner.id,
      allowedOrigins: [allowedOrigin],
      scope: ['public'],
      purpose: 'demo',
    });
    expect(record!.expiresAt - record!.createdAt).toBe(60 * 60_000);
  });

  test('reloads reuse the token until 10 minutes before its expiry, then one new token; the expired demo token deleted, an expired embed token kept', async () => {
    const embed = await fixture.issue({ ttlMinutes: 1 });
    const first = widgetTokens(await (await fetch(`${demoUrl}/`)).text())[0]!;
    const firstRecord = (await fixture.store.findTokenByHash(hashToken(first)))!;
    const demoTokens = async () => (await fixture.store.listTokens('docs')).filter((token) => token.purpose === 'demo');

    const reloads = await Promise.all([1, 2, 3].map(async () => widgetTokens(await (await fetch(`${demoUrl}/`)).text())[0]));
    const provided = await (await fetch(`${demoUrl}/token`)).text();
    fixture.advance(firstRecord.expiresAt - fixture.now() - 10 * 60_000 - 1);
    const stillSame = await (await fetch(`${demoUrl}/token`)).text();
    fixture.advance(2);
    const renewed = widgetTokens(await (await fetch(`${demoUrl}/`)).text())[0]!;
    const renewedAgain = await Promise.all([1, 2].map(async () => (await fetch(`${demoUrl}/token`)).text()));
    const renewedRecord = (await fixture.store.findTokenByHash(hashToken(renewed)))!;
    fixture.advance(renewedRecord.expiresAt - fixture.now() - 10 * 60_000);
    const third = await (await fetch(`${demoUrl}/token`)).text();

    expect(reloads).toEqual([first, first, first]);
    expect([provided, stillSame]).toEqual([first, first]);
    expect(renewed).not.toBe(first);
    expect(renewedAgain).toEqual([renewed, renewed]);
    expect((await ask(renewed, allowedOrigin)).status).toBe(200);
    expect(third).not.toBe(renewed);
    expect((await demoTokens()).map((token) => token.tokenHash)).toEqual([hashToken(renewed), hashToken(third)]);
    expect((await fixture.store.listTokens('docs')).map((token) => token.id)).toContain(embed.id);
  });

  test('a revoked demo token is replaced at the next load', async () => {
    const first = widgetTokens(await (await fetch(`${demoUrl}/`)).text())[0]!;
    const record = (await fixture.store.findTokenByHash(hashToken(first)))!;

    await fixture.store.revokeToken(record.id, fixture.now());
    const next = widgetTokens(await (await fetch(`${demoUrl}/`)).text())[0]!;

    expect(next).not.toBe(first);
    expect((await ask(next, allowedOrigin)).status).toBe(200);
  });

  test("the page's token: answers from http://localhost:{port}, refused from http://127.0.0.1:{port} (403 origin_not_allowed)", async () => {
    const [token] = widgetTokens(await (await fetch(`${demoUrl}/`)).text());

    const allowed = await ask(token!, allowedOrigin);
    const refused = await ask(token!, demoUrl);

    expect(allowed.status).toBe(200);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Problem).code).toBe('origin_not_allowed');
  });

  test('strict Content-Security-Policy: scripts and connections only from itself and the API, no inline code, Trusted Types', async () => {
    const response = await fetch(`${demoUrl}/`);
    const policy = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      policy.split(';').map((directive) => {
        const [name, ...values] = directive.trim().split(/\s+/);
        return [name!, values];
      }),
    );

    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'", fixture.baseUrl]);
    expect(directives.get('connect-src')).toEqual(["'self'", fixture.baseUrl]);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(directives.get('require-trusted-types-for')).toEqual(["'script'"]);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  test('no inline script: every <script> has a src the policy allows', async () => {
    const page = await (await fetch(`${demoUrl}/`)).text();
    const scripts = page.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? [];

    expect(scripts).toEqual([`<script src="${fixture.baseUrl}/widget/kb-widget.js"></script>`, '<script src="/demo.js"></script>']);
    expect(page).not.toMatch(/\son[a-z]+=/i);
    expect(page).not.toMatch(/\sstyle=/i);
  });
});

describe('demo GET /token', () => {
  test("the page's token as text, not cached, allowing exactly the page at localhost", async () => {
    const page = widgetTokens(await (await fetch(`${demoUrl}/`)).text())[0];
    const response = await fetch(`${demoUrl}/token`);
    const token = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(token).toMatch(/^kbw_[\w-]+$/);
    expect(token).toBe(page);
    expect((await fixture.store.findTokenByHash(hashToken(token)))?.allowedOrigins).toEqual([allowedOrigin]);
    expect((await ask(token, allowedOrigin)).status).toBe(200);
  });
});

describe('demo assets', () => {
  test('demo.js and demo.css with their types; anything else 404', async () => {
    const script = await fetch(`${demoUrl}/demo.js`);
    const styles = await fetch(`${demoUrl}/demo.css`);
    const missing = await fetch(`${demoUrl}/index.html`);

    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain("fetch('/token'");
    expect(styles.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(missing.status).toBe(404);
  });
});
