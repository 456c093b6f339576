import type { SqlExecutor } from '../sql-executor.ts';
import type { RateLimitRepository } from './rate-limits.ts';

/** Rate-limit windows kept in the database, shared by every process on it (docs/operations.md "Running several replicas"). */
export function rateLimitRepository(sql: SqlExecutor): RateLimitRepository {
  return {
    async hitRateLimit(key, windowMs, at, hits = 1) {
      // One statement: concurrent hits from several processes count exactly.
      const row = await sql.get<{ hits: number | string; resetAt: number | string }>(
        `INSERT INTO rate_limits (key, hits, reset_at) VALUES (?, CAST(? AS INTEGER), CAST(? AS BIGINT) + CAST(? AS BIGINT))
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN rate_limits.reset_at <= CAST(? AS BIGINT) THEN excluded.hits ELSE rate_limits.hits + excluded.hits END,
           reset_at = CASE WHEN rate_limits.reset_at <= CAST(? AS BIGINT) THEN excluded.reset_at ELSE rate_limits.reset_at END
         RETURNING hits, reset_at AS "resetAt"`,
        [key, hits, at, windowMs, at, at],
      );
      return { hits: Number(row!.hits), resetAt: Number(row!.resetAt) };
    },
    async unhitRateLimit(key, at) {
      await sql.run(`UPDATE rate_limits SET hits = ${sql.dialect.greatest('hits - 1', '0')} WHERE key = ? AND reset_at > CAST(? AS BIGINT)`, [key, at]);
    },
    async resetRateLimit(key) {
      await sql.run('DELETE FROM rate_limits WHERE key = ?', [key]);
    },
    pruneRateLimits(at) {
      return sql.run('DELETE FROM rate_limits WHERE reset_at <= CAST(? AS BIGINT)', [at]);
    },
  };
}
