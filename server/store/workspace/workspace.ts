/**
 * The workspace: its users, its knowledge bases with their site settings,
 * who is a member of which with what role, and the workspace's settings
 * created once. Their SQL is in workspace-repository.ts and
 * settings-repository.ts.
 */

import type { Role } from '../../../protocol/workspace-terms.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  createdAt: number;
}

/**
 * How a knowledge base's site publishes pages (ingest/pipeline/page-url.ts):
 * `pretty`, a folder per page (`volumes.md` -> `volumes/`: Hugo,
 * Docusaurus, MkDocs), or `html`, a file per page (`fs.md` -> `fs.html`:
 * the Node.js docs, Sphinx).
 */
export type UrlStyle = 'pretty' | 'html';
export const URL_STYLES: readonly UrlStyle[] = ['pretty', 'html'];

/**
 * How a knowledge base's site makes heading ids (ingest/parsing/heading-anchors.ts):
 * `github` (GitHub, Hugo, Docusaurus; repeats get `-1`) or `node` (the
 * Node.js API docs; repeats get `_1`).
 */
export type AnchorStyle = 'github' | 'node';
export const ANCHOR_STYLES: readonly AnchorStyle[] = ['github', 'node'];

export interface KnowledgeBase {
  /** Readable slug, e.g. `node-docs`. */
  id: string;
  name: string;
  createdAt: number;
  /**
   * The published URL of the ingested folder's root, ending in `/`
   * (`https://kubernetes.io/docs/`): documents get page URLs under it.
   * Absent when the knowledge base has no site.
   */
  baseUrl?: string;
  urlStyle: UrlStyle;
  anchorStyle: AnchorStyle;
}

/** The site settings of a knowledge base a change may set; `baseUrl: null` removes the base URL. */
export interface KnowledgeBaseChanges {
  name?: string;
  baseUrl?: string | null;
  urlStyle?: UrlStyle;
  anchorStyle?: AnchorStyle;
}

export interface Membership {
  kbId: string;
  userId: string;
  role: Role;
}

/** Users, knowledge bases and roles: who belongs where (docs/design-decisions.md "Access rules"). */
export interface WorkspaceRepository {
  createUser(input: { email: string; name: string }): Promise<User>;
  getUser(id: string): Promise<User | undefined>;
  findUserByEmail(email: string): Promise<User | undefined>;
  listUsers(): Promise<User[]>;
  /** Deletes a user, their memberships, reader grants and sessions. */
  removeUser(id: string): Promise<void>;
  /**
   * Sets a user's console password hash (server/auth/password-hash.ts).
   * Throws NotFoundError for an unknown user.
   */
  setPasswordHash(userId: string, passwordHash: string): Promise<void>;
  /** @returns the user's password hash; undefined when they have none yet or do not exist */
  getPasswordHash(userId: string): Promise<string | undefined>;

  /** Creates a knowledge base; without site settings it has no base URL, `pretty` URLs and `github` anchors. */
  createKnowledgeBase(input: {
    id: string;
    name: string;
    baseUrl?: string;
    urlStyle?: UrlStyle;
    anchorStyle?: AnchorStyle;
  }): Promise<KnowledgeBase>;
  getKnowledgeBase(id: string): Promise<KnowledgeBase | undefined>;
  listKnowledgeBases(): Promise<KnowledgeBase[]>;
  /**
   * Changes a knowledge base's name or site settings (absent fields keep
   * their value). Documents' stored URLs are not recomputed here
   * (ingest/site-settings.ts does, through `DocumentRepository.setDocumentUrls`).
   * Throws NotFoundError for an unknown knowledge base.
   */
  updateKnowledgeBase(id: string, changes: KnowledgeBaseChanges): Promise<KnowledgeBase>;

  /** Grants or changes a role. Throws NotFoundError for an unknown KB or user. */
  setRole(kbId: string, userId: string, role: Role): Promise<void>;
  removeRole(kbId: string, userId: string): Promise<void>;
  getRole(kbId: string, userId: string): Promise<Role | undefined>;
  listMembers(kbId: string): Promise<(Membership & { email: string })[]>;
  /** The ids of the members of a knowledge base who have no password yet (invited, not signed in once), in no order. */
  listMembersWithoutPassword(kbId: string): Promise<string[]>;
}

/** Workspace settings created once (e.g. the source-span key). */
export interface SettingsRepository {
  /** Returns the named setting, creating it with `create()` on first use (atomic). */
  getOrCreateSetting(key: string, create: () => string): Promise<string>;
}
