import { afterEach, describe, expect, test } from 'vitest';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import { startAppWithEngine, type AppWithEngine } from '../testing/app-with-engine.ts';

/** Answers every question at once. */
const constantEngine: AnswerEngine = {
  async *answer() {
    yield { type: 'token', text: 'An answer.' };
    yield { type: 'done', abstained: false, provenance: 'generated' };
  },
};

let app: AppWithEngine | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function statusesFrom(clientAddresses: (string | undefined)[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const address of clientAddresses) {
    const response = await fetch(`${app!.widgetUrl}/query`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${app!.token}`,
        'Content-Type': 'application/json',
        ...(address === undefined ? {} : { 'X-Forwarded-For': address }),
      },
      body: JSON.stringify({ question: 'How?' }),
    });
    statuses.push(response.status);
  }
  return statuses;
}

describe('per-client-IP limit and trusted proxies', () => {
  test('behind one trusted proxy: each forwarded client address has its own limit of 2', async () => {
    app = await startAppWithEngine(() => constantEngine, { rateLimitPerIp: 2, trustedProxies: 1 });

    const statuses = await statusesFrom(['203.0.113.1', '203.0.113.1', '203.0.113.2', '203.0.113.2', '203.0.113.1']);

    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  test('with no trusted proxy: a client cannot escape its limit by sending X-Forwarded-For', async () => {
    app = await startAppWithEngine(() => constantEngine, { rateLimitPerIp: 2, trustedProxies: 0 });

    const statuses = await statusesFrom(['203.0.113.1', '203.0.113.2', '203.0.113.3']);

    expect(statuses).toEqual([200, 200, 429]);
  });

  test('behind one trusted proxy: a client spoofing an address in front of the proxy\'s is counted by the address the proxy saw', async () => {
    app = await startAppWithEngine(() => constantEngine, { rateLimitPerIp: 2, trustedProxies: 1 });

    const statuses = await statusesFrom(['198.51.100.7, 203.0.113.9', '198.51.100.8, 203.0.113.9', '198.51.100.9, 203.0.113.9']);

    expect(statuses).toEqual([200, 200, 429]);
  });
});
