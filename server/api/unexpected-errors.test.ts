import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import type { AnswerEngine } from '../engine/answer-engine.ts';
import { startAppWithEngine, type AppWithEngine } from '../testing/app-with-engine.ts';
import { readFrames } from '../testing/read-frames.ts';

/**
 * A programming error inside the engine (here: an engine that throws a
 * TypeError after one token) must reach the client as a 500 `internal`
 * problem without a stack trace, or, once a stream is open, as one `error`
 * frame after what was already sent.
 */
let app: AppWithEngine;

const brokenEngine: AnswerEngine = {
  async *answer() {
    yield { type: 'token', text: 'Partial' };
    throw new TypeError("Cannot read properties of undefined (reading 'score')");
  },
};

beforeAll(async () => {
  app = await startAppWithEngine(() => brokenEngine);
});

afterAll(async () => {
  await app.close();
});

test('engine bug, JSON endpoint: 500 internal problem, no stack trace or error text', async () => {
  const response = await app.ask('query');
  const text = await response.text();

  expect(response.status).toBe(500);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect((JSON.parse(text) as Problem).code).toBe('internal');
  expect(text).not.toMatch(/TypeError|reading 'score'|\.ts:\d+/);
});

test('engine bug after the first token, stream endpoint: the token, then one error frame, nothing after', async () => {
  const frames = await readFrames(await app.ask('query/stream'));

  expect(frames.map(({ frame }) => frame)).toEqual([
    { type: 'token', text: 'Partial' },
    { type: 'error', code: 'generation_failed', message: 'Generating the answer failed part-way' },
  ]);
});
