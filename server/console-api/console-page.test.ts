import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONSOLE_CSP } from '../../protocol/console-csp.ts';
import type { Problem } from '../../protocol/query-protocol.ts';
import { problemHandler } from '../http/problem.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { CONSOLE_ICON_PATH, CONSOLE_SCRIPT_PATH, consolePageRoutes } from './console-page.ts';

/**
 * The console page over real HTTP: the shell with its CSP and script tag,
 * the bundle from a dist folder, a missing build, and the page mounted by
 * createApp ahead of the JSON 404.
 */
const BUNDLE = 'customElements.define("kb-console-app", class extends HTMLElement {});\n';
let folder: string;
let server: Server;
let baseUrl: string;

async function listen(consoleDistDir: string | undefined): Promise<{ server: Server; baseUrl: string }> {
  const app = express();
  app.use(consolePageRoutes(consoleDistDir));
  app.use(problemHandler(pino({ level: 'silent' })));
  const started = app.listen(0, '127.0.0.1');
  await once(started, 'listening');
  return { server: started, baseUrl: `http://127.0.0.1:${(started.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-console-page-test-'));
  await writeFile(join(folder, 'console.js'), BUNDLE);
  ({ server, baseUrl } = await listen(folder));
});
afterAll(async () => {
  server.close();
  await rm(folder, { recursive: true, force: true });
});

describe('GET /console', () => {
  test('the HTML shell: strict CSP, one module script of this origin, the app element', async () => {
    const response = await fetch(`${baseUrl}/console`);
    const body = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(body).toContain(`<script type="module" src="${CONSOLE_SCRIPT_PATH}"></script>`);
    expect(body).toContain('<kb-console-app></kb-console-app>');
    expect(body.match(/<script/g)).toHaveLength(1);
  });

  test('with a trailing slash: the same shell', async () => {
    const response = await fetch(`${baseUrl}/console/`);

    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<kb-console-app>');
  });
});

describe('GET /console/console.js', () => {
  test('built: the bundle as JavaScript, revalidated, with an ETag', async () => {
    const response = await fetch(`${baseUrl}${CONSOLE_SCRIPT_PATH}`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toBe(BUNDLE);
    expect(response.headers.get('etag')).toBeTruthy();
  });

  test('not built: 404 not_found saying to run npm run build', async () => {
    const empty = await listen(join(folder, 'missing'));
    try {
      const response = await fetch(`${empty.baseUrl}${CONSOLE_SCRIPT_PATH}`);

      expect(response.status).toBe(404);
      const problem = (await response.json()) as Problem;
      expect(problem.code).toBe('not_found');
      expect(problem.detail).toContain('npm run build');
    } finally {
      empty.server.close();
    }
  });
});

describe('createApp', () => {
  let fixture: WidgetFixture;
  beforeAll(async () => {
    fixture = await createWidgetFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  test('mounts the console page ahead of the JSON 404, signed out', async () => {
    const response = await fetch(`${fixture.baseUrl}/console`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(await response.text()).toContain(CONSOLE_SCRIPT_PATH);
  });

  test('the icon the shell names: served as SVG, so the browser asks for no /favicon.ico (a 404)', async () => {
    const shell = await (await fetch(`${fixture.baseUrl}/console`)).text();
    const href = /<link rel="icon" href="([^"]+)"/.exec(shell)?.[1];

    const response = await fetch(`${fixture.baseUrl}${href ?? '/favicon.ico'}`);

    expect(href).toBe(CONSOLE_ICON_PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await response.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });
});
