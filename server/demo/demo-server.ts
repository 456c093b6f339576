import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { issueToken } from '../auth/widget-tokens.ts';
import type { Store, TokenRecord } from '../store/store.ts';

/**
 * The demo (docs/widget.md "The demo page"): a customer-like page on its own
 * origin that embeds the widget exactly as docs/widget.md tells customers to, one
 * `<script src="{api}/widget/kb-widget.js">` tag and `<kb-widget>` elements
 * (a launcher and an inline one with starter questions).
 *
 * The page is a template (`demo/index.html`) filled at each load with the
 * API's base URL and a widget token issued by the workspace owner whose only
 * allowed origin is `http://localhost:{port}`, listed with the purpose
 * `demo`. `GET /token` hands one out for the element's `tokenProvider`. The
 * server keeps its current token (the secret exists nowhere else) and hands
 * out the same one to every load and `/token` request until it is revoked
 * or within {@link DEMO_TOKEN_RENEWAL_MINUTES} minutes of its expiry, so an
 * afternoon of reloads leaves a handful of tokens, not one per load (issue
 * 18 item 7); expired demo tokens are deleted when the next is issued.
 * Opened as
 * `http://127.0.0.1:{port}/`, the same page is a site the token does not
 * allow, and the API refuses it (403 `origin_not_allowed`).
 *
 * The page is served with a strict Content-Security-Policy, as a careful
 * customer would: scripts only from itself and the API, connections only to
 * itself and the API, no inline script or style, and Trusted Types enforced,
 * so a widget that wrote HTML from strings would fail here.
 */


/**
 * A demo token is replaced once less than this many minutes of its life are
 * left (or less than half its life, for a platform cap under 20 minutes),
 * so a page loaded now keeps a working token for a while.
 */
export const DEMO_TOKEN_RENEWAL_MINUTES = 10;

/** The project's demo folder: `index.html`, `demo.js`, `demo.css`. */
export const DEMO_PAGE_DIR = fileURLToPath(new URL('../../demo', import.meta.url));

export interface DemoServerDeps {
  store: Store;
  /** Base URL of the API serving the widget script and the answers, e.g. `http://localhost:8787` (no trailing slash). */
  apiBaseUrl: string;
  /** TCP port; 0 = any free port. */
  port: number;
  /** Interface to listen on; undefined = all interfaces (so both `localhost` and `127.0.0.1` reach the page). */
  host?: string | undefined;
  /** Issuer of the page's tokens: a user with update permission on `kbId` (the workspace owner). */
  ownerId: string;
  /** Knowledge base the page asks. */
  kbId: string;
  /** Platform cap on a token's lifetime, minutes; tokens get the default 60 minutes, or the cap if lower. */
  ttlCapMinutes: number;
  /** Clock in epoch milliseconds. */
  now: () => number;
  logger: Logger;
  /** Folder of the page and its assets; default {@link DEMO_PAGE_DIR}. */
  pageDir?: string;
}

/** Static assets of the page, by URL path: file name and content type. */
const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  '/demo.js': { file: 'demo.js', type: 'text/javascript; charset=utf-8' },
  '/demo.css': { file: 'demo.css', type: 'text/css; charset=utf-8' },
};

/**
 * Starts the demo page server.
 *
 * @returns the server, starting to listen: wait for its `listening` event,
 *   or `error` (e.g. `EADDRINUSE`)
 */
export function startDemoServer(deps: DemoServerDeps): Server {
  const pageDir = deps.pageDir ?? DEMO_PAGE_DIR;
  const apiOrigin = new URL(deps.apiBaseUrl).origin;
  const app = express();
  app.disable('x-powered-by');
  const server = createServer(app);

  /** The origin the page's tokens allow: this server as `localhost`. */
  function pageOrigin(): string {
    return `http://localhost:${(server.address() as AddressInfo).port}`;
  }

  /** The token handed out now, and its record as issued. */
  let current: Promise<{ token: string; record: TokenRecord }> | undefined;

  /** The current token while it is still good for a while and not revoked; otherwise a new one (one at a time). */
  async function pageToken(): Promise<string> {
    const pending = current;
    if (pending) {
      const held = await pending.catch(() => undefined);
      if (held && (await stillGood(held.record))) return held.token;
      // Another request replaced it meanwhile: share that one.
      if (current !== pending) return (await current!).token;
    }
    current = issueToken(
      deps.store,
      { kbId: deps.kbId, issuerId: deps.ownerId, allowedOrigins: [pageOrigin()], purpose: 'demo' },
      { ttlCapMinutes: deps.ttlCapMinutes, now: deps.now() },
    );
    return (await current).token;
  }

  async function stillGood(record: TokenRecord): Promise<boolean> {
    const lifetime = record.expiresAt - record.createdAt;
    const renewalMs = Math.min(DEMO_TOKEN_RENEWAL_MINUTES * 60_000, lifetime / 2);
    if (record.expiresAt - deps.now() <= renewalMs) return false;
    const stored = await deps.store.findTokenByHash(record.tokenHash);
    return stored !== undefined && stored.revokedAt === undefined;
  }

  app.get('/', async (_request, response) => {
    const template = await readFile(join(pageDir, 'index.html'), 'utf8');
    const port = (server.address() as AddressInfo).port;
    const page = fillTemplate(template, {
      API_BASE_URL: deps.apiBaseUrl,
      KB_ID: deps.kbId,
      WIDGET_TOKEN: await pageToken(),
      ALLOWED_ORIGIN: pageOrigin(),
      DISALLOWED_ORIGIN: `http://127.0.0.1:${port}`,
    });
    response.set({
      'Content-Security-Policy': demoContentSecurityPolicy(apiOrigin),
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
      'X-Content-Type-Options': 'nosniff',
    });
    response.type('html').send(page);
  });

  app.get('/token', async (_request, response) => {
    response.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    response.type('text/plain; charset=utf-8').send(await pageToken());
  });

  for (const [path, asset] of Object.entries(ASSETS)) {
    app.get(path, async (_request, response) => {
      const body = await readFile(join(pageDir, asset.file));
      response.set({ 'Content-Type': asset.type, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
      response.send(body);
    });
  }

  app.use((request, response) => {
    response.status(404).type('text/plain; charset=utf-8').send(`Not found: ${request.method} ${request.path}\n`);
  });
  const onError: ErrorRequestHandler = (error: unknown, request, response, _next) => {
    deps.logger.error({ err: error, path: request.path }, 'demo page failed');
    response.status(500).type('text/plain; charset=utf-8').send(`The demo page failed: ${(error as Error).message}\n`);
  };
  app.use(onError);

  server.listen({ port: deps.port, ...(deps.host === undefined ? {} : { host: deps.host }) });
  return server;
}

/**
 * The page's Content-Security-Policy (CSP Level 3, Trusted Types): the
 * widget script and its requests may reach the API origin and nothing else;
 * Lit's own Trusted Types policy (`lit-html`) is the only one allowed
 * (duplicates allowed: the script pasted twice creates it twice).
 *
 * @param apiOrigin origin of the API, e.g. `http://localhost:8787`
 */
export function demoContentSecurityPolicy(apiOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${apiOrigin}`,
    `connect-src 'self' ${apiOrigin}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types lit-html 'allow-duplicates'",
  ].join('; ');
}

/** Replaces each `%NAME%` of `template` by its value, escaped for HTML text and attribute values. */
function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/%([A-Z_]+)%/g, (placeholder, name: string) => {
    const value = values[name];
    return value === undefined ? placeholder : escapeHtml(value);
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
