/**
 * Rate-limit windows kept in the database, so that every server process
 * sharing it shares the counts. Their SQL is in rate-limit-repository.ts.
 */

/** Rate-limit windows shared by every process on the database. */
export interface RateLimitRepository {
  /**
   * Counts hits of a rate-limit key in its fixed window, atomically (so
   * every server process sharing the database shares the count): a key
   * whose window has ended starts a new one of `windowMs` at `at`.
   *
   * @param key e.g. `ip:203.0.113.7` or `token:tok_...`
   * @param windowMs window length, milliseconds (> 0)
   * @param at the time of the hits, epoch milliseconds
   * @param hits how many hits (>= 1; default 1): several requests counted in one write
   * @returns hits in the current window, these included, and when it ends (epoch ms)
   */
  hitRateLimit(key: string, windowMs: number, at: number, hits?: number): Promise<{ hits: number; resetAt: number }>;
  /** Takes back one hit of `key` in its current window (a request that should not count); never below 0. */
  unhitRateLimit(key: string, at: number): Promise<void>;
  /** Forgets the window of `key`. */
  resetRateLimit(key: string): Promise<void>;
  /** Deletes the windows that ended by `at` (housekeeping); returns how many. */
  pruneRateLimits(at: number): Promise<number>;
}
