import type { Options, Store as RateLimitStore, IncrementResponse } from 'express-rate-limit';
import type { RateLimitRepository } from '../store/store.ts';

/** How often, at most, expired windows are deleted from the database, in milliseconds. */
const PRUNE_INTERVAL_MILLISECONDS = 60_000;

/** A request waiting for its hit to be counted: its promise's settling functions. */
interface Waiter {
  resolve(count: IncrementResponse): void;
  reject(reason: unknown): void;
}

/**
 * An express-rate-limit store whose fixed windows live in the kb-widget
 * store's database (`Store.hitRateLimit`), so every server replica on one
 * PostgreSQL counts against the same limit. Keys are prefixed per limiter
 * (`prefix`), so two limiters never share a count. A database that cannot be
 * reached makes `increment` reject with the store's StoreUnavailableError,
 * which the app answers with 503 `unavailable` and `Retry-After`.
 *
 * The hits of one key made in one turn of the event loop (the requests
 * parsed from one poll of the sockets) are counted in one write, issued in
 * that turn's check phase (`setImmediate`): each request still gets its own
 * exact count (the n-th of k hits written together gets the total less
 * k - n), and none is answered before its hit is counted, for one round
 * trip where each request made one (store/coalesced-reads.ts does the
 * same for reads).
 *
 * Windows that ended are deleted at most once a minute, by whichever request
 * comes first.
 */
export class SharedRateLimitStore implements RateLimitStore {
  /** Counts are shared with other processes (express-rate-limit's double-counting check). */
  readonly localKeys = false;
  readonly prefix: string;
  readonly #store: RateLimitRepository;
  readonly #now: () => number;
  #windowMs = 60_000;
  #lastPrune = 0;
  /** Hits not yet written, by key: the time of the first and each one's caller. */
  readonly #unwritten = new Map<string, { at: number; callers: Waiter[] }>();

  /**
   * @param store the database-backed store shared by the replicas
   * @param prefix prepended to every key, one per limiter (e.g. `widget-ip:`)
   * @param now clock, epoch milliseconds
   */
  constructor(store: RateLimitRepository, prefix: string, now: () => number) {
    this.#store = store;
    this.prefix = prefix;
    this.#now = now;
  }

  /** Takes the limiter's window length (express-rate-limit calls this once). */
  init(options: Options): void {
    this.#windowMs = options.windowMs;
  }

  increment(key: string): Promise<IncrementResponse> {
    const at = this.#now();
    if (at - this.#lastPrune >= PRUNE_INTERVAL_MILLISECONDS) {
      this.#lastPrune = at;
      // Housekeeping, off the request's path: a store that cannot be reached fails the hit's own write.
      this.#store.pruneRateLimits(at).catch(() => undefined);
    }
    return new Promise<IncrementResponse>((resolve, reject) => {
      let batch = this.#unwritten.get(key);
      if (batch === undefined) {
        const started = { at, callers: [] as Waiter[] };
        this.#unwritten.set(key, started);
        setImmediate(() => this.#write(key, started));
        batch = started;
      }
      batch.callers.push({ resolve, reject });
    });
  }

  /** Writes a batch of hits of one key, and answers each caller with its own count. */
  #write(key: string, batch: { at: number; callers: Waiter[] }): void {
    // Written now: a later hit starts a batch of its own.
    this.#unwritten.delete(key);
    const { callers } = batch;
    this.#store.hitRateLimit(this.prefix + key, this.#windowMs, batch.at, callers.length).then(
      ({ hits, resetAt }) => {
        callers.forEach((caller, position) => caller.resolve({ totalHits: hits - callers.length + position + 1, resetTime: new Date(resetAt) }));
      },
      (error: unknown) => {
        for (const caller of callers) caller.reject(error);
      },
    );
  }

  async decrement(key: string): Promise<void> {
    await this.#store.unhitRateLimit(this.prefix + key, this.#now());
  }

  async resetKey(key: string): Promise<void> {
    await this.#store.resetRateLimit(this.prefix + key);
  }
}
