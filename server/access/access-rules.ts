import { VISIBILITIES } from '../../protocol/workspace-terms.ts';
import type { Membership, Reach, Role, Visibility, WorkspaceRepository } from '../store/store.ts';

/**
 * The workspace's access rules (docs/design-decisions.md "Access rules"), in one place: the
 * console's routes, the widget token check, token issue and the `kb` command
 * line all decide with these functions, so that no entry point applies a
 * weaker rule than another.
 *
 * - Roles on a knowledge base: `reader`, `editor` (update permission),
 *   `owner` (update permission, and manages members).
 * - Anyone reads `public` documents; members read `workspace` ones; a
 *   `restricted` document is read by its listed readers only, who must be
 *   members of its knowledge base.
 * - A widget token reaches what its issuer can read now, intersected with
 *   its scope: a token never widens its issuer's reach.
 */

/** The roles with update permission: they add and remove documents, issue and revoke tokens, read feedback. */
export const UPDATE_ROLES: readonly Role[] = ['editor', 'owner'];

/**
 * Whether a role has update permission on its knowledge base.
 *
 * @param role the person's role, undefined when not a member
 */
export function hasUpdatePermission(role: Role | undefined): boolean {
  return role !== undefined && UPDATE_ROLES.includes(role);
}

/**
 * Whether a role may change members' roles and remove members.
 *
 * @param role the person's role, undefined when not a member
 */
export function canManageMembers(role: Role | undefined): boolean {
  return role === 'owner';
}

/**
 * Whether an owner may create a set-password link for a person who has no
 * password yet (an invitation, or a new link for a pending invitee): only
 * when the owner owns every knowledge base that person is a member of.
 * Whoever holds the link takes the account, with its roles everywhere; an
 * owner of one knowledge base must not gain, through a pending invitee, a
 * role on another that is not theirs to give.
 *
 * @param ownerId the owner asking
 * @param userId the person without a password
 */
export async function canCreatePasswordLink(
  store: Pick<WorkspaceRepository, 'listKnowledgeBases' | 'getRole'>,
  ownerId: string,
  userId: string,
): Promise<boolean> {
  for (const knowledgeBase of await store.listKnowledgeBases()) {
    if ((await store.getRole(knowledgeBase.id, userId)) !== undefined && (await store.getRole(knowledgeBase.id, ownerId)) !== 'owner') return false;
  }
  return true;
}

/**
 * The visibilities a person with `role` on a knowledge base can read:
 * anyone reads `public`; members read `workspace`; `restricted` documents
 * are readable only by their listed readers, which the store checks per
 * document inside the query.
 *
 * @param role the person's role on the knowledge base, undefined when not a member
 */
export function readableVisibilities(role: Role | undefined): Visibility[] {
  return role ? [...VISIBILITIES] : ['public'];
}

/**
 * What a person reaches when they ask or browse themselves (the console,
 * `kb ask`): every document of the knowledge base they can read.
 *
 * @param role their role now, undefined when not a member
 */
export function memberReach(kbId: string, userId: string, role: Role | undefined): Reach {
  return { kbId, userId, visibilities: readableVisibilities(role) };
}

/**
 * What a question may reach through a token: the documents of the token's
 * knowledge base that its issuer can read now, intersected with the token's
 * scope. A token never widens its issuer's reach.
 *
 * @param kbId the token's knowledge base
 * @param issuerId the user who issued the token
 * @param issuerRole the issuer's role now (undefined when no longer a member)
 * @param scope the visibilities the token was issued for
 */
export function tokenReach(kbId: string, issuerId: string, issuerRole: Role | undefined, scope: readonly Visibility[]): Reach {
  const readable = new Set(readableVisibilities(issuerRole));
  return { kbId, userId: issuerId, visibilities: scope.filter((visibility) => readable.has(visibility)) };
}

/**
 * Whether a person can read one document: its visibility is readable with
 * their role and, when it is `restricted`, they are among its readers.
 *
 * @param role the person's role on the document's knowledge base, undefined when not a member
 */
export function canReadDocument(
  userId: string,
  role: Role | undefined,
  document: { visibility: Visibility; readers: readonly string[] },
): boolean {
  return readableVisibilities(role).includes(document.visibility) && (document.visibility !== 'restricted' || document.readers.includes(userId));
}

/** Readers given for a document who are not members of its knowledge base (a `restricted` document's readers must be). */
export class ReadersNotMembersError extends Error {
  override name = 'ReadersNotMembersError';

  /** The readers who are not members, as named by the caller (user ids or emails). */
  readonly strangers: readonly string[];

  constructor(kbId: string, strangers: readonly string[]) {
    super(`readers: not members of "${kbId}": ${strangers.join(', ')}`);
    this.strangers = strangers;
  }
}

/**
 * Checks the readers given for a document: each must be a member of its
 * knowledge base (a reader who is not a member could never read it, and
 * listing one would suggest otherwise).
 *
 * @param readerIds user ids of the readers
 * @param nameOf how to name a reader in the error (default: the id)
 * @throws ReadersNotMembersError naming the readers who are not members
 */
export async function requireReadersAreMembers(
  store: Pick<WorkspaceRepository, 'listMembers'>,
  kbId: string,
  readerIds: readonly string[],
  nameOf: (userId: string) => string = (userId) => userId,
): Promise<void> {
  if (readerIds.length === 0) return;
  const members = new Set((await store.listMembers(kbId)).map((member) => member.userId));
  const strangers = readerIds.filter((reader) => !members.has(reader));
  if (strangers.length > 0) throw new ReadersNotMembersError(kbId, strangers.map(nameOf));
}

/**
 * Whether giving `userId` the role `newRole` (undefined: removing them)
 * would leave the knowledge base without an owner.
 *
 * @param members the knowledge base's members now
 */
export function removesLastOwner(members: readonly Pick<Membership, 'userId' | 'role'>[], userId: string, newRole: Role | undefined): boolean {
  if (newRole === 'owner') return false;
  const owners = members.filter((member) => member.role === 'owner');
  return owners.length === 1 && owners[0]!.userId === userId;
}
