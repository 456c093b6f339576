import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Citation, StreamFrame } from '../protocol/query-protocol.ts';
import { createWidgetFixture } from '../server/testing/widget-fixture.ts';
import { askQuestion, MAX_BUFFER_SIZE, type AskOptions } from './answer-stream.ts';

/** Servers started by the current test; closed, with their connections, after it. */
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** What a scripted server saw of one request. */
interface ReceivedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * Starts a `node:http` server on an ephemeral port of 127.0.0.1 that reads
 * each request's body, then hands the request to `script`.
 *
 * @returns the base URL (no trailing slash) and the requests it received
 */
async function startServer(
  script: (response: ServerResponse, request: IncomingMessage) => void | Promise<void>,
): Promise<{ baseUrl: string; requests: ReceivedRequest[] }> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      void script(response, request);
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** Opens an event stream the way the kb-widget server does (server/api/sse-writer.ts). */
function openStream(response: ServerResponse): void {
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  });
  response.flushHeaders();
}

/** Encodes one event as the kb-widget server does: `event: <type>\ndata: <json>\n\n`. */
function encodeEvent(frame: { type: string } & Record<string, unknown>, event: string = frame.type): string {
  return `event: ${event}\ndata: ${JSON.stringify(frame)}\n\n`;
}

/** A server that answers every request with `text` as an event stream, then ends. */
function streamOf(text: string) {
  return (response: ServerResponse) => {
    openStream(response);
    response.end(text);
  };
}

/** Resolves when the server sees the client close the request's connection before the response ended. */
function closedByClient(response: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => response.once('close', () => resolve(!response.writableFinished)));
}

/** A promise with its resolver, to hand values from a server handler to the test. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Asks a question of `baseUrl`, collecting the frames delivered. */
async function ask(baseUrl: string, overrides: Partial<AskOptions> = {}) {
  const frames: StreamFrame[] = [];
  const outcome = await askQuestion({
    baseUrl,
    kbId: 'docs',
    token: 'kbw_test',
    question: 'How do I create a directory?',
    signal: new AbortController().signal,
    onFrame: (frame) => frames.push(frame),
    ...overrides,
  });
  return { outcome, frames };
}

/** Writes a problem+json refusal as the kb-widget server does (server/http/problem.ts). */
function refuse(status: number, code: string, detail: string, headers: Record<string, string> = {}) {
  return (response: ServerResponse) => {
    response.writeHead(status, { 'Content-Type': 'application/problem+json; charset=utf-8', ...headers });
    response.end(JSON.stringify({ type: `urn:kb-widget:problem:${code}`, title: 'Refused', status, detail, code }));
  };
}

const CITATION: Citation = { index: 1, doc_id: 'guide.md', kb_id: 'docs', source_span: { ref: 'opaque.v1' }, text: 'Use `mkdir`.' };

describe('askQuestion', () => {
  it('request: POSTs JSON {question, top_k} with the bearer token to the percent-encoded stream path', async () => {
    // Arrange
    const { baseUrl, requests } = await startServer(streamOf(encodeEvent({ type: 'done', abstained: false })));

    // Act
    await ask(`${baseUrl}/`, { kbId: 'kb/one', token: 'kbw_abc', question: 'Why?', topK: 4 });

    // Assert
    expect(requests).toHaveLength(1);
    const request = requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/kb-api/api/v1/kb/kb%2Fone/widget/query/stream');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers.accept).toBe('text/event-stream');
    expect(request.headers.authorization).toBe('Bearer kbw_abc');
    expect(JSON.parse(request.body)).toEqual({ question: 'Why?', top_k: 4 });
  });

  it('request without topK: the body carries no top_k', async () => {
    // Arrange
    const { baseUrl, requests } = await startServer(streamOf(encodeEvent({ type: 'done', abstained: false })));

    // Act
    await ask(baseUrl, { question: 'Why?' });

    // Assert
    expect(JSON.parse(requests[0]!.body)).toEqual({ question: 'Why?' });
  });

  it('tokens then citations then done: every frame delivered in order, outcome done', async () => {
    // Arrange
    const sent: StreamFrame[] = [
      { type: 'token', text: 'Use ' },
      { type: 'token', text: '`mkdir` [1].' },
      { type: 'citations', citations: [CITATION] },
      { type: 'suggestions', questions: ['How do I read a file?'] },
      { type: 'done', abstained: false },
    ];
    const { baseUrl } = await startServer(streamOf(`: ping\n\n${sent.map((frame) => encodeEvent({ ...frame })).join('')}`));

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual(sent);
    expect(outcome).toEqual({ kind: 'done', abstained: false });
  });

  it('citations with a title and a url: kept; empty or mistyped ones dropped, the citation kept', async () => {
    // Arrange
    const titled = { ...CITATION, title: 'File system › fs.mkdir()', url: 'https://docs.example.com/fs#fs-mkdir' };
    const { baseUrl } = await startServer(
      streamOf(
        encodeEvent({ type: 'citations', citations: [titled, { ...CITATION, index: 2, title: '', url: 42 }, { ...CITATION, index: 3, title: null }] }) +
          encodeEvent({ type: 'done', abstained: false }),
      ),
    );

    // Act
    const { frames } = await ask(baseUrl);

    // Assert
    expect(frames[0]).toEqual({ type: 'citations', citations: [titled, { ...CITATION, index: 2 }, { ...CITATION, index: 3 }] });
  });

  it('reset mid-answer: the reset frame is delivered between the withdrawn and the new tokens', async () => {
    // Arrange
    const sent: StreamFrame[] = [
      { type: 'token', text: 'Wrong [2].' },
      { type: 'reset' },
      { type: 'token', text: 'Right [1].' },
      { type: 'citations', citations: [CITATION] },
      { type: 'done', abstained: false },
    ];
    const { baseUrl } = await startServer(streamOf(sent.map((frame) => encodeEvent({ ...frame })).join('')));

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual(sent);
    expect(outcome).toEqual({ kind: 'done', abstained: false });
  });

  it('abstain after tokens: abstain then done delivered, outcome done with abstained true', async () => {
    // Arrange
    const sent: StreamFrame[] = [
      { type: 'token', text: 'The capital is' },
      { type: 'abstain', answer: 'I could not find this in the knowledge base.' },
      { type: 'done', abstained: true },
    ];
    const { baseUrl } = await startServer(streamOf(sent.map((frame) => encodeEvent({ ...frame })).join('')));

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual(sent);
    expect(outcome).toEqual({ kind: 'done', abstained: true });
  });

  it('error frame mid-answer: frames before it and the error delivered, outcome error with its code and message', async () => {
    // Arrange
    const sent: StreamFrame[] = [
      { type: 'citations', citations: [CITATION] },
      { type: 'token', text: 'Use `mkdir`' },
      { type: 'error', code: 'timeout', message: 'The answer took longer than 30 seconds' },
    ];
    const { baseUrl } = await startServer(streamOf(sent.map((frame) => encodeEvent({ ...frame })).join('')));

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual(sent);
    expect(outcome).toEqual({ kind: 'error', code: 'timeout', message: 'The answer took longer than 30 seconds' });
  });

  it('stream ending without a terminal frame: frames delivered, outcome interrupted', async () => {
    // Arrange
    const { baseUrl } = await startServer(
      streamOf(`${encodeEvent({ type: 'token', text: 'Use ' })}${encodeEvent({ type: 'token', text: 'mkdir' })}event: done\ndata: {"type":"do`),
    );

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual([
      { type: 'token', text: 'Use ' },
      { type: 'token', text: 'mkdir' },
    ]);
    expect(outcome).toEqual({ kind: 'interrupted' });
  });

  it('connection destroyed mid-stream: outcome interrupted', async () => {
    // Arrange
    const { baseUrl } = await startServer((response) => {
      openStream(response);
      response.write(encodeEvent({ type: 'token', text: 'Use ' }), () => setTimeout(() => response.destroy(), 20));
    });

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual([{ type: 'token', text: 'Use ' }]);
    expect(outcome).toEqual({ kind: 'interrupted' });
  });

  it('unknown events, malformed JSON, mismatched type and wrong field types: all ignored, valid frames delivered', async () => {
    // Arrange
    const { baseUrl } = await startServer(
      streamOf(
        [
          encodeEvent({ type: 'progress', percent: 50 }),
          'event: token\ndata: {"type":"token","text":\n\n',
          'data: {"type":"token","text":"no event name"}\n\n',
          encodeEvent({ type: 'citations', citations: [] }, 'token'),
          encodeEvent({ type: 'token', text: 42 }),
          encodeEvent({ type: 'citations', citations: [{ ...CITATION, index: '1' }] }),
          encodeEvent({ type: 'suggestions', questions: ['ok', 7] }),
          encodeEvent({ type: 'done', abstained: 'no' }),
          encodeEvent({ type: 'error', code: 'timeout' }),
          'event: token\ndata: "just a string"\n\n',
          encodeEvent({ type: 'token', text: 'kept', extra: true }),
          encodeEvent({ type: 'done', abstained: false }),
        ].join(''),
      ),
    );

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual([
      { type: 'token', text: 'kept' },
      { type: 'done', abstained: false },
    ]);
    expect(outcome).toEqual({ kind: 'done', abstained: false });
  });

  it('done with a provenance: kept when it is one of the three, dropped when unknown or not a string', async () => {
    for (const [sent, kept] of [
      ['qa_shortcut', { provenance: 'qa_shortcut' }],
      ['guessed', {}],
      [7, {}],
    ] as const) {
      const { baseUrl } = await startServer(streamOf(encodeEvent({ type: 'done', abstained: false, provenance: sent })));

      const { frames } = await ask(baseUrl);

      expect(frames).toEqual([{ type: 'done', abstained: false, ...kept }]);
    }
  });

  it('frames after done while the server keeps the stream open: none delivered, body cancelled', async () => {
    // Arrange
    const clientClosed = deferred<boolean>();
    const { baseUrl } = await startServer((response) => {
      openStream(response);
      void closedByClient(response).then(clientClosed.resolve);
      response.write(
        encodeEvent({ type: 'token', text: 'Answer.' }) +
          encodeEvent({ type: 'done', abstained: false }) +
          encodeEvent({ type: 'token', text: 'After done.' }) +
          encodeEvent({ type: 'error', code: 'internal', message: 'After done' }),
      );
    });

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual([
      { type: 'token', text: 'Answer.' },
      { type: 'done', abstained: false },
    ]);
    expect(outcome).toEqual({ kind: 'done', abstained: false });
    expect(await clientClosed.promise).toBe(true);
  });

  it('stream written one byte at a time, multi-byte characters and pings included: same frames as written whole', async () => {
    // Arrange
    const sent: StreamFrame[] = [
      { type: 'citations', citations: [CITATION] },
      { type: 'token', text: 'Créez le répertoire → ' },
      { type: 'token', text: '😀 `fs.mkdir()` [1]\nnext line' },
      { type: 'suggestions', questions: ['Qu’est-ce qu’un flux ?'] },
      { type: 'done', abstained: false },
    ];
    const bytes = Buffer.from(`: ping\n\n${sent.map((frame) => encodeEvent({ ...frame })).join(': ping\n\n')}`, 'utf8');
    const { baseUrl } = await startServer(async (response) => {
      openStream(response);
      for (const byte of bytes) {
        await new Promise<void>((resolve) => response.write(Buffer.of(byte), () => resolve()));
      }
      response.end();
    });

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(frames).toEqual(sent);
    expect(outcome).toEqual({ kind: 'done', abstained: false });
  });

  it('401 token_expired problem+json: outcome refused with status and code', async () => {
    // Arrange
    const { baseUrl } = await startServer(
      refuse(401, 'token_expired', 'Token expired at 2026-01-15T13:00:00.000Z', { 'WWW-Authenticate': 'Bearer error="invalid_token"' }),
    );

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(outcome).toEqual({ kind: 'refused', status: 401, code: 'token_expired' });
    expect(frames).toEqual([]);
  });

  it('403 origin_not_allowed problem+json: outcome refused with code origin_not_allowed', async () => {
    // Arrange
    const { baseUrl } = await startServer(refuse(403, 'origin_not_allowed', 'Origin "http://127.0.0.1:5173" is not allowed for this token'));

    // Act
    const { outcome } = await ask(baseUrl);

    // Assert
    expect(outcome).toEqual({
      kind: 'refused',
      status: 403,
      code: 'origin_not_allowed',
    });
  });

  it('429 with Retry-After: 7: outcome refused rate_limited with retryAfterSeconds 7', async () => {
    // Arrange
    const { baseUrl } = await startServer(refuse(429, 'rate_limited', 'Too many requests', { 'Retry-After': '7' }));

    // Act
    const { outcome } = await ask(baseUrl);

    // Assert
    expect(outcome).toEqual({ kind: 'refused', status: 429, code: 'rate_limited', retryAfterSeconds: 7 });
  });

  it('503 with Retry-After as an HTTP date two minutes ahead: retryAfterSeconds about 120', async () => {
    // Arrange
    const retryAt = new Date(Date.now() + 120_000).toUTCString();
    const { baseUrl } = await startServer(refuse(503, 'unavailable', 'The store is unreachable', { 'Retry-After': retryAt }));

    // Act
    const { outcome } = await ask(baseUrl);

    // Assert
    expect(outcome).toMatchObject({ kind: 'refused', status: 503, code: 'unavailable' });
    const seconds = outcome.kind === 'refused' ? outcome.retryAfterSeconds : undefined;
    expect(seconds).toBeGreaterThanOrEqual(115);
    expect(seconds).toBeLessThanOrEqual(120);
  });

  it('429 with an unreadable Retry-After: outcome refused without retryAfterSeconds', async () => {
    // Arrange
    const { baseUrl } = await startServer(refuse(429, 'rate_limited', 'Too many requests', { 'Retry-After': 'soon' }));

    // Act
    const { outcome } = await ask(baseUrl);

    // Assert
    expect(outcome).toEqual({ kind: 'refused', status: 429, code: 'rate_limited' });
  });

  it('502 with an HTML body from a proxy: outcome refused with code unknown', async () => {
    // Arrange
    const { baseUrl } = await startServer((response) => {
      response.writeHead(502, 'Bad Gateway', { 'Content-Type': 'text/html' });
      response.end('<html><body>Bad gateway</body></html>');
    });

    // Act
    const { outcome } = await ask(baseUrl);

    // Assert
    expect(outcome).toEqual({ kind: 'refused', status: 502, code: 'unknown' });
  });

  it('200 that is not an event stream (an HTML fallback page): outcome refused with code unknown, no frames', async () => {
    // Arrange
    const { baseUrl } = await startServer((response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<!doctype html>\nevent: done\ndata: {"type":"done","abstained":false}\n\n');
    });

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(outcome).toEqual({ kind: 'refused', status: 200, code: 'unknown' });
    expect(frames).toEqual([]);
  });

  it('server unreachable (a closed port): outcome offline', async () => {
    // Arrange
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    // Act
    const { outcome } = await ask(`http://127.0.0.1:${port}`);

    // Assert
    expect(outcome).toEqual({ kind: 'offline' });
  });

  it('abort mid-stream: outcome aborted, no frame after the abort, and the server sees the request closed', async () => {
    // Arrange
    const clientClosed = deferred<boolean>();
    const { baseUrl } = await startServer((response) => {
      openStream(response);
      void closedByClient(response).then(clientClosed.resolve);
      // Two frames in one write: the second is parsed in the same chunk as the first.
      response.write(encodeEvent({ type: 'token', text: 'First' }) + encodeEvent({ type: 'token', text: 'Second' }));
      setTimeout(() => response.write(encodeEvent({ type: 'token', text: 'Third' })), 50);
    });
    const controller = new AbortController();
    const frames: StreamFrame[] = [];

    // Act
    const outcome = await askQuestion({
      baseUrl,
      kbId: 'docs',
      token: 'kbw_test',
      question: 'A long answer?',
      signal: controller.signal,
      onFrame: (frame) => {
        frames.push(frame);
        controller.abort();
      },
    });

    // Assert
    expect(outcome).toEqual({ kind: 'aborted' });
    expect(frames).toEqual([{ type: 'token', text: 'First' }]);
    expect(await clientClosed.promise).toBe(true);
  });

  it('abort while waiting for the response headers: outcome aborted', async () => {
    // Arrange
    const { baseUrl, requests } = await startServer(() => undefined);
    const controller = new AbortController();

    // Act
    const pending = ask(baseUrl, { signal: controller.signal });
    await expect.poll(() => requests.length).toBe(1);
    controller.abort();
    const { outcome } = await pending;

    // Assert
    expect(outcome).toEqual({ kind: 'aborted' });
  });

  it('idleMilliseconds, no headers ever: outcome stalled, and the server sees the request closed', async () => {
    // Arrange
    const clientClosed = deferred<boolean>();
    const { baseUrl } = await startServer((response) => void closedByClient(response).then(clientClosed.resolve));

    // Act
    const { outcome } = await ask(baseUrl, { idleMilliseconds: 200 });

    // Assert
    expect(outcome).toEqual({ kind: 'stalled' });
    expect(await clientClosed.promise).toBe(true);
  });

  it('idleMilliseconds, a token then silence: the token delivered, outcome stalled', async () => {
    // Arrange
    const { baseUrl } = await startServer((response) => {
      openStream(response);
      response.write(encodeEvent({ type: 'token', text: 'First' }));
    });

    // Act
    const { outcome, frames } = await ask(baseUrl, { idleMilliseconds: 200 });

    // Assert
    expect(outcome).toEqual({ kind: 'stalled' });
    expect(frames).toEqual([{ type: 'token', text: 'First' }]);
  });

  it('idleMilliseconds 200, heartbeats every 100 ms for 600 ms, then done: outcome done', async () => {
    // Arrange
    const { baseUrl } = await startServer(async (response) => {
      openStream(response);
      for (let count = 0; count < 6; count += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        response.write(': ping\n\n');
      }
      response.end(encodeEvent({ type: 'done', abstained: false }));
    });

    // Act
    const { outcome } = await ask(baseUrl, { idleMilliseconds: 200 });

    // Assert
    expect(outcome).toEqual({ kind: 'done', abstained: false });
  });

  it('signal already aborted: outcome aborted and no request is sent', async () => {
    // Arrange
    const { baseUrl, requests } = await startServer(streamOf(encodeEvent({ type: 'done', abstained: false })));

    // Act
    const { outcome } = await ask(baseUrl, { signal: AbortSignal.abort() });

    // Assert
    expect(outcome).toEqual({ kind: 'aborted' });
    expect(requests).toEqual([]);
  });

  it('event data beyond MAX_BUFFER_SIZE without a newline on an open stream: outcome interrupted, connection closed', async () => {
    // Arrange
    const clientClosed = deferred<boolean>();
    const { baseUrl } = await startServer((response) => {
      openStream(response);
      void closedByClient(response).then(clientClosed.resolve);
      response.write(encodeEvent({ type: 'token', text: 'Before' }));
      response.write(`event: token\ndata: {"type":"token","text":"${'a'.repeat(MAX_BUFFER_SIZE + 16)}`);
    });

    // Act
    const { outcome, frames } = await ask(baseUrl);

    // Assert
    expect(outcome).toEqual({ kind: 'interrupted' });
    expect(frames).toEqual([{ type: 'token', text: 'Before' }]);
    expect(await clientClosed.promise).toBe(true);
  });

  it('onFrame throwing: askQuestion rejects with that exception and closes the stream', async () => {
    // Arrange
    const clientClosed = deferred<boolean>();
    const { baseUrl } = await startServer((response) => {
      openStream(response);
      void closedByClient(response).then(clientClosed.resolve);
      response.write(encodeEvent({ type: 'token', text: 'First' }));
    });
    const failure = new Error('Render failed');

    // Act
    const asking = ask(baseUrl, {
      onFrame: () => {
        throw failure;
      },
    });

    // Assert
    await expect(asking).rejects.toBe(failure);
    expect(await clientClosed.promise).toBe(true);
  });

  it('real kb-widget app: the mkdir question streams tokens containing `recursive`, citations, then done', async () => {
    // Arrange
    const fixture = await createWidgetFixture();
    try {
      const { token } = await fixture.issue();

      // Act
      const { outcome, frames } = await ask(fixture.baseUrl, {
        kbId: 'docs',
        token,
        question: 'How do I create a directory together with its missing parent directories?',
      });

      // Assert
      const text = frames.map((frame) => (frame.type === 'token' ? frame.text : '')).join('');
      expect(text).toContain('`recursive`');
      const citations = frames.find((frame) => frame.type === 'citations');
      expect(citations?.citations.map((citation) => citation.doc_id)).toContain('guide.md');
      expect(frames.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
      expect(outcome).toEqual({ kind: 'done', abstained: false });
    } finally {
      await fixture.close();
    }
  });
});
