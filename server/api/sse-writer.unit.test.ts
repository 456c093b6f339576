import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import type { Citation, StreamFrame } from '../../protocol/query-protocol.ts';
import { encodeFrame, HEARTBEAT_MILLISECONDS, openEventStream } from './sse-writer.ts';

/** Servers started by the current test; closed, with their connections, after it. */
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** Starts a `node:http` server on an ephemeral port of 127.0.0.1 and returns its address. */
async function startServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<URL> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return new URL(`http://127.0.0.1:${port}/`);
}

/** A promise with its resolver, to hand values from a server handler to the test. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Everything a client parsed from a stream. */
interface Received {
  events: EventSourceMessage[];
  comments: string[];
  errors: ParseError[];
}

/**
 * Reads a fetch response as SSE until it ends, or until `stopWhen` holds
 * (then cancels the body).
 */
async function readEvents(response: Response, stopWhen?: (received: Received) => boolean): Promise<Received> {
  const received: Received = { events: [], comments: [], errors: [] };
  const parser = createParser({
    onEvent: (event) => received.events.push(event),
    onComment: (comment) => received.comments.push(comment),
    onError: (error) => received.errors.push(error),
  });
  if (response.body === null) throw new Error('Response has no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return received;
    parser.feed(value);
    if (stopWhen?.(received)) {
      await reader.cancel();
      return received;
    }
  }
}

/** The frames carried by parsed events, checking that each event name equals its frame's `type`. */
function framesOf(events: readonly EventSourceMessage[]): StreamFrame[] {
  return events.map((event) => {
    const frame = JSON.parse(event.data) as StreamFrame;
    expect(event.event).toBe(frame.type);
    return frame;
  });
}

const CITATION: Citation = { index: 1, doc_id: 'fs.md', kb_id: 'kb-1', source_span: { ref: 'opaque' }, text: 'Quoted.' };

describe('openEventStream', () => {
  it('HTTP/1.1 request gets status 200, the SSE headers and headers set before, before any frame', async () => {
    // Arrange
    const release = deferred<void>();
    const url = await startServer((_request, response) => {
      response.setHeader('Access-Control-Allow-Origin', 'https://shop.example.com');
      response.setHeader('Vary', 'Origin');
      const stream = openEventStream(response, { heartbeatMilliseconds: 60_000 });
      void release.promise.then(() => stream.finish({ type: 'done', abstained: false }));
    });

    // Act
    const response = await fetch(url);
    release.resolve();
    const received = await readEvents(response);

    // Assert
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('connection')).toBe('keep-alive');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(response.headers.get('vary')).toBe('Origin');
    expect(framesOf(received.events)).toEqual([{ type: 'done', abstained: false }]);
  }, 2_000);

  it('HTTP/1.0 request gets no Connection: keep-alive', async () => {
    // Arrange
    const url = await startServer((_request, response) => {
      void openEventStream(response).finish({ type: 'done', abstained: true });
    });
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));

    // Act
    socket.end('GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
    await once(socket, 'close');

    // Assert
    const raw = Buffer.concat(chunks).toString('utf8');
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw.toLowerCase()).not.toContain('connection: keep-alive');
    expect(raw).toContain('event: done\ndata: {"type":"done","abstained":true}\n\n');
  });

  it('HTTP/1.1 request with Connection: close: the response says close and the server closes the connection after the terminal frame', async () => {
    // Arrange
    const url = await startServer((_request, response) => {
      void openEventStream(response).finish({ type: 'done', abstained: false });
    });
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));

    // Act: the client does not end its side; only the server can close the connection
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const closedBy = await Promise.race([once(socket, 'close').then(() => 'server'), sleep(1_000).then(() => 'nobody')]);
    socket.destroy();

    // Assert
    const raw = Buffer.concat(chunks).toString('utf8');
    expect(raw.toLowerCase()).toContain('connection: close');
    expect(raw.toLowerCase()).not.toContain('connection: keep-alive');
    expect(raw).toContain('event: done\n');
    expect(closedBy).toBe('server');
  });

  it('frames sent in order arrive in order with event name equal to type, then the stream ends', async () => {
    // Arrange
    const frames: StreamFrame[] = [
      { type: 'citations', citations: [CITATION] },
      { type: 'token', text: 'Line one\nline two: "quoted" [1]' },
      { type: 'reset' },
      { type: 'abstain', answer: 'I cannot answer that.' },
      { type: 'suggestions', questions: ['How do I mount?', 'data: not a field'] },
    ];
    const sent = deferred<boolean[]>();
    const url = await startServer((_request, response) => {
      const stream = openEventStream(response);
      void (async () => {
        const results: boolean[] = [];
        for (const frame of frames) results.push(await stream.send(frame));
        await stream.finish({ type: 'done', abstained: true });
        sent.resolve(results);
      })();
    });

    // Act
    const received = await readEvents(await fetch(url));

    // Assert
    expect(await sent.promise).toEqual([true, true, true, true, true]);
    expect(framesOf(received.events)).toEqual([...frames, { type: 'done', abstained: true }]);
    expect(received.errors).toEqual([]);
  });

  it('stream after its terminal frame ignores a second terminal frame and any frame, and reports closed', async () => {
    // Arrange
    const outcome = deferred<{ closed: boolean; lateSend: boolean; lateTerminalSend: boolean }>();
    const url = await startServer((_request, response) => {
      const stream = openEventStream(response);
      void (async () => {
        await stream.send({ type: 'token', text: 'Hello' });
        await stream.finish({ type: 'done', abstained: false });
        await stream.finish({ type: 'error', code: 'internal', message: 'Too late' });
        const lateSend = await stream.send({ type: 'token', text: 'Too late' });
        const lateTerminalSend = await stream.send({ type: 'done', abstained: true });
        outcome.resolve({ closed: stream.closed, lateSend, lateTerminalSend });
      })();
    });

    // Act
    const received = await readEvents(await fetch(url));

    // Assert
    expect(framesOf(received.events)).toEqual([
      { type: 'token', text: 'Hello' },
      { type: 'done', abstained: false },
    ]);
    expect(await outcome.promise).toEqual({ closed: true, lateSend: false, lateTerminalSend: false });
  });

  it('send of a terminal error frame finishes the stream with it', async () => {
    // Arrange
    const outcome = deferred<{ written: boolean; closed: boolean }>();
    const url = await startServer((_request, response) => {
      const stream = openEventStream(response);
      void stream
        .send({ type: 'error', code: 'generation_failed', message: 'The model stopped' })
        .then((written) => outcome.resolve({ written, closed: stream.closed }));
    });

    // Act
    const received = await readEvents(await fetch(url));

    // Assert
    expect(framesOf(received.events)).toEqual([{ type: 'error', code: 'generation_failed', message: 'The model stopped' }]);
    expect(await outcome.promise).toEqual({ written: true, closed: true });
  });

  it('idle stream with a 20 ms heartbeat sends ping comments and no event', async () => {
    // Arrange
    const url = await startServer((_request, response) => {
      openEventStream(response, { heartbeatMilliseconds: 20 });
    });

    // Act
    const received = await readEvents(await fetch(url), (sofar) => sofar.comments.length >= 3);

    // Assert
    expect(received.comments.map((comment) => comment.trim())).toEqual(['ping', 'ping', 'ping']);
    expect(received.events).toEqual([]);
  });

  it('stream sending every 10 ms with a 100 ms heartbeat sends no ping comment', async () => {
    // Arrange
    const url = await startServer((_request, response) => {
      const stream = openEventStream(response, { heartbeatMilliseconds: 100 });
      void (async () => {
        for (let count = 0; count < 30; count += 1) {
          await stream.send({ type: 'token', text: `${count} ` });
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await stream.finish({ type: 'done', abstained: false });
      })();
    });

    // Act
    const received = await readEvents(await fetch(url));

    // Assert
    expect(received.events).toHaveLength(31);
    expect(received.comments).toEqual([]);
  });

  it('default heartbeat interval is 15 s', () => {
    // Assert
    expect(HEARTBEAT_MILLISECONDS).toBe(15_000);
  });

  it('client aborting its fetch aborts the signal, closes the stream and makes send resolve false', async () => {
    // Arrange
    const outcome = deferred<{ aborted: boolean; closed: boolean; sendAfterAbort: boolean }>();
    const url = await startServer((_request, response) => {
      const stream = openEventStream(response);
      void (async () => {
        await stream.send({ type: 'token', text: 'Hello' });
        await once(stream.signal, 'abort');
        const sendAfterAbort = await stream.send({ type: 'token', text: 'Nobody listens' });
        await stream.finish({ type: 'done', abstained: false });
        outcome.resolve({ aborted: stream.signal.aborted, closed: stream.closed, sendAfterAbort });
      })();
    });
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    const reader = response.body?.getReader();
    await reader?.read();

    // Act
    controller.abort();

    // Assert
    expect(await outcome.promise).toEqual({ aborted: true, closed: true, sendAfterAbort: false });
  });

  it('request socket destroyed on the server side aborts the signal and makes send resolve false', async () => {
    // Arrange
    const outcome = deferred<{ aborted: boolean; sendAfterClose: boolean }>();
    const url = await startServer((request, response) => {
      const stream = openEventStream(response);
      void (async () => {
        // Act
        request.socket.destroy();
        await once(stream.signal, 'abort');
        outcome.resolve({ aborted: stream.signal.aborted, sendAfterClose: await stream.send({ type: 'reset' }) });
      })();
    });

    // Act
    await fetch(url).catch(() => undefined);

    // Assert
    expect(await outcome.promise).toEqual({ aborted: true, sendAfterClose: false });
  });

  it('finished stream leaves its signal unaborted', async () => {
    // Arrange
    const outcome = deferred<boolean>();
    const url = await startServer((_request, response) => {
      const stream = openEventStream(response);
      response.on('close', () => outcome.resolve(stream.signal.aborted));
      void stream.finish({ type: 'done', abstained: false });
    });

    // Act
    await readEvents(await fetch(url));

    // Assert
    expect(await outcome.promise).toBe(false);
  });

  it('client that does not read makes sends wait, and all complete once it reads', async () => {
    // Arrange
    const frameCount = 200;
    const frame: StreamFrame = { type: 'token', text: 'x'.repeat(256 * 1024) };
    let resolvedSends = 0;
    const allSent = deferred<void>();
    const url = await startServer((_request, response) => {
      const stream = openEventStream(response);
      void (async () => {
        for (let count = 0; count < frameCount; count += 1) {
          if (!(await stream.send(frame))) break;
          resolvedSends += 1;
        }
        await stream.finish({ type: 'done', abstained: false });
        allSent.resolve();
      })();
    });
    const response = await fetch(url);

    // Act: wait while the client does not read until the sends stop resolving
    let previous = -1;
    let stableFor = 0;
    while (stableFor < 4) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      stableFor = resolvedSends === previous ? stableFor + 1 : 0;
      previous = resolvedSends;
    }
    const resolvedWhilePaused = resolvedSends;
    let bytes = 0;
    if (response.body === null) throw new Error('Response has no body');
    for await (const chunk of response.body) bytes += chunk.byteLength;
    await allSent.promise;

    // Assert
    expect(resolvedWhilePaused).toBeLessThan(frameCount / 2);
    expect(resolvedSends).toBe(frameCount);
    expect(bytes).toBe(frameCount * encodeFrame(frame).length + encodeFrame({ type: 'done', abstained: false }).length);
  });

  it('response whose headers were already sent is refused with an error', async () => {
    // Arrange
    const outcome = deferred<unknown>();
    const url = await startServer((_request, response) => {
      response.flushHeaders();
      try {
        openEventStream(response);
        outcome.resolve(undefined);
      } catch (error) {
        outcome.resolve(error);
      }
      response.end();
    });

    // Act
    await (await fetch(url)).text();

    // Assert
    expect(await outcome.promise).toBeInstanceOf(Error);
  });

  it('heartbeat interval of 0 ms is refused with a RangeError', async () => {
    // Arrange
    const outcome = deferred<unknown>();
    const url = await startServer((_request, response) => {
      try {
        openEventStream(response, { heartbeatMilliseconds: 0 });
        outcome.resolve(undefined);
      } catch (error) {
        outcome.resolve(error);
      }
      response.end();
    });

    // Act
    await (await fetch(url)).text();

    // Assert
    expect(await outcome.promise).toBeInstanceOf(RangeError);
  });
});
