import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import {
  createChatCompletionsClient,
  DEFAULT_MAX_TOKENS,
  MAX_RESPONSE_BYTES,
  type ChatClient,
  type ChatMessage,
} from './chat-completions-client.ts';
import { completionChunk, replyWith, startFakeChatServer, type ChatScript, type FakeChatServer } from '../../testing/fake-chat-server.ts';
import { GenerationError } from '../../errors.ts';

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'Answer from the passages.' },
  { role: 'user', content: 'Question: How do I create a directory?' },
];

let servers: FakeChatServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serve(script: ChatScript): Promise<FakeChatServer> {
  const server = await startFakeChatServer(script);
  servers.push(server);
  return server;
}

function clientFor(server: { baseUrl: string }, options: { apiKey?: string; timeoutMs?: number; maxTokens?: number } = {}): ChatClient {
  return createChatCompletionsClient({ baseUrl: server.baseUrl, model: 'fake-model', ...options });
}

/** Runs a completion to its end: the deltas received and the error it ended with, if any. */
async function complete(client: ChatClient, signal?: AbortSignal): Promise<{ deltas: string[]; error?: unknown }> {
  const deltas: string[] = [];
  try {
    for await (const delta of client.complete(MESSAGES, signal)) deltas.push(delta);
    return { deltas };
  } catch (error) {
    return { deltas, error };
  }
}

/** Whether the fake server saw its first request closed before the reply ended (waits up to a second). */
async function upstreamClosed(server: FakeChatServer): Promise<boolean> {
  const request = server.requests[0];
  if (!request) return false;
  return Promise.race([request.closedEarly.then(() => true), delay(1_000, false)]);
}

function codeOf(error: unknown): string | undefined {
  return error instanceof GenerationError ? error.code : undefined;
}

describe('createChatCompletionsClient', () => {
  test('streamed reply: yields the content deltas in order and ends at [DONE]', async () => {
    const server = await serve(replyWith(['Use ', '`mkdir`', ' [1].']));

    const { deltas, error } = await complete(clientFor(server));

    expect(error).toBeUndefined();
    expect(deltas).toEqual(['Use ', '`mkdir`', ' [1].']);
  });

  test('request: POST /chat/completions with model, messages, stream true, temperature 0 and the bearer key', async () => {
    const server = await serve(replyWith(['ok']));

    await complete(clientFor(server, { apiKey: 'sk-test-123' }));

    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe('Bearer sk-test-123');
    expect(request?.body).toEqual({ model: 'fake-model', messages: MESSAGES, stream: true, temperature: 0, max_tokens: DEFAULT_MAX_TOKENS });
  });

  test('maxTokens set: sent as max_tokens, so the model stops by itself', async () => {
    const server = await serve(replyWith(['ok']));

    await complete(clientFor(server, { maxTokens: 300 }));

    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 300 });
  });

  test('a server streaming past 4 MiB for one answer (ignoring max_tokens): generation_failed, and the request is closed', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      const chunk = `data: ${completionChunk({ content: 'x'.repeat(64 * 1024) })}\n\n`;
      while (!reply.response.destroyed && reply.response.writable) {
        if (!reply.response.write(chunk)) await once(reply.response, 'drain').catch(() => undefined);
      }
    });

    const { deltas, error } = await complete(clientFor(server));

    expect((error as GenerationError).code).toBe('generation_failed');
    expect((error as GenerationError).message).toMatch(/more than 4 MiB/);
    expect(deltas.join('').length).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(await upstreamClosed(server)).toBe(true);
  });

  test('no API key configured: no Authorization header', async () => {
    const server = await serve(replyWith(['ok']));

    await complete(clientFor(server));

    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  test('base URL with a trailing slash: still posts to {base}/chat/completions', async () => {
    const server = await serve(replyWith(['ok']));

    const { deltas } = await complete(clientFor({ baseUrl: `${server.baseUrl}/` }));

    expect(deltas).toEqual(['ok']);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });

  test('events split across network writes mid-line: parsed into the same deltas', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      const wire = `data: ${completionChunk({ content: 'Hello' })}\n\ndata: ${completionChunk({ content: ' world' })}\n\ndata: [DONE]\n\n`;
      for (const piece of [wire.slice(0, 17), wire.slice(17, 90), wire.slice(90)]) {
        reply.response.write(piece);
        await delay(5);
      }
      reply.response.end();
    });

    const { deltas, error } = await complete(clientFor(server));

    expect(error).toBeUndefined();
    expect(deltas).toEqual(['Hello', ' world']);
  });

  test('server answering 500: upstream_unavailable naming the status, no deltas', async () => {
    const server = await serve((_request, reply) => {
      reply.response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":{"message":"model crashed"}}');
    });

    const { deltas, error } = await complete(clientFor(server));

    expect(deltas).toEqual([]);
    expect(codeOf(error)).toBe('upstream_unavailable');
    expect((error as Error).message).toContain('HTTP 500');
  });

  test('nothing listening at the base URL: upstream_unavailable', async () => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    const { deltas, error } = await complete(clientFor({ baseUrl: `http://127.0.0.1:${port}/v1` }));

    expect(deltas).toEqual([]);
    expect(codeOf(error)).toBe('upstream_unavailable');
  });

  test('200 with a JSON body instead of an event stream: upstream_unavailable', async () => {
    const server = await serve((_request, reply) => {
      reply.response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"choices":[]}');
    });

    const { error } = await complete(clientFor(server));

    expect(codeOf(error)).toBe('upstream_unavailable');
  });

  test('error chunk before any text: upstream_unavailable', async () => {
    const server = await serve((_request, reply) => {
      reply.open();
      reply.response.end(`data: ${JSON.stringify({ error: { message: 'model not loaded' } })}\n\n`);
    });

    const { error } = await complete(clientFor(server));

    expect(codeOf(error)).toBe('upstream_unavailable');
    expect((error as Error).message).toContain('model not loaded');
  });

  test('connection dropped after two deltas: the two deltas, then generation_failed', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      await reply.delta('Use ');
      await reply.delta('`mkdir`');
      await delay(20);
      reply.drop();
    });

    const { deltas, error } = await complete(clientFor(server));

    expect(deltas).toEqual(['Use ', '`mkdir`']);
    expect(codeOf(error)).toBe('generation_failed');
  });

  test('stream ended cleanly after text but without [DONE] or a finish reason: generation_failed', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      await reply.delta('Use ');
      reply.response.end();
    });

    const { deltas, error } = await complete(clientFor(server));

    expect(deltas).toEqual(['Use ']);
    expect(codeOf(error)).toBe('generation_failed');
  });

  test('finish reason sent but no [DONE]: complete, no error', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      await reply.delta('Done [1].');
      reply.response.end(`data: ${completionChunk({}, 'stop')}\n\n`);
    });

    const { deltas, error } = await complete(clientFor(server));

    expect(error).toBeUndefined();
    expect(deltas).toEqual(['Done [1].']);
  });

  test('server slower than the timeout: timeout, and the request is closed', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      await reply.delta('Use ');
      await delay(2_000);
      reply.finish();
    });
    const started = Date.now();

    const { deltas, error } = await complete(clientFor(server, { timeoutMs: 150 }));

    expect(deltas).toEqual(['Use ']);
    expect(codeOf(error)).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await upstreamClosed(server)).toBe(true);
  });

  test('no headers within the timeout: timeout', async () => {
    const server = await serve(async () => {
      await delay(2_000);
    });

    const { error } = await complete(clientFor(server, { timeoutMs: 150 }));

    expect(codeOf(error)).toBe('timeout');
  });

  test('asker gone mid-stream: the upstream request is closed and the abort reason thrown, not a GenerationError', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      await reply.delta('Use ');
      await delay(2_000);
      reply.finish();
    });
    const controller = new AbortController();
    const deltas: string[] = [];

    const run = (async () => {
      for await (const delta of clientFor(server).complete(MESSAGES, controller.signal)) {
        deltas.push(delta);
        controller.abort();
      }
    })();

    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(deltas).toEqual(['Use ']);
    expect(await upstreamClosed(server)).toBe(true);
  });

  test('signal already aborted: no request is sent', async () => {
    const server = await serve(replyWith(['ok']));
    const controller = new AbortController();
    controller.abort();

    const { error } = await complete(clientFor(server), controller.signal);

    expect(error).toMatchObject({ name: 'AbortError' });
    expect(server.requests).toEqual([]);
  });

  test('consumer stopping after the first delta: the upstream request is closed', async () => {
    const server = await serve(async (_request, reply) => {
      reply.open();
      await reply.delta('Use ');
      await delay(2_000);
      reply.finish();
    });

    for await (const delta of clientFor(server).complete(MESSAGES)) {
      expect(delta).toBe('Use ');
      break;
    }

    expect(await upstreamClosed(server)).toBe(true);
  });
});
