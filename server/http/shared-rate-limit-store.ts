import type { Options, Store as RateLimitStore, IncrementResponse } from 'express-rate-limit';
import type { RateLimitRepository } from '../store/store.ts';

/** How often, at most, expired windows are deleted from the database, in milliseconds. */
const PRUNE_INTERVAL_MILLISECONDS = 60_000;

/**
 * An express-rate-limit store whose fixed windows live in the kb-widget
 * store's database (`Store.hitRateLimit`), so every server replica on one
 * PostgreSQL counts against the same limit. Keys are prefixed per limiter
 * (`prefix`), so two limiters never share a count. A database that cannot be
 * reached makes `increment` reject with the store's StoreUnavailableError,
 * which the app answers with 503 `unavailable` and `Retry-After`.
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

  async increment(key: string): Promise<IncrementResponse> {
    const at = this.#now();
    if (at - this.#lastPrune >= PRUNE_INTERVAL_MILLISECONDS) {
      this.#lastPrune = at;
      await this.#store.pruneRateLimits(at);
    }
    const { hits, resetAt } = await this.#store.hitRateLimit(this.prefix + key, this.#windowMs, at);
    return { totalHits: hits, resetTime: new Date(resetAt) };
  }

  async decrement(key: string): Promise<void> {
    await this.#store.unhitRateLimit(this.prefix + key, this.#now());
  }

  async resetKey(key: string): Promise<void> {
    await this.#store.resetRateLimit(this.prefix + key);
  }
}
