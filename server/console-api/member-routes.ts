import type { Request, Response } from 'express';
import { InvitationRequestSchema, RoleRequestSchema, type Invitation, type MemberList, type MemberRole } from '../../protocol/console-protocol.ts';
import { canCreatePasswordLink, canManageMembers, removesLastOwner } from '../access/access-rules.ts';
import { createPasswordLink, setPasswordUrl } from '../auth/password-links.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { problem } from '../http/problem.ts';
import type { RouteRecord } from '../http/route-record.ts';
import { type Role, type Store, type User } from '../store/store.ts';
import { ConflictError } from '../errors.ts';
import { membership, parseBody, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { consoleErrors, userId as userIdParameter } from './openapi-parts.ts';

/** The members of the knowledge base and their roles; those without a password yet are `pending` (any member). */
async function listMembers(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId } = await membership(store, request, response);
  const members = await store.listMembers(kbId);
  const pending = new Set(await store.listMembersWithoutPassword(kbId));
  response.json({
    members: members.map((member) => ({
      user_id: member.userId,
      email: member.email,
      role: member.role,
      ...(pending.has(member.userId) ? { pending: true } : {}),
    })),
  } satisfies MemberList);
}

/**
 * Invites a person by email with a role (owners only): adds them, creating
 * their account without a password when no user has the email, with a
 * set-password link when they need one and the owner may make it.
 */
async function invite(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId, role } = await membership(store, request, response);
  if (!canManageMembers(role)) throw problem(403, 'forbidden', `Inviting people needs the owner role; your role is ${role}`);
  const { email, role: newRole } = parseBody(InvitationRequestSchema, request.body);
  const user = await findOrCreateUser(store, email);
  const current = await store.getRole(kbId, user.id);
  if (current !== undefined) {
    throw problem(409, 'conflict', `${user.email} is already a member of "${kbId}" as ${current}; change their role in the members list instead`);
  }
  const owner = signedInUser(response);
  const pending = (await store.getPasswordHash(user.id)) === undefined;
  // Judged before the new role is given: the knowledge bases the person belonged to until now.
  const mayCreateLink = pending && (await canCreatePasswordLink(store, owner.id, user.id));
  await store.setRole(kbId, user.id, newRole);
  const invitation: Invitation = { user_id: user.id, email: user.email, role: newRole, pending };
  response.status(201).json(mayCreateLink ? { ...invitation, ...(await newLink(deps, request, user.id)) } : invitation);
}

/**
 * A new set-password link for a member who has not set a password yet
 * (owners of every knowledge base the member belongs to); it replaces their
 * earlier ones.
 */
async function renewPasswordLink(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId, role } = await membership(store, request, response);
  if (!canManageMembers(role)) throw problem(403, 'forbidden', `Creating set-password links needs the owner role; your role is ${role}`);
  const userId = String(request.params.userId);
  const memberRole = await store.getRole(kbId, userId);
  const user = memberRole && (await store.getUser(userId));
  if (!memberRole || !user) throw problem(404, 'not_found', `No member "${userId}" of knowledge base "${kbId}"`);
  if ((await store.getPasswordHash(userId)) !== undefined) {
    throw problem(409, 'conflict', `${user.email} has set a password already; they sign in with it`);
  }
  if (!(await canCreatePasswordLink(store, signedInUser(response).id, userId))) {
    throw problem(
      403,
      'forbidden',
      `${user.email} is also a member of knowledge bases you do not own; only an owner of all of them can create a set-password link for them`,
    );
  }
  response.status(201).json({
    user_id: userId,
    email: user.email,
    role: memberRole,
    pending: true,
    ...(await newLink(deps, request, userId)),
  } satisfies Invitation);
}

/** Sets a member's role (owners only), never leaving the knowledge base without an owner. */
async function setMemberRole(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId, role } = await membership(store, request, response);
  if (!canManageMembers(role)) throw problem(403, 'forbidden', `Changing roles needs the owner role; your role is ${role}`);
  const { role: newRole } = parseBody(RoleRequestSchema, request.body);
  const userId = String(request.params.userId);
  if (!(await store.getUser(userId))) throw problem(404, 'not_found', `No user "${userId}"`);
  await guardLastOwner(store, kbId, userId, newRole);
  await store.setRole(kbId, userId, newRole);
  response.json({ user_id: userId, role: newRole } satisfies MemberRole);
}

/** Removes a member (owners only), never the last owner; their tokens stop working. */
async function removeMember(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId, role } = await membership(store, request, response);
  if (!canManageMembers(role)) throw problem(403, 'forbidden', `Removing members needs the owner role; your role is ${role}`);
  const userId = String(request.params.userId);
  await guardLastOwner(store, kbId, userId, undefined);
  await store.removeRole(kbId, userId);
  response.status(204).end();
}

/**
 * The members of a knowledge base; owners invite people by email, change
 * roles and remove members.
 *
 * An invitation (`POST …/invitations` `{email, role}`) adds the person with
 * the role, creating their account (without a password) when no user has
 * that email. A person without a password gets a one-time set-password link
 * (server/auth/password-links.ts) in the answer, for the owner to pass on:
 * no mail is sent. A person whose account has a password is just added.
 * `POST …/members/{userId}/password-link` makes a new link for a member who
 * has not set a password yet; each new link replaces the person's earlier
 * ones. A link is made only by an owner of every knowledge base the person
 * belongs to (access/access-rules.ts `canCreatePasswordLink`).
 */
export const MEMBER_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/members',
    operation: {
      summary: 'Members and roles',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: { '200': json(ref('MemberList'), 'Members'), ...consoleErrors },
    },
    handler: listMembers,
  },
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/invitations',
    body: InvitationRequestSchema,
    operation: {
      summary: 'Invite a person by email with a role (owners only); no mail is sent',
      description:
        'Adds the person as a member, creating their account without a password when no user has the email. A person with no password ' +
        'yet gets a one-time `set_password_url` (7 days; it replaces their earlier links) for the owner to pass on; a person whose account ' +
        'has a password is just added (`pending: false`, no link). No link is made for a person who also belongs to a knowledge base the ' +
        'owner does not own.',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: {
        '201': json(ref('Invitation'), 'Added, with the set-password link when one was made'),
        '400': problemResponse('Not an email address, unknown role (`invalid_request`)'),
        '409': problemResponse('Already a member (`conflict`)'),
        ...consoleErrors,
      },
    },
    handler: invite,
  },
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/members/:userId/password-link',
    operation: {
      summary: 'A new set-password link for a member who has not set a password yet (owners of every knowledge base the member belongs to)',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, userIdParameter],
      requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '201': json(ref('Invitation'), 'The new link; the earlier ones stop working'),
        '409': problemResponse('The member has a password already (`conflict`)'),
        ...consoleErrors,
      },
    },
    handler: renewPasswordLink,
  },
  {
    method: 'put',
    path: '/knowledge-bases/:kbId/members/:userId',
    body: RoleRequestSchema,
    operation: {
      summary: "Set a member's role (owners only)",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, userIdParameter],
      responses: { '200': json(ref('MemberRole'), 'The new role'), '400': problemResponse('Would leave no owner'), ...consoleErrors },
    },
    handler: setMemberRole,
  },
  {
    method: 'delete',
    path: '/knowledge-bases/:kbId/members/:userId',
    operation: {
      summary: 'Remove a member (owners only); their tokens stop working',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, userIdParameter],
      responses: { '204': { description: 'Removed' }, '400': problemResponse('Would leave no owner'), ...consoleErrors },
    },
    handler: removeMember,
  },
];

/** The user with `email`, created without a password (named after the email's local part, as `kb user add` does) when there is none. */
async function findOrCreateUser(store: Store, email: string): Promise<User> {
  const found = await store.findUserByEmail(email);
  if (found) return found;
  try {
    return await store.createUser({ email, name: email.split('@')[0]! });
  } catch (error) {
    // Invited twice at once: the other request created them.
    const created = error instanceof ConflictError ? await store.findUserByEmail(email) : undefined;
    if (created) return created;
    throw error;
  }
}

/** A new set-password link for a user, as the answer carries it. */
async function newLink(deps: ConsoleRouteDeps, request: Request, userId: string): Promise<{ set_password_url: string; expires_at: string }> {
  const { secret, expiresAt } = await createPasswordLink(deps.store, userId, deps.now());
  return { set_password_url: setPasswordUrl(deps.publicBaseUrl(request), secret), expires_at: new Date(expiresAt).toISOString() };
}

/** Refuses a change that would leave a knowledge base without an owner. */
async function guardLastOwner(store: Store, kbId: string, userId: string, newRole: Role | undefined): Promise<void> {
  if (removesLastOwner(await store.listMembers(kbId), userId, newRole)) {
    throw problem(400, 'invalid_request', `Knowledge base "${kbId}" needs at least one owner; make someone else owner first`);
  }
}
