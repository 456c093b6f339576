import type { Options, Store as RateLimitStore, IncrementResponse } from 'express-rate-limit';
import { groupedCalls } from '../store/grouped-calls.ts';
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
 * The hits of a key made while one of its writes runs are counted together
 * in the next write (store/grouped-calls.ts, as a database groups
 * commits): each request still gets its own exact count (the n-th of k
 * hits written together gets the total less k - n), and none is answered
 * before its hit is counted, for one round trip where each request made
 * one.
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
  /** Counts a hit of a key, grouped with the hits of that key made while a write of them runs. */
  readonly #hit = groupedCalls<{ key: string; at: number }, IncrementResponse>(
    async (key, hits) => {
      const { hits: total, resetAt } = await this.#store.hitRateLimit(this.prefix + key, this.#windowMs, hits.at(-1)!.at, hits.length);
      return hits.map((_, position) => ({ totalHits: total - hits.length + position + 1, resetTime: new Date(resetAt) }));
    },
    (hit) => hit.key,
  );

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
    return this.#hit({ key, at });
  }

  async decrement(key: string): Promise<void> {
    await this.#store.unhitRateLimit(this.prefix + key, this.#now());
  }

  async resetKey(key: string): Promise<void> {
    await this.#store.resetRateLimit(this.prefix + key);
  }
}
