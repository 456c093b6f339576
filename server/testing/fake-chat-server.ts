import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Test helper: a real HTTP server on 127.0.0.1 speaking the OpenAI chat
 * completions streaming protocol (`POST /chat/completions`, `text/event-stream`,
 * one `data: {chunk}` event per delta, a final chunk with `finish_reason`,
 * then `data: [DONE]`), each reply scripted by the test.
 */

/** A request the fake server received. */
export interface RecordedChatRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: { model?: unknown; messages?: Array<{ role: string; content: string }>; stream?: unknown; temperature?: unknown };
  /** Resolves when the client closes the connection before the reply has ended. */
  closedEarly: Promise<void>;
}

/** The reply under the test's control. */
export interface ChatReply {
  readonly response: ServerResponse;
  /** Sends 200 with the event-stream headers. */
  open(): void;
  /** Sends one chunk carrying `content`, then waits a moment so chunks travel separately. */
  delta(content: string): Promise<void>;
  /** Sends the `finish_reason: "stop"` chunk and `data: [DONE]`, and ends the response. */
  finish(): void;
  /** Cuts the connection without ending the response. */
  drop(): void;
}

export type ChatScript = (request: RecordedChatRequest, reply: ChatReply) => void | Promise<void>;

export interface FakeChatServer {
  /** Base URL to configure, e.g. `http://127.0.0.1:43123/v1`. */
  baseUrl: string;
  requests: RecordedChatRequest[];
  close(): Promise<void>;
}

/** Creates one OpenAI-style `chat.completion.chunk`. */
export function completionChunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fake-model',
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
}

/** A script that streams `deltas` and completes normally. */
export function replyWith(deltas: readonly string[]): ChatScript {
  return async (_request, reply) => {
    reply.open();
    for (const content of deltas) await reply.delta(content);
    reply.finish();
  };
}

/** Starts the fake server on an ephemeral port; `script` answers every `POST /v1/chat/completions`. */
export async function startFakeChatServer(script: ChatScript): Promise<FakeChatServer> {
  const requests: RecordedChatRequest[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const closedEarly = new Promise<void>((resolve) => {
      response.on('close', () => {
        if (!response.writableFinished) resolve();
      });
    });
    const recorded: RecordedChatRequest = {
      method: request.method,
      path: request.url,
      headers: request.headers,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedChatRequest['body'],
      closedEarly,
    };
    requests.push(recorded);
    const reply: ChatReply = {
      response,
      open() {
        response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
        response.write(`data: ${completionChunk({ role: 'assistant', content: '', refusal: null })}\n\n`);
      },
      async delta(content) {
        response.write(`data: ${completionChunk({ content })}\n\n`);
        await delay(5);
      },
      finish() {
        response.write(`data: ${completionChunk({}, 'stop')}\n\n`);
        response.end('data: [DONE]\n\n');
      },
      drop() {
        response.socket?.destroy();
      },
    };
    try {
      await script(recorded, reply);
    } catch (error) {
      // A failing script shows up as a 500 naming its error (or a cut connection once streaming).
      if (response.headersSent) response.socket?.destroy();
      else response.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
