import { Router } from 'express';
import type { DocumentList, KnowledgeBaseDetail, KnowledgeBaseList } from '../../protocol/console-protocol.ts';
import { canManageMembers, canReadDocument, hasUpdatePermission } from '../access/access-rules.ts';
import { membership, signedInUser, toConsoleDocument, type ConsoleRouteDeps } from './console-context.ts';

/**
 * The knowledge bases a person is a member of, one knowledge base with what
 * they may do there, and the documents of it they can read.
 */
export function knowledgeBaseRoutes(deps: ConsoleRouteDeps): Router {
  const { store } = deps;
  const router = Router();

  router.get('/knowledge-bases', async (_request, response) => {
    const user = signedInUser(response);
    const result = [];
    for (const knowledgeBase of await store.listKnowledgeBases()) {
      const role = await store.getRole(knowledgeBase.id, user.id);
      if (role) result.push({ id: knowledgeBase.id, name: knowledgeBase.name, role });
    }
    response.json({ knowledge_bases: result } satisfies KnowledgeBaseList);
  });

  router.get('/knowledge-bases/:kbId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    const knowledgeBase = (await store.getKnowledgeBase(kbId))!;
    response.json({
      id: knowledgeBase.id,
      name: knowledgeBase.name,
      role,
      can_issue_tokens: hasUpdatePermission(role),
      can_manage_members: canManageMembers(role),
      can_edit_documents: hasUpdatePermission(role),
      token_ttl_cap_minutes: deps.tokenTtlCapMinutes,
      token_ttl_default_minutes: Math.min(60, deps.tokenTtlCapMinutes),
    } satisfies KnowledgeBaseDetail);
  });

  router.get('/knowledge-bases/:kbId/documents', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    const user = signedInUser(response);
    const documents = (await store.listDocuments(kbId)).filter((document) => canReadDocument(user.id, role, document));
    response.json({ documents: documents.map(toConsoleDocument) } satisfies DocumentList);
  });

  return router;
}
