import type { Request, Response } from 'express';
import type { DocumentList, KnowledgeBaseDetail, KnowledgeBaseList } from '../../protocol/console-protocol.ts';
import { canManageMembers, canReadDocument, hasUpdatePermission } from '../access/access-rules.ts';
import { json, kbId as kbIdParameter, ref } from '../http/openapi-parts.ts';
import type { RouteRecord } from '../http/route-record.ts';
import { membership, signedInUser, toConsoleDocument, type ConsoleRouteDeps } from './console-context.ts';
import { consoleErrors } from './openapi-parts.ts';

/** The knowledge bases the signed-in person is a member of, with their role in each. */
async function listKnowledgeBases(_request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const user = signedInUser(response);
  const result = [];
  for (const knowledgeBase of await deps.store.listKnowledgeBases()) {
    const role = await deps.store.getRole(knowledgeBase.id, user.id);
    if (role) result.push({ id: knowledgeBase.id, name: knowledgeBase.name, role });
  }
  response.json({ knowledge_bases: result } satisfies KnowledgeBaseList);
}

/** One knowledge base, with what the person may do there and the token lifetime limits. */
async function showKnowledgeBase(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  const knowledgeBase = (await deps.store.getKnowledgeBase(kbId))!;
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
}

/** The documents of the knowledge base the person can read, with their visibility. */
async function listDocuments(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  const user = signedInUser(response);
  const documents = (await deps.store.listDocuments(kbId)).filter((document) => canReadDocument(user.id, role, document));
  response.json({ documents: documents.map(toConsoleDocument) } satisfies DocumentList);
}

/**
 * The knowledge bases a person is a member of, one knowledge base with what
 * they may do there, and the documents of it they can read.
 */
export const KNOWLEDGE_BASE_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'get',
    path: '/knowledge-bases',
    operation: {
      summary: 'Knowledge bases the person is a member of',
      security: [{ consoleSession: [] }],
      responses: { '200': json(ref('KnowledgeBaseList'), "Knowledge bases with the person's role"), '401': consoleErrors['401'] },
    },
    handler: listKnowledgeBases,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId',
    operation: {
      summary: 'One knowledge base, with what the person may do and the token lifetime limits',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: { '200': json(ref('KnowledgeBaseDetail'), 'The knowledge base'), ...consoleErrors },
    },
    handler: showKnowledgeBase,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/documents',
    operation: {
      summary: 'Documents of the knowledge base the person can read, with their visibility',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: { '200': json(ref('DocumentList'), 'Documents'), ...consoleErrors },
    },
    handler: listDocuments,
  },
];

