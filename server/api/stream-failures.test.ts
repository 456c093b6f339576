import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import { createPooledAnswerEngine } from '../engine/answer-pool.ts';
import { embeddedStoreLocation, type StoreLocation } from '../store/open-store.ts';
import { startAppWithEngine, type AppWithEngine } from '../testing/app-with-engine.ts';
import { testBackend } from '../testing/test-store.ts';
import { readFrames } from '../testing/read-frames.ts';

/**
 * The answer workers cannot reach their store (embedded: its folder is a
 * regular file, so the database cannot be opened; PostgreSQL: nothing listens
 * at its port) while the token check still can: a real fault between
 * accepting a request and answering it.
 */
let app: AppWithEngine;

beforeAll(async () => {
  app = await startAppWithEngine((folder) => {
    writeFileSync(join(folder, 'not-a-folder'), 'plain file');
    const unreachable: StoreLocation =
      testBackend() === 'postgres'
        ? { kind: 'postgres', url: 'postgres://postgres@127.0.0.1:1/kb', connectionTimeoutMs: 1_000 }
        : embeddedStoreLocation(join(folder, 'not-a-folder', 'data'));
    return createPooledAnswerEngine({
      location: unreachable,
      abstentionThreshold: 0.5,
      threads: 1,
    });
  });
});

afterAll(async () => {
  await app.close();
});

test('store unreachable while answering, JSON endpoint: 503 unavailable with Retry-After', async () => {
  const response = await app.ask('query');

  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(((await response.json()) as Problem).code).toBe('unavailable');
});

test('store unreachable while answering, stream endpoint: one error frame upstream_unavailable, nothing after', async () => {
  const response = await app.ask('query/stream');
  const frames = await readFrames(response);

  expect(response.status).toBe(200);
  expect(frames.map(({ frame }) => frame)).toEqual([
    { type: 'error', code: 'upstream_unavailable', message: expect.any(String) },
  ]);
  expect(frames[0]!.event).toBe('error');
});
