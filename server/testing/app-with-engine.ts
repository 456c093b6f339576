import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp, type AppDeps } from '../app.ts';
import { issueToken } from '../auth/widget-tokens.ts';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import { createSourceSpanCodec } from '../api/source-span.ts';
import { openStore } from '../store/open-store.ts';
import { createTestStoreLocation } from './test-store.ts';

/**
 * The real app on an ephemeral port with an engine chosen by the test (a
 * pool pointed at an unreachable store, an engine with a bug, ...), a fresh
 * store on the test run's backend (server/testing/test-store.ts) with one
 * owner, the knowledge base `docs` and a server-only token for it. For tests
 * of how the HTTP layer reports engine failures.
 */
export interface AppWithEngine {
  /** Base URL of the widget endpoints of `docs`, e.g. `http://127.0.0.1:4321/kb-api/api/v1/kb/docs/widget`. */
  widgetUrl: string;
  /** A valid token for `docs`, without allowed origins (server calls). */
  token: string;
  /** The temporary folder (the store lives in it). */
  folder: string;
  /** POSTs a question to `query` or `query/stream` with the token. */
  ask(path: 'query' | 'query/stream', question?: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * @param makeEngine builds the engine, given the temporary folder
 * @param options app settings that override the test defaults (limits, stream caps)
 */
export async function startAppWithEngine(
  makeEngine: (folder: string) => AnswerEngine & { close?: () => Promise<void> },
  options: Partial<Pick<AppDeps, 'rateLimitPerIp' | 'rateLimitPerToken' | 'maxStreamsPerToken' | 'maxStreamSeconds' | 'trustedProxies' | 'sharedRateLimits'>> = {},
): Promise<AppWithEngine> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-app-test-'));
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location);
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  await store.setRole('docs', owner.id, 'owner');
  const { token } = await issueToken(store, { kbId: 'docs', issuerId: owner.id, allowedOrigins: [] }, { ttlCapMinutes: 60, now: Date.now() });
  const engine = makeEngine(folder);
  const app = createApp({
    store,
    engine,
    codec: createSourceSpanCodec('app-with-engine-secret-0123456789abcdef'),
    logger: pino({ level: 'silent' }),
    now: Date.now,
    rateLimitPerIp: 1000,
    rateLimitPerToken: 1000,
    trustedProxies: 0,
    ...options,
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const widgetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kb-api/api/v1/kb/docs/widget`;
  return {
    widgetUrl,
    token,
    folder,
    ask(path, question = 'How do I create a directory?') {
      return fetch(`${widgetUrl}/${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ question }),
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await engine.close?.();
      await store.close();
      await dispose();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
