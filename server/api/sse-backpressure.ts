import type { Writable } from 'node:stream';

/**
 * Writing to a response with back-pressure (Node.js streams: `write()`
 * returning false asks the writer to wait for `drain`), apart from what is
 * written: the event stream's frames and heartbeats both go through it.
 * Modelled on vercel/ai `write-to-server-response.ts`.
 */

/** A writer of text to one response that waits while the connection's buffer is full. */
export interface BackpressuredWriter {
  /**
   * Writes text; resolves true once written or buffered below the
   * high-water mark (waiting for `drain`, or `finish`, when `write()`
   * returned false), false without writing when the writer was closed or
   * the response has ended or been destroyed. Never rejects. Writes made
   * while one waits are buffered in order and resolve with it.
   */
  write(text: string): Promise<boolean>;
  /** True while a write waits for the buffer to drain. */
  readonly waiting: boolean;
  /** `performance.now()` of the last write, or of the writer's creation. */
  readonly lastWriteAt: number;
  /** Stops writing: writes waiting resolve false, later ones resolve false at once; idempotent. */
  close(): void;
}

/**
 * Starts writing to `response` (a `ServerResponse`, or any writable stream)
 * with back-pressure; listens to its `drain` and `finish` until
 * {@link BackpressuredWriter.close}.
 */
export function createBackpressuredWriter(response: Writable): BackpressuredWriter {
  let closed = false;
  let lastWriteAt = performance.now();
  let drained: Promise<boolean> | undefined;
  let resolveDrained: ((written: boolean) => void) | undefined;

  const release = (written: boolean) => {
    const resolve = resolveDrained;
    drained = undefined;
    resolveDrained = undefined;
    resolve?.(written);
  };

  /** 'drain' (buffer below the high-water mark) and 'finish' (all flushed) both let waiting writes go on. */
  const onDrain = () => release(true);

  response.on('drain', onDrain);
  response.once('finish', onDrain);

  return {
    write(text) {
      if (closed || response.writableEnded || response.destroyed) return Promise.resolve(false);
      lastWriteAt = performance.now();
      if (response.write(text)) return Promise.resolve(true);
      drained ??= new Promise<boolean>((resolve) => {
        resolveDrained = resolve;
      });
      return drained;
    },
    get waiting() {
      return drained !== undefined;
    },
    get lastWriteAt() {
      return lastWriteAt;
    },
    close() {
      if (closed) return;
      closed = true;
      response.off('drain', onDrain);
      response.off('finish', onDrain);
      release(false);
    },
  };
}
