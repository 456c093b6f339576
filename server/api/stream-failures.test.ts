import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createApp } from '../app.ts';
import { issueToken } from '../auth/widget-tokens.ts';
import { createPooledAnswerEngine, type PooledAnswerEngine } from '../engine/answer-pool.ts';
import { createSourceSpanCodec } from '../engine/source-span.ts';
import { embeddedStoreLocation, openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { readFrames } from '../testing/read-frames.ts';

/**
 * The answer workers cannot reach their store (its folder is a regular file,
 * so the database cannot be opened) while the token check still can: a real
 * fault between accepting a request and answering it.
 */
let folder: string;
let store: Store;
let engine: PooledAnswerEngine;
let server: Server;
let baseUrl: string;
let token: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-failure-test-'));
  store = openStore(embeddedStoreLocation(folder));
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  await store.setRole('docs', owner.id, 'owner');
  ({ token } = await issueToken(store, { kbId: 'docs', issuerId: owner.id, allowedOrigins: [] }, { ttlCapMinutes: 60, now: Date.now() }));
  await writeFile(join(folder, 'not-a-folder'), 'plain file');
  engine = createPooledAnswerEngine({
    location: embeddedStoreLocation(join(folder, 'not-a-folder', 'data')),
    abstentionThreshold: 0.5,
    threads: 1,
  });
  const app = createApp({
    store,
    engine,
    codec: createSourceSpanCodec('failure-test-secret-0123456789abcdef'),
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
  await engine.close();
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

function ask(path: string): Promise<Response> {
  return fetch(`${baseUrl}/${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question: 'How do I create a directory?' }),
  });
}

test('store unreachable while answering, JSON endpoint: 503 unavailable with Retry-After', async () => {
  const response = await ask('query');

  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(((await response.json()) as Problem).code).toBe('unavailable');
});

test('store unreachable while answering, stream endpoint: one error frame upstream_unavailable, nothing after', async () => {
  const response = await ask('query/stream');
  const frames = await readFrames(response);

  expect(response.status).toBe(200);
  expect(frames.map(({ frame }) => frame)).toEqual([
    { type: 'error', code: 'upstream_unavailable', message: expect.any(String) },
  ]);
  expect(frames[0]!.event).toBe('error');
});
