import { once } from 'node:events';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createApp } from '../app.ts';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import { createSourceSpanCodec } from './source-span.ts';
import { openStore } from '../store/open-store.ts';
import { createTestStoreLocation, type TestStoreLocation } from '../testing/test-store.ts';
import type { Store } from '../store/store.ts';

/**
 * `GET /widget/kb-widget.js` and `.mjs` as a customer's page and a CDN see
 * them: served from the dist folder given to `createApp`, cacheable,
 * revalidated by ETag, loadable from any origin; a missing build is a 404
 * problem that says what to run.
 */
let folder: string;
let storeLocation: TestStoreLocation;
let distDir: string;
let store: Store;
let server: Server;
let baseUrl: string;

const SCRIPT = `(function(){/* kb-widget ${'x'.repeat(2000)} */customElements.get("kb-widget")})();\n`;
const MODULE = 'export const KbWidget = 1;\n';

const unusedEngine: AnswerEngine = {
  async *answer() {
    throw new Error('The widget script routes never ask a question');
  },
};

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-widget-asset-test-'));
  distDir = join(folder, 'dist');
  await mkdir(distDir);
  storeLocation = await createTestStoreLocation(folder);
  store = openStore(storeLocation.location);
  const app = createApp({
    store,
    engine: unusedEngine,
    codec: createSourceSpanCodec('widget-asset-test-secret-0123456789abcdef'),
    logger: pino({ level: 'silent' }),
    now: Date.now,
    rateLimitPerIp: 1000,
    rateLimitPerToken: 1000,
    trustedProxies: 0,
    widgetDistDir: distDir,
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(async () => {
  await writeFile(join(distDir, 'kb-widget.js'), SCRIPT);
  await writeFile(join(distDir, 'kb-widget.mjs'), MODULE);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  await storeLocation.dispose();
  await rm(folder, { recursive: true, force: true });
});

/** GET without automatic decompression (Node's fetch always sends Accept-Encoding and decodes). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${baseUrl}${path}`, { headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: incoming.statusCode ?? 0, headers: responseHeaders, body: Buffer.concat(chunks) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('GET /widget/kb-widget.js', () => {
  test('built: 200 with the file, JavaScript type, cache, CORS and CORP headers', async () => {
    const response = await get('/widget/kb-widget.js', { Origin: 'https://shop.example.com' });

    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(SCRIPT);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
  });

  test('If-None-Match with the current ETag: 304, no body, same caching headers', async () => {
    const first = await get('/widget/kb-widget.js');

    const again = await get('/widget/kb-widget.js', { 'If-None-Match': first.headers.get('etag')! });

    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('rebuilt while serving: the new file with a new ETag; the old ETag no longer matches', async () => {
    const before = await get('/widget/kb-widget.js');
    await writeFile(join(distDir, 'kb-widget.js'), `${SCRIPT}// rebuilt with a longer file\n`);

    const after = await get('/widget/kb-widget.js', { 'If-None-Match': before.headers.get('etag')! });

    expect(after.status).toBe(200);
    expect(after.body.toString()).toContain('rebuilt');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  test('Accept-Encoding gzip: the same script gzipped, smaller, its own strong ETag, Vary: Accept-Encoding', async () => {
    const plain = await get('/widget/kb-widget.js');

    const gzipped = await get('/widget/kb-widget.js', { 'Accept-Encoding': 'gzip, deflate, br' });

    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toMatch(/Accept-Encoding/i);
    expect(gzipped.body.length).toBeLessThan(plain.body.length);
    expect(gunzipSync(gzipped.body).toString()).toBe(SCRIPT);
    expect(gzipped.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(gzipped.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    const revalidated = await get('/widget/kb-widget.js', {
      'Accept-Encoding': 'gzip',
      'If-None-Match': gzipped.headers.get('etag')!,
    });
    expect(revalidated.status).toBe(304);
  });

  test('HEAD: the headers of GET, no body', async () => {
    const response = await fetch(`${baseUrl}/widget/kb-widget.js`, { method: 'HEAD', headers: { 'Accept-Encoding': 'identity' } });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(SCRIPT)));
    expect(await response.text()).toBe('');
  });

  test('not built: 404 not_found problem telling to run npm run build', async () => {
    await unlink(join(distDir, 'kb-widget.js'));

    const response = await fetch(`${baseUrl}/widget/kb-widget.js`);

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await response.json()) as Problem;
    expect(body.code).toBe('not_found');
    expect(body.detail).toContain('npm run build');
  });
});

describe('GET /widget/kb-widget.mjs', () => {
  test('built: 200 with the ES module as JavaScript, cross-origin loadable', async () => {
    const response = await get('/widget/kb-widget.mjs');

    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(MODULE);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('around the widget script', () => {
  test('another file beside the script: the JSON 404 of any unknown path', async () => {
    await writeFile(join(distDir, 'kb-widget.js.map'), '{}');

    const response = await fetch(`${baseUrl}/widget/kb-widget.js.map`);

    expect(response.status).toBe(404);
    expect(((await response.json()) as Problem).detail).toBe('No endpoint at GET /widget/kb-widget.js.map');
  });

  test('createApp without a dist folder: the script path is an ordinary 404', async () => {
    const app = createApp({
      store,
      engine: unusedEngine,
      codec: createSourceSpanCodec('widget-asset-test-secret-0123456789abcdef'),
      logger: pino({ level: 'silent' }),
      now: Date.now,
      rateLimitPerIp: 1000,
      rateLimitPerToken: 1000,
      trustedProxies: 0,
    });
    const bare = app.listen(0, '127.0.0.1');
    await once(bare, 'listening');
    try {
      const response = await fetch(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/widget/kb-widget.js`);

      expect(response.status).toBe(404);
      expect(((await response.json()) as Problem).detail).toBe('No endpoint at GET /widget/kb-widget.js');
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });
});
