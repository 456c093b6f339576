import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createApp } from '../app.ts';
import { issueToken } from '../auth/widget-tokens.ts';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import { createSourceSpanCodec } from '../engine/source-span.ts';
import { embeddedStoreLocation, openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { readFrames } from '../testing/read-frames.ts';

/**
 * A programming error inside the engine (here: an engine that throws a
 * TypeError after one token) must reach the client as a 500 `internal`
 * problem without a stack trace, or, once a stream is open, as one `error`
 * frame after what was already sent.
 */
let folder: string;
let store: Store;
let server: Server;
let baseUrl: string;
let token: string;

const brokenEngine: AnswerEngine = {
  async *answer() {
    yield { type: 'token', text: 'Partial' };
    throw new TypeError("Cannot read properties of undefined (reading 'score')");
  },
};

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-internal-test-'));
  store = openStore(embeddedStoreLocation(folder));
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  await store.setRole('docs', owner.id, 'owner');
  ({ token } = await issueToken(store, { kbId: 'docs', issuerId: owner.id, allowedOrigins: [] }, { ttlCapMinutes: 60, now: Date.now() }));
  const app = createApp({
    store,
    engine: brokenEngine,
    codec: createSourceSpanCodec('internal-test-secret-0123456789abcdef'),
    logger: pino({ level: 'silent' }),
    now: Date.now,
    rateLimitPerIp: 1000,
    rateLimitPerToken: 1000,
    trustedProxies: 0,
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kb-api/api/v1/kb/docs/widget`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

function ask(path: string): Promise<Response> {
  return fetch(`${baseUrl}/${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question: 'Anything?' }),
  });
}

test('engine bug, JSON endpoint: 500 internal problem, no stack trace or error text', async () => {
  const response = await ask('query');
  const text = await response.text();

  expect(response.status).toBe(500);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect((JSON.parse(text) as Problem).code).toBe('internal');
  expect(text).not.toMatch(/TypeError|reading 'score'|\.ts:\d+/);
});

test('engine bug after the first token, stream endpoint: the token, then one error frame, nothing after', async () => {
  const frames = await readFrames(await ask('query/stream'));

  expect(frames.map(({ frame }) => frame)).toEqual([
    { type: 'token', text: 'Partial' },
    { type: 'error', code: 'generation_failed', message: 'Generating the answer failed part-way' },
  ]);
});
