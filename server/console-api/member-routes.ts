import { Router } from 'express';
import { RoleRequestSchema, type MemberList, type MemberRole } from '../../protocol/console-protocol.ts';
import { canManageMembers, removesLastOwner } from '../access/access-rules.ts';
import { problem } from '../http/problem.ts';
import type { Role, Store } from '../store/store.ts';
import { membership, parseBody, type ConsoleRouteDeps } from './console-context.ts';

/** The members of a knowledge base; owners change roles and remove members. */
export function memberRoutes(deps: ConsoleRouteDeps): Router {
  const { store } = deps;
  const router = Router();

  router.get('/knowledge-bases/:kbId/members', async (request, response) => {
    const { kbId } = await membership(store, request, response);
    const members = await store.listMembers(kbId);
    response.json({ members: members.map((member) => ({ user_id: member.userId, email: member.email, role: member.role })) } satisfies MemberList);
  });

  router.put('/knowledge-bases/:kbId/members/:userId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    if (!canManageMembers(role)) throw problem(403, 'forbidden', `Changing roles needs the owner role; your role is ${role}`);
    const { role: newRole } = parseBody(RoleRequestSchema, request.body);
    const userId = String(request.params.userId);
    if (!(await store.getUser(userId))) throw problem(404, 'not_found', `No user "${userId}"`);
    await guardLastOwner(store, kbId, userId, newRole);
    await store.setRole(kbId, userId, newRole);
    response.json({ user_id: userId, role: newRole } satisfies MemberRole);
  });

  router.delete('/knowledge-bases/:kbId/members/:userId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    if (!canManageMembers(role)) throw problem(403, 'forbidden', `Removing members needs the owner role; your role is ${role}`);
    const userId = String(request.params.userId);
    await guardLastOwner(store, kbId, userId, undefined);
    await store.removeRole(kbId, userId);
    response.status(204).end();
  });

  return router;
}

/** Refuses a change that would leave a knowledge base without an owner. */
async function guardLastOwner(store: Store, kbId: string, userId: string, newRole: Role | undefined): Promise<void> {
  if (removesLastOwner(await store.listMembers(kbId), userId, newRole)) {
    throw problem(400, 'invalid_request', `Knowledge base "${kbId}" needs at least one owner; make someone else owner first`);
  }
}
