import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createApp } from '../app.ts';
import { issueToken } from '../auth/widget-tokens.ts';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import { createSourceSpanCodec } from '../api/source-span.ts';
import type { Store } from '../store/store.ts';
import { openTestStore, type TestStore } from '../testing/test-store.ts';
import { SharedRateLimitStore } from './shared-rate-limit-store.ts';

const START = Date.UTC(2026, 0, 15, 12, 0, 0);
const MINUTE = 60_000;

let opened: TestStore | undefined;
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await opened?.close();
  opened = undefined;
});

describe('Store rate-limit windows', () => {
  test('hits counted in one window, a new window after it ends, undo and reset, expired windows pruned', async () => {
    opened = await openTestStore();
    const { store } = opened;

    const first = await store.hitRateLimit('ip:a', MINUTE, START);
    const second = await store.hitRateLimit('ip:a', MINUTE, START + 10_000);
    const other = await store.hitRateLimit('ip:b', MINUTE, START + 10_000);
    await store.unhitRateLimit('ip:a', START + 20_000);
    const afterUndo = await store.hitRateLimit('ip:a', MINUTE, START + 30_000);
    const nextWindow = await store.hitRateLimit('ip:a', MINUTE, START + MINUTE);
    await store.resetRateLimit('ip:a');
    const afterReset = await store.hitRateLimit('ip:a', MINUTE, START + MINUTE + 1);
    const pruned = await store.pruneRateLimits(START + MINUTE + 5_000);

    expect({ first, second, other, afterUndo, nextWindow, afterReset, pruned }).toEqual({
      first: { hits: 1, resetAt: START + MINUTE },
      second: { hits: 2, resetAt: START + MINUTE },
      other: { hits: 1, resetAt: START + 10_000 + MINUTE },
      afterUndo: { hits: 2, resetAt: START + MINUTE },
      nextWindow: { hits: 1, resetAt: START + 2 * MINUTE },
      afterReset: { hits: 1, resetAt: START + 2 * MINUTE + 1 },
      pruned: 0,
    });
    await expect(store.pruneRateLimits(START + 2 * MINUTE + 1)).resolves.toBe(2);
  });

  test('several hits counted in one write: added to the window, or starting a new one with that many', async () => {
    opened = await openTestStore();
    const { store } = opened;

    const one = await store.hitRateLimit('token:t', MINUTE, START);
    const five = await store.hitRateLimit('token:t', MINUTE, START + 1_000, 5);
    const nextWindow = await store.hitRateLimit('token:t', MINUTE, START + MINUTE, 3);

    expect({ one, five, nextWindow }).toEqual({
      one: { hits: 1, resetAt: START + MINUTE },
      five: { hits: 6, resetAt: START + MINUTE },
      nextWindow: { hits: 3, resetAt: START + 2 * MINUTE },
    });
  });

  test('200 concurrent hits on one key from two connections: counted exactly once each', async () => {
    opened = await openTestStore();
    const stores = [opened.store, opened.reopen()];

    await Promise.all(Array.from({ length: 200 }, async (_, index) => stores[index % 2]!.hitRateLimit('token:t', MINUTE, START)));

    await expect(opened.store.hitRateLimit('token:t', MINUTE, START)).resolves.toEqual({ hits: 201, resetAt: START + MINUTE });
  });
});

describe('SharedRateLimitStore', () => {
  test('hits of one key made while its write runs: counted together in the next write, each its own count; a later hit written at once', async () => {
    opened = await openTestStore();
    const writes: number[] = [];
    const counting = Object.create(opened.store) as Store;
    counting.hitRateLimit = (key, windowMs, at, hits) => {
      writes.push(hits ?? 1);
      return opened!.store.hitRateLimit(key, windowMs, at, hits);
    };
    const limits = new SharedRateLimitStore(counting, 'token:', () => START);
    limits.init({ windowMs: MINUTE } as Parameters<SharedRateLimitStore['init']>[0]);

    const together = await Promise.all([limits.increment('t'), limits.increment('t'), limits.increment('t'), limits.increment('other')]);
    const later = await limits.increment('t');

    // Each hit of "t" its own count (the group may be written before the first hit's write when that one is slow).
    expect(together.slice(0, 3).map((response) => response.totalHits).sort()).toEqual([1, 2, 3]);
    expect(together[3]!.totalHits).toBe(1);
    expect(later).toEqual({ totalHits: 4, resetTime: new Date(START + MINUTE) });
    expect(writes.sort()).toEqual([1, 1, 1, 2]);
  });

  test('a write that fails: each of its callers rejected with the store\'s error, and the next hit written again', async () => {
    opened = await openTestStore();
    let failing = true;
    const flaky = Object.create(opened.store) as Store;
    flaky.hitRateLimit = (...args) => (failing ? Promise.reject(new Error('The store is unavailable')) : opened!.store.hitRateLimit(...args));
    const limits = new SharedRateLimitStore(flaky, 'ip:', () => START);

    const failed = await Promise.allSettled([limits.increment('a'), limits.increment('a')]);
    failing = false;

    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect((await limits.increment('a')).totalHits).toBe(1);
  });
});

/** An engine that answers every question at once with a fixed sentence. */
const constantEngine: AnswerEngine = {
  async *answer() {
    yield { type: 'token', text: 'An answer.' };
    yield { type: 'done', abstained: false, provenance: 'generated' };
  },
};

/** Two apps (two replicas) on two connections to one database, sharing rate limits. */
async function twoReplicas(store: Store, other: Store, limits: { perIp: number; perToken: number }): Promise<string[]> {
  const urls: string[] = [];
  for (const replicaStore of [store, other]) {
    const app = createApp({
      store: replicaStore,
      engine: constantEngine,
      codec: createSourceSpanCodec('shared-rate-limit-test-secret-0123456789'),
      logger: pino({ level: 'silent' }),
      now: Date.now,
      rateLimitPerIp: limits.perIp,
      rateLimitPerToken: limits.perToken,
      trustedProxies: 0,
      sharedRateLimits: true,
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await once(server, 'listening');
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/kb-api/api/v1/kb/docs/widget/query`);
  }
  return urls;
}

async function tokenFor(store: Store): Promise<string> {
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  await store.setRole('docs', owner.id, 'owner');
  const { token } = await issueToken(store, { kbId: 'docs', issuerId: owner.id, allowedOrigins: [] }, { ttlCapMinutes: 60, now: Date.now() });
  return token;
}

function ask(url: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question: 'How?' }),
  });
}

describe('rate limits shared by replicas', () => {
  test('a token limited to 4 a minute, asked twice on each of two replicas: the fifth request, on either, is refused with 429 and Retry-After', async () => {
    opened = await openTestStore();
    const token = await tokenFor(opened.store);
    const [first, second] = await twoReplicas(opened.store, opened.reopen(), { perIp: 100, perToken: 4 });

    const statuses: number[] = [];
    for (const url of [first!, second!, first!, second!]) statuses.push((await ask(url, token)).status);
    const refused = await ask(second!, token);

    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as Problem).code).toBe('rate_limited');
  });

  test('a client IP limited to 3 a minute across two replicas: the fourth request is refused whichever replica gets it', async () => {
    opened = await openTestStore();
    const token = await tokenFor(opened.store);
    const [first, second] = await twoReplicas(opened.store, opened.reopen(), { perIp: 3, perToken: 100 });

    const statuses: number[] = [];
    for (const url of [first!, second!, second!, first!]) statuses.push((await ask(url, token)).status);

    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  test('adapter: keys of two limiters with different prefixes are counted apart', async () => {
    opened = await openTestStore();
    const ip = new SharedRateLimitStore(opened.store, 'widget-ip:', () => START);
    const token = new SharedRateLimitStore(opened.store, 'widget-token:', () => START);

    await ip.increment('same');
    await ip.increment('same');
    const tokenCount = await token.increment('same');

    expect(tokenCount.totalHits).toBe(1);
  });
});
