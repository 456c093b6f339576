import type { ServerResponse } from 'node:http';
import type { DoneFrame, ErrorFrame, StreamFrame } from '../../protocol/query-protocol.ts';
import { encodeFrame, HEARTBEAT_COMMENT } from './sse-frame.ts';
import { createBackpressuredWriter } from './sse-backpressure.ts';
import { startHeartbeat } from './sse-heartbeat.ts';

export { encodeFrame };

/**
 * Server-sent events writing for the streaming endpoint (docs/specification.md "Stream
 * frames"; format from the HTML Standard, "Server-sent events",
 * section 9.2). Modelled on vercel/ai `write-to-server-response.ts`: headers
 * first, `drain` for backpressure, and the response always ended. It is
 * made of stages: the text of events is sse-frame.ts's, the idle heartbeat
 * sse-heartbeat.ts's, writing with back-pressure sse-backpressure.ts's;
 * this module opens the stream, ends it and follows its connection.
 */

/** Default interval of the `: ping` comment heartbeat, in milliseconds (docs/specification.md: every 15 s while idle). */
export const HEARTBEAT_MILLISECONDS = 15_000;


/** An open event stream on one HTTP response. */
export interface EventStream {
  /**
   * Writes one frame as `event: <type>\ndata: <json>\n\n`; resolves once
   * written or buffered below the high-water mark (waits for 'drain' when
   * write() returns false); resolves false (never throws) when the client has
   * gone or the stream has already ended. A terminal frame (`done`, `error`)
   * is handed to {@link EventStream.finish}.
   *
   * @returns true when the frame was written, false when it was dropped
   */
  send(frame: StreamFrame): Promise<boolean>;
  /**
   * Writes the terminal frame (done or error) and ends the response; a second
   * terminal frame or any frame after it is ignored (exactly one terminal
   * frame). Resolves when the response has been flushed to the connection or
   * the connection has closed; never rejects.
   */
  finish(frame: DoneFrame | ErrorFrame): Promise<void>;
  /** Aborted when the client disconnects (response 'close' before finish) - pass it to the work producing frames so it stops. */
  readonly signal: AbortSignal;
  /** True once a terminal frame was written or the connection has gone: nothing more will be written. */
  readonly closed: boolean;
}

/** Options of {@link openEventStream}. */
export interface EventStreamOptions {
  /** Idle time before a `: ping` comment is written, in milliseconds; default {@link HEARTBEAT_MILLISECONDS}. */
  heartbeatMilliseconds?: number;
}

/**
 * Opens an event stream on a response that has not been written to yet.
 *
 * Sets status 200 and the headers `Content-Type: text/event-stream;
 * charset=utf-8`, `Cache-Control: no-cache, no-transform`,
 * `X-Accel-Buffering: no` (nginx must not buffer); `Connection` is left to
 * Node's HTTP server, which keeps an HTTP/1.1 connection alive unless the
 * request said `Connection: close` (then the connection closes after the
 * terminal frame); headers already set on the response (CORS, `Vary`) are kept. The headers are flushed at once so the client sees the
 * stream open before the first frame. A `: ping` comment is written whenever
 * nothing was written for `heartbeatMilliseconds`. The stream stops writing
 * and aborts {@link EventStream.signal} when the response or its socket
 * closes before the stream finished; its timer is cleared on finish and on
 * close. The signal's reason is an `Error` saying the client closed the
 * stream. An `error` event of the response (a write to a dead connection)
 * is handled as a close, not rethrown.
 *
 * @param response a fresh response (Express's `response` is one)
 * @throws Error when the response's headers were already sent
 * @throws RangeError when `heartbeatMilliseconds` is not a positive finite number
 */
export function openEventStream(response: ServerResponse, options: EventStreamOptions = {}): EventStream {
  if (response.headersSent) {
    throw new Error('Response headers were already sent; an event stream needs a fresh response');
  }
  const heartbeatMilliseconds = options.heartbeatMilliseconds ?? HEARTBEAT_MILLISECONDS;
  if (!Number.isFinite(heartbeatMilliseconds) || heartbeatMilliseconds <= 0) {
    throw new RangeError(`Heartbeat interval ${heartbeatMilliseconds} ms is not a positive number of milliseconds`);
  }
  const controller = new AbortController();
  const request = response.req;
  const socket = request.socket;

  let finished = false;
  let gone = false;
  let stopHeartbeat = () => {};
  let completed: Promise<void> | undefined;
  const writer = createBackpressuredWriter(response);

  const writable = () => !gone && !response.writableEnded && !response.destroyed;

  const onClose = () => {
    if (gone) return;
    gone = true;
    writer.close();
    stopHeartbeat();
    socket.off('close', onClose);
    if (!response.writableFinished) {
      controller.abort(new Error('The client closed the event stream before it finished'));
    }
  };

  const finish = (frame: DoneFrame | ErrorFrame): Promise<void> => {
    if (finished) return completed ?? Promise.resolve();
    finished = true;
    stopHeartbeat();
    if (!writable()) {
      completed = Promise.resolve();
      return completed;
    }
    completed = new Promise<void>((resolve) => {
      const done = () => {
        response.off('finish', done);
        response.off('close', done);
        resolve();
      };
      response.once('finish', done);
      response.once('close', done);
      response.end(encodeFrame(frame));
    });
    return completed;
  };

  response.statusCode = 200;
  response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  response.setHeader('Cache-Control', 'no-cache, no-transform');
  response.setHeader('X-Accel-Buffering', 'no');
  response.once('close', onClose);
  response.on('error', onClose);
  socket.once('close', onClose);
  if (response.destroyed || socket.destroyed) {
    onClose();
  } else {
    response.flushHeaders();
    stopHeartbeat = startHeartbeat(heartbeatMilliseconds, {
      lastWriteAt: () => writer.lastWriteAt,
      active: () => !finished && writable(),
      busy: () => writer.waiting,
      beat: () => void writer.write(HEARTBEAT_COMMENT),
    });
  }

  return {
    send(frame) {
      if (frame.type === 'done' || frame.type === 'error') {
        if (finished || !writable()) return Promise.resolve(false);
        return finish(frame).then(() => response.writableFinished);
      }
      if (finished) return Promise.resolve(false);
      return writer.write(encodeFrame(frame));
    },
    finish,
    signal: controller.signal,
    get closed() {
      return finished || !writable();
    },
  };
}
