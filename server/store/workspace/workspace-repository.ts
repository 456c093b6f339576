import { randomBytes } from 'node:crypto';
import type { Role } from '../../../protocol/workspace-terms.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import { NotFoundError } from '../../errors.ts';
import { requireKnowledgeBase } from './knowledge-base-checks.ts';
import type { AnchorStyle, KnowledgeBase, KnowledgeBaseChanges, Membership, UrlStyle, User, WorkspaceRepository } from './workspace.ts';

const USER_COLUMNS = 'id, email, name, created_at AS "createdAt"';

/** A `users` row as {@link USER_COLUMNS} selects it (PostgreSQL's `bigint` read as a number, store/postgres/postgres-store.ts). */
type UserRow = User;

/** E-mail addresses are compared trimmed and lowercased: `Ada@Example.com ` is `ada@example.com`. */
function normalizedEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * A new record id: `prefix_` and 12 base64url characters of 9 random bytes
 * (72 bits), e.g. `usr_Qx3...`, `tok_...`.
 */
function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}

/** A `knowledge_bases` row as both backends select it ({@link KNOWLEDGE_BASE_COLUMNS}). */
interface KnowledgeBaseRow {
  id: string;
  name: string;
  created_at: number;
  base_url: string | null;
  url_style: UrlStyle;
  anchor_style: AnchorStyle;
}

/** The columns of a {@link KnowledgeBaseRow}. */
const KNOWLEDGE_BASE_COLUMNS = 'id, name, created_at, base_url, url_style, anchor_style';

function toKnowledgeBase(row: KnowledgeBaseRow): KnowledgeBase {
  const knowledgeBase: KnowledgeBase = {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    urlStyle: row.url_style,
    anchorStyle: row.anchor_style,
  };
  if (row.base_url !== null) knowledgeBase.baseUrl = row.base_url;
  return knowledgeBase;
}

/** The record a new knowledge base is created as: `pretty` URLs and `github` anchors unless given. */
function newKnowledgeBase(input: Parameters<WorkspaceRepository['createKnowledgeBase']>[0], createdAt: number): KnowledgeBase {
  const knowledgeBase: KnowledgeBase = {
    id: input.id,
    name: input.name,
    createdAt,
    urlStyle: input.urlStyle ?? 'pretty',
    anchorStyle: input.anchorStyle ?? 'github',
  };
  if (input.baseUrl !== undefined) knowledgeBase.baseUrl = input.baseUrl;
  return knowledgeBase;
}

/** A knowledge base with changes applied: absent fields keep their value, `baseUrl: null` removes it. */
function changedKnowledgeBase(current: KnowledgeBase, changes: KnowledgeBaseChanges): KnowledgeBase {
  const { baseUrl: _removed, ...rest } = current;
  const baseUrl = changes.baseUrl === undefined ? current.baseUrl : (changes.baseUrl ?? undefined);
  return {
    ...rest,
    name: changes.name ?? current.name,
    urlStyle: changes.urlStyle ?? current.urlStyle,
    anchorStyle: changes.anchorStyle ?? current.anchorStyle,
    ...(baseUrl === undefined ? {} : { baseUrl }),
  };
}

/**
 * Users, knowledge bases and their members' roles, written once for both
 * backends over a {@link SqlExecutor}. A knowledge base is created with its
 * index statistics row in one transaction; a role needs an existing user
 * and knowledge base.
 *
 * @param now the clock, epoch milliseconds (creation times)
 */
export function workspaceRepository(sql: SqlExecutor, now: () => number): WorkspaceRepository {
  return {
    async createUser(input) {
      const user: User = { id: newId('usr'), email: normalizedEmail(input.email), name: input.name, createdAt: now() };
      await sql.run('INSERT INTO users (id, email, name, created_at) VALUES (?, ?, ?, ?)', [user.id, user.email, user.name, user.createdAt]);
      return user;
    },
    getUser(id) {
      return sql.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, [id]);
    },
    findUserByEmail(email) {
      return sql.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`, [normalizedEmail(email)]);
    },
    listUsers() {
      return sql.all<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY email`);
    },
    async removeUser(id) {
      await sql.run('DELETE FROM users WHERE id = ?', [id]);
    },
    async setPasswordHash(userId, passwordHash) {
      if ((await sql.run('UPDATE users SET password_hash = ? WHERE id = ?', [passwordHash, userId])) === 0) {
        throw new NotFoundError(`User "${userId}" does not exist`);
      }
    },
    async getPasswordHash(userId) {
      return (await sql.get<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = ?', [userId]))?.password_hash ?? undefined;
    },

    createKnowledgeBase(input) {
      const knowledgeBase = newKnowledgeBase(input, now());
      return sql.transaction(async (transaction) => {
        await transaction.run('INSERT INTO knowledge_bases (id, name, created_at, base_url, url_style, anchor_style) VALUES (?, ?, ?, ?, ?, ?)', [
          knowledgeBase.id,
          knowledgeBase.name,
          knowledgeBase.createdAt,
          knowledgeBase.baseUrl ?? null,
          knowledgeBase.urlStyle,
          knowledgeBase.anchorStyle,
        ]);
        await transaction.run('INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES (?, 0, 0, 0)', [knowledgeBase.id]);
        return knowledgeBase;
      });
    },
    async getKnowledgeBase(id) {
      const row = await sql.get<KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases WHERE id = ?`, [id]);
      return row && toKnowledgeBase(row);
    },
    async listKnowledgeBases() {
      return (await sql.all<KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases ORDER BY id`)).map(toKnowledgeBase);
    },
    updateKnowledgeBase(id, changes) {
      return sql.transaction(async (transaction) => {
        const row = await transaction.get<KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases WHERE id = ?${sql.dialect.forUpdate}`, [id]);
        if (!row) throw new NotFoundError(`Knowledge base "${id}" does not exist`);
        const updated = changedKnowledgeBase(toKnowledgeBase(row), changes);
        await transaction.run('UPDATE knowledge_bases SET name = ?, base_url = ?, url_style = ?, anchor_style = ? WHERE id = ?', [
          updated.name,
          updated.baseUrl ?? null,
          updated.urlStyle,
          updated.anchorStyle,
          id,
        ]);
        return updated;
      });
    },

    async setRole(kbId, userId, role) {
      await requireKnowledgeBase(sql, kbId);
      if ((await sql.get('SELECT 1 AS found FROM users WHERE id = ?', [userId])) === undefined) throw new NotFoundError(`User "${userId}" does not exist`);
      // A user or knowledge base removed in between fails the foreign key, as it would have a moment later.
      await sql.run(
        `INSERT INTO memberships (kb_id, user_id, role) VALUES (?, ?, ?)
         ON CONFLICT (kb_id, user_id) DO UPDATE SET role = excluded.role`,
        [kbId, userId, role],
      );
    },
    async removeRole(kbId, userId) {
      await sql.run('DELETE FROM memberships WHERE kb_id = ? AND user_id = ?', [kbId, userId]);
    },
    async getRole(kbId, userId) {
      return (await sql.get<{ role: Role }>('SELECT role FROM memberships WHERE kb_id = ? AND user_id = ?', [kbId, userId]))?.role;
    },
    listMembers(kbId) {
      return sql.all<Membership & { email: string }>(
        `SELECT m.kb_id AS "kbId", m.user_id AS "userId", m.role AS role, u.email AS email
         FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.kb_id = ? ORDER BY u.email`,
        [kbId],
      );
    },
    async listMembersWithoutPassword(kbId) {
      const rows = await sql.all<{ userId: string }>(
        'SELECT u.id AS "userId" FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.kb_id = ? AND u.password_hash IS NULL',
        [kbId],
      );
      return rows.map((row) => row.userId);
    },
  };
}
