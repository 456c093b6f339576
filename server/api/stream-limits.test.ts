import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, test } from 'vitest';
import type { Problem } from '../../protocol/query-protocol.ts';
import type { AnswerEngine, AnswerRequest } from '../engine/answer-engine.ts';
import type { AnswerEvent } from '../engine/answer-events.ts';
import { startAppWithEngine, type AppWithEngine } from '../testing/app-with-engine.ts';
import { readFrames } from '../testing/read-frames.ts';
import { OpenStreamCounter } from './stream-limits.ts';

/**
 * What an answer engine did: answers started, answers whose generator
 * finished (returned, thrown or closed by its consumer), and of those the
 * ones that stopped because their signal was aborted (work abandoned).
 */
interface EngineLog {
  started: number;
  ended: number;
  abandoned: number;
  tokens: number;
}

/**
 * An engine whose answers never end by themselves: a token every
 * `intervalMs` (of `tokenText`) until the request's signal aborts - like a
 * slow chat model. It honours the signal the way the real engine does.
 */
function endlessEngine(log: EngineLog, intervalMs: number, tokenText = 'word '): AnswerEngine {
  return {
    async *answer(request: AnswerRequest): AsyncGenerator<AnswerEvent> {
      log.started += 1;
      try {
        while (request.signal?.aborted !== true) {
          log.tokens += 1;
          yield { type: 'token', text: tokenText };
          await sleep(intervalMs, undefined, { signal: request.signal }).catch(() => undefined);
        }
      } finally {
        log.ended += 1;
        if (request.signal?.aborted === true) log.abandoned += 1;
      }
    },
  };
}

function newLog(): EngineLog {
  return { started: 0, ended: 0, abandoned: 0, tokens: 0 };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Opens a stream with node:http; resolves once its first frame has arrived, with the request and response. */
function openRawStream(app: AppWithEngine): Promise<{ request: ClientRequest; response: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${app.widgetUrl}/query/stream`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${app.token}`, 'Content-Type': 'application/json' },
      agent: false,
    });
    request.on('error', () => undefined);
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`status ${response.statusCode}`));
        return;
      }
      response.once('data', () => resolve({ request, response }));
    });
    request.end(JSON.stringify({ question: 'How do I create a directory?' }));
  });
}

/** Counts of the process's active resources of one kind (`Timeout`, `TCPSocketWrap`, ...). */
function activeResources(kind: string): number {
  return process.getActiveResourcesInfo().filter((name) => name === kind).length;
}

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

let app: AppWithEngine | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('OpenStreamCounter', () => {
  test('acquire up to the cap, refuse beyond it, and a released stream makes room again (twice-released counts once)', () => {
    const counter = new OpenStreamCounter(2);

    const first = counter.acquire('tok_a');
    const second = counter.acquire('tok_a');
    const third = counter.acquire('tok_a');
    const other = counter.acquire('tok_b');
    first?.();
    first?.();
    const again = counter.acquire('tok_a');

    expect({ first: !!first, second: !!second, third: !!third, other: !!other, again: !!again }).toEqual({
      first: true,
      second: true,
      third: false,
      other: true,
      again: true,
    });
    expect(counter.openStreams('tok_a')).toBe(2);
  });

  test('cap of 0 is refused with a RangeError', () => {
    expect(() => new OpenStreamCounter(0)).toThrow(RangeError);
  });
});

describe('stream endpoint limits', () => {
  test('a token at its cap of open streams: the next stream is refused with 429 rate_limited and Retry-After; once one ends, a stream opens again', async () => {
    const log = newLog();
    app = await startAppWithEngine(() => endlessEngine(log, 20), { maxStreamsPerToken: 2 });
    const first = await openRawStream(app);
    await openRawStream(app);

    const refused = await app.ask('query/stream');
    first.request.destroy();
    await until(() => log.abandoned === 1);
    const admitted = await openRawStream(app);

    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as Problem).code).toBe('rate_limited');
    expect(admitted.response.statusCode).toBe(200);
    expect(log.started).toBe(3);
  });

  test('a stream past the longest stream duration: ends with one error frame timeout after its tokens, and its work is abandoned', async () => {
    const log = newLog();
    app = await startAppWithEngine(() => endlessEngine(log, 20), { maxStreamSeconds: 0.3 });

    const response = await app.ask('query/stream');
    const frames = (await readFrames(response)).map(({ frame }) => frame);

    expect(frames.length).toBeGreaterThan(2);
    expect(frames.slice(0, -1).every((frame) => frame.type === 'token')).toBe(true);
    expect(frames.at(-1)).toEqual({ type: 'error', code: 'timeout', message: expect.stringContaining('longer than') });
    await until(() => log.ended === 1);
    expect(log.abandoned).toBe(1);
  });

  test('a client that stops reading: the producer waits instead of the server buffering, and at the deadline the connection is closed', async () => {
    const log = newLog();
    const token = 'x'.repeat(64 * 1024);
    app = await startAppWithEngine(() => endlessEngine(log, 0, token), { maxStreamSeconds: 1 });
    const { response } = await openRawStream(app);
    response.pause();

    await until(() => log.ended === 1);
    const ended = new Promise<void>((resolve) => response.socket.once('close', () => resolve()));
    response.resume();
    await ended;

    // Socket buffers on both sides hold a few MB at most; without backpressure
    // the engine would have produced thousands of 64 KB tokens in a second.
    expect(log.tokens * token.length).toBeLessThan(16 * 1024 * 1024);
    expect(log.abandoned).toBe(1);
  });

  test('1,000 clients disconnecting mid-stream: every answer abandoned, no sockets or timers left open, and memory does not grow from one round to the next', async () => {
    const log = newLog();
    app = await startAppWithEngine(() => endlessEngine(log, 250), {
      maxStreamsPerToken: 5000,
      rateLimitPerIp: 100_000,
      rateLimitPerToken: 100_000,
    });
    const baseline = { sockets: activeResources('TCPSocketWrap'), timers: activeResources('Timeout') };
    const heapAfterRound: number[] = [];

    for (let round = 1; round <= 3; round += 1) {
      const streams: { request: ClientRequest }[] = [];
      for (let batch = 0; batch < 10; batch += 1) {
        streams.push(...(await Promise.all(Array.from({ length: 100 }, async () => openRawStream(app!)))));
      }
      expect(log.started).toBe(1000 * round);
      for (const { request } of streams) request.destroy();
      await until(() => log.ended === 1000 * round);
      await until(() => activeResources('TCPSocketWrap') <= baseline.sockets && activeResources('Timeout') <= baseline.timers);
      collectGarbage();
      heapAfterRound.push(process.memoryUsage().heapUsed);
    }

    expect(log.abandoned).toBe(3000);
    // The first round warms caches and JIT; later rounds must not keep what the streams held.
    expect(heapAfterRound[2]! - heapAfterRound[1]!).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);
});
