import type { SqlExecutor } from '../sql-executor.ts';
import type { PasswordLinkRecord, PasswordLinkRepository } from './password-links.ts';

/** How long a link is kept after it expired, so that opening it still says "expired" rather than "unknown", ms (30 days). */
export const PASSWORD_LINK_KEPT_AFTER_EXPIRY_MILLISECONDS = 30 * 24 * 60 * 60_000;

type PasswordLinkRow = { [Field in keyof PasswordLinkRecord]-?: PasswordLinkRecord[Field] | string | null };

/**
 * One-time set-password links by the hash of their secret, written once for
 * both backends over a {@link SqlExecutor}. Only a user's newest link works:
 * creating one marks the earlier ones replaced in the same transaction, and
 * using one checks, under a row lock (`FOR UPDATE` in PostgreSQL; SQLite's
 * writers take turns), that it is still unused, not replaced, not expired and
 * that its user still has no password, so two uses at once set one password.
 */
export function passwordLinkRepository(sql: SqlExecutor): PasswordLinkRepository {
  return {
    createPasswordLink(link) {
      return sql.transaction(async (transaction) => {
        await transaction.run('DELETE FROM password_links WHERE expires_at < ?', [link.createdAt - PASSWORD_LINK_KEPT_AFTER_EXPIRY_MILLISECONDS]);
        await transaction.run('UPDATE password_links SET replaced_at = ? WHERE user_id = ? AND used_at IS NULL AND replaced_at IS NULL', [
          link.createdAt,
          link.userId,
        ]);
        await transaction.run('INSERT INTO password_links (secret_hash, user_id, created_at, expires_at, used_at, replaced_at) VALUES (?, ?, ?, ?, ?, ?)', [
          link.secretHash,
          link.userId,
          link.createdAt,
          link.expiresAt,
          link.usedAt ?? null,
          link.replacedAt ?? null,
        ]);
      });
    },
    async findPasswordLink(secretHash) {
      const row = await sql.get<PasswordLinkRow>(
        `SELECT secret_hash AS "secretHash", user_id AS "userId", created_at AS "createdAt", expires_at AS "expiresAt",
                used_at AS "usedAt", replaced_at AS "replacedAt"
         FROM password_links WHERE secret_hash = ?`,
        [secretHash],
      );
      if (row === undefined) return undefined;
      return {
        secretHash: String(row.secretHash),
        userId: String(row.userId),
        createdAt: Number(row.createdAt),
        expiresAt: Number(row.expiresAt),
        ...(row.usedAt === null ? {} : { usedAt: Number(row.usedAt) }),
        ...(row.replacedAt === null ? {} : { replacedAt: Number(row.replacedAt) }),
      };
    },
    usePasswordLink(secretHash, at, passwordHash) {
      return sql.transaction(async (transaction) => {
        const usable = await transaction.get<{ userId: string }>(
          `SELECT l.user_id AS "userId" FROM password_links l JOIN users u ON u.id = l.user_id
           WHERE l.secret_hash = ? AND l.used_at IS NULL AND l.replaced_at IS NULL AND l.expires_at > ? AND u.password_hash IS NULL${sql.dialect.forUpdate}`,
          [secretHash, at],
        );
        if (usable === undefined) return undefined;
        await transaction.run('UPDATE password_links SET used_at = ? WHERE secret_hash = ?', [at, secretHash]);
        await transaction.run('UPDATE users SET password_hash = ? WHERE id = ?', [passwordHash, usable.userId]);
        return usable.userId;
      });
    },
  };
}
