import type { RequestHandler } from 'express';
import { problem } from '../http/problem.ts';
import type { WidgetLocals } from './widget-auth.ts';

/** Default cap on the streams one widget token may hold open at once, per server process. */
export const DEFAULT_MAX_STREAMS_PER_TOKEN = 8;

/** Default longest life of one answer stream, in seconds, after which it ends with an `error` frame `timeout`. */
export const DEFAULT_MAX_STREAM_SECONDS = 120;

/** Seconds a client refused for too many open streams is told to wait (`Retry-After`). */
const STREAM_CAP_RETRY_SECONDS = 5;

/**
 * Counts the open answer streams of each widget token in this process, so
 * that one token (one embedding site, or one copied token) cannot hold an
 * unbounded share of the server's connections and answer work.
 */
export class OpenStreamCounter {
  readonly #open = new Map<string, number>();
  /** Most streams one token may hold open at once. */
  readonly maxPerToken: number;

  /** @param maxPerToken most streams one token may hold open at once (>= 1) */
  constructor(maxPerToken: number) {
    this.maxPerToken = maxPerToken;
    if (!Number.isInteger(maxPerToken) || maxPerToken < 1) {
      throw new RangeError(`The cap on open streams per token must be a positive integer, not ${maxPerToken}`);
    }
  }

  /**
   * Counts a new stream of `tokenId` when the token is under its cap.
   *
   * @returns a function to call once when the stream ends (idempotent), or
   *   undefined when the token already holds `maxPerToken` streams
   */
  acquire(tokenId: string): (() => void) | undefined {
    const open = this.#open.get(tokenId) ?? 0;
    if (open >= this.maxPerToken) return undefined;
    this.#open.set(tokenId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(tokenId) ?? 1) - 1;
      if (left === 0) this.#open.delete(tokenId);
      else this.#open.set(tokenId, left);
    };
  }

  /** @returns the streams `tokenId` holds open now */
  openStreams(tokenId: string): number {
    return this.#open.get(tokenId) ?? 0;
  }

  /** @returns the number of tokens holding at least one stream (0 when every stream has ended) */
  get tokensWithStreams(): number {
    return this.#open.size;
  }
}

/**
 * Middleware for the stream endpoint, after the token check: refuses a
 * request whose token already holds its cap of open streams with 429
 * `rate_limited` and `Retry-After` (problem+json, before any stream opens),
 * and otherwise counts the stream until its response closes.
 */
export function streamCap(counter: OpenStreamCounter): RequestHandler {
  return (_request, response, next) => {
    const { grant } = response.locals as WidgetLocals;
    const release = counter.acquire(grant.token.id);
    if (!release) {
      throw problem(
        429,
        'rate_limited',
        `This token already has ${counter.maxPerToken} answer streams open; wait for one to end and retry in ${STREAM_CAP_RETRY_SECONDS} s`,
        { 'Retry-After': String(STREAM_CAP_RETRY_SECONDS) },
      );
    }
    response.once('close', release);
    next();
  };
}
