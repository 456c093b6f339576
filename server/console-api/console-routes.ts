import { Router, type Request, type Response } from 'express';
import type { z } from 'zod';
import {
  DocumentRequestSchema,
  IssueTokenRequestSchema,
  MAX_DOCUMENT_BODY_BYTES,
  PreviewTokenRequestSchema,
  RoleRequestSchema,
  type ConsoleToken,
  type DocumentList,
  type FeedbackPage,
  type IssuedToken,
  type KnowledgeBaseDetail,
  type KnowledgeBaseList,
  type MemberList,
  type MemberRole,
  type PreviewToken,
  type StoredDocument,
  type TokenList,
} from '../../protocol/console-protocol.ts';
import { canManageMembers, canReadDocument, hasUpdatePermission, memberReach, ReadersNotMembersError, removesLastOwner, requireReadersAreMembers } from '../access/access-rules.ts';
import { problem } from '../http/problem.ts';
import type { ConsoleLocals } from '../http/console-session.ts';
import { ownOrigin } from '../http/same-origin-check.ts';
import { feedbackCursor, feedbackPage, toConsoleFeedback } from './feedback-page.ts';
import { issueToken, TokenIssueError, type IssueTokenInput } from '../auth/widget-tokens.ts';
import { ingestSource, SourceRejectedError } from '../ingest/ingest-source.ts';
import type { PutOutcome, Role, Store, TokenRecord } from '../store/store.ts';

/**
 * The console's JSON API behind the Developers tab (issue 4), relative to
 * `/console/api`. Every route needs a signed-in person (app.ts mounts the
 * session check first); widget tokens are never accepted here. Access
 * follows the workspace roles (DESIGN.md "Access rules"):
 *
 * - any member of a knowledge base sees it, the documents they can read, its
 *   members and its tokens;
 * - `editor` and `owner` (update permission) issue and revoke tokens,
 *   including the Developers tab's preview tokens, and read visitors' feedback;
 * - `owner` changes roles and removes members.
 *
 * A knowledge base the person is not a member of answers 404, so its
 * existence is not revealed. Shapes are documented in `/openapi.json`.
 */
export interface ConsoleRouteDeps {
  store: Store;
  now: () => number;
  /** Platform cap on token lifetimes, minutes (shown to the form, enforced on issue). */
  tokenTtlCapMinutes: number;
  /** Public base URL of the API, for the ready-to-paste snippet. */
  publicBaseUrl: (request: Request) => string;
}

/**
 * Lifetime of a preview token, minutes: long enough to try a few questions,
 * short enough that a forgotten tab holds no working token for long. Capped
 * by the platform cap when that is lower.
 */
export const PREVIEW_TOKEN_TTL_MINUTES = 10;

export { MAX_DOCUMENT_BODY_BYTES };

export function consoleRoutes(deps: ConsoleRouteDeps): Router {
  const { store } = deps;
  const router = Router();

  /** The signed-in person's role on `kbId`, or a 404 when they are not a member. */
  async function membership(request: Request, response: Response): Promise<{ kbId: string; role: Role }> {
    const { user } = response.locals as ConsoleLocals;
    const kbId = String(request.params.kbId);
    const role = await store.getRole(kbId, user.id);
    if (!role) throw problem(404, 'not_found', `No knowledge base "${kbId}" that you are a member of`);
    return { kbId, role };
  }

  function requireUpdatePermission(role: Role, action: string): void {
    if (!hasUpdatePermission(role)) {
      throw problem(403, 'forbidden', `${action} needs update permission (editor or owner); your role is ${role}`);
    }
  }

  function parse<T>(schema: z.ZodType<T>, body: unknown): T {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw problem(400, 'invalid_request', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  }

  router.get('/knowledge-bases', async (_request, response) => {
    const { user } = response.locals as ConsoleLocals;
    const result = [];
    for (const knowledgeBase of await store.listKnowledgeBases()) {
      const role = await store.getRole(knowledgeBase.id, user.id);
      if (role) result.push({ id: knowledgeBase.id, name: knowledgeBase.name, role });
    }
    response.json({ knowledge_bases: result } satisfies KnowledgeBaseList);
  });

  router.get('/knowledge-bases/:kbId', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    const knowledgeBase = (await store.getKnowledgeBase(kbId))!;
    response.json({
      id: knowledgeBase.id,
      name: knowledgeBase.name,
      role,
      can_issue_tokens: hasUpdatePermission(role),
      can_manage_members: canManageMembers(role),
      token_ttl_cap_minutes: deps.tokenTtlCapMinutes,
      token_ttl_default_minutes: Math.min(60, deps.tokenTtlCapMinutes),
    } satisfies KnowledgeBaseDetail);
  });

  router.get('/knowledge-bases/:kbId/documents', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    const { user } = response.locals as ConsoleLocals;
    const documents = (await store.listDocuments(kbId)).filter((document) => canReadDocument(user.id, role, document));
    response.json({
      documents: documents.map((document) => ({
        doc_id: document.docId,
        title: document.title,
        visibility: document.visibility,
        quotable: document.quotable,
        passages: document.chunkCount,
        updated_at: new Date(document.updatedAt).toISOString(),
      })),
    } satisfies DocumentList);
  });

  /**
   * Adds or replaces one document from its source text, through the same
   * parsing, chunking and indexing as `kb ingest`, in one transaction. The
   * id's extension picks the format (`.md`, `.html`, `.txt`, ...); a
   * `restricted` document's readers must be members. Replacing or removing
   * a document needs update permission and being able to read it.
   */
  router.put('/knowledge-bases/:kbId/documents/*docId', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    requireUpdatePermission(role, 'Adding a document');
    const docId = documentIdOf(request);
    const body = parse(DocumentRequestSchema, request.body);
    const readers = body.readers ?? [];
    try {
      await requireReadersAreMembers(store, kbId, readers);
    } catch (error) {
      if (error instanceof ReadersNotMembersError) throw problem(400, 'invalid_request', error.message);
      throw error;
    }
    await requireReadableIfExists(response, kbId, role, docId, 'replace');
    let outcome: PutOutcome;
    try {
      outcome = await ingestSource(store, {
        kbId,
        docId,
        bytes: Buffer.from(body.content, 'utf8'),
        visibility: body.visibility,
        readers,
        quotable: body.quotable ?? true,
      });
    } catch (error) {
      if (error instanceof SourceRejectedError) throw problem(400, 'invalid_request', `${docId}: ${error.message}`);
      throw error;
    }
    const stored = (await store.getDocument(kbId, docId))!;
    response.status(outcome === 'created' ? 201 : 200).json({
      doc_id: docId,
      outcome,
      title: stored.title,
      visibility: stored.visibility,
      quotable: stored.quotable,
      passages: stored.chunkCount,
      updated_at: new Date(stored.updatedAt).toISOString(),
    } satisfies StoredDocument);
  });

  router.delete('/knowledge-bases/:kbId/documents/*docId', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    requireUpdatePermission(role, 'Removing a document');
    const docId = documentIdOf(request);
    await requireReadableIfExists(response, kbId, role, docId, 'remove');
    if (!(await store.removeDocument(kbId, docId))) throw problem(404, 'not_found', `No document "${docId}" in knowledge base "${kbId}"`);
    response.status(204).end();
  });

  /** A document id from the path's remaining segments (ids may contain `/`). */
  function documentIdOf(request: Request): string {
    const segments = request.params.docId as unknown as string[];
    const docId = segments.join('/');
    if (docId.length === 0 || docId.length > 300 || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
      throw problem(400, 'invalid_request', `"${docId}" is not a document id: use a relative path such as guides/setup.md`);
    }
    return docId;
  }

  async function requireReadableIfExists(response: Response, kbId: string, role: Role, docId: string, action: string): Promise<void> {
    const existing = await store.getDocument(kbId, docId);
    if (!existing) return;
    const { user } = response.locals as ConsoleLocals;
    if (!canReadDocument(user.id, role, existing)) throw problem(403, 'forbidden', `You cannot ${action} "${docId}": it is a document you cannot read`);
  }

  /**
   * Visitors' ratings and problem reports, newest first, a page at a time
   * (feedback-page.ts), for editors and owners. Passages are judged by the
   * reader's own reach: a document they cannot read is not named.
   */
  router.get('/knowledge-bases/:kbId/feedback', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    requireUpdatePermission(role, 'Reading feedback');
    const { user } = response.locals as ConsoleLocals;
    const { limit, before } = feedbackPage(request.query);
    const reach = memberReach(kbId, user.id, role);
    const records = await store.listFeedback(reach, { limit: limit + 1, ...(before ? { before } : {}) });
    const page = records.slice(0, limit);
    response.json({
      feedback: page.map(toConsoleFeedback),
      ...(records.length > limit ? { next_cursor: feedbackCursor(page.at(-1)!) } : {}),
    } satisfies FeedbackPage);
  });

  router.get('/knowledge-bases/:kbId/members', async (request, response) => {
    const { kbId } = await membership(request, response);
    const members = await store.listMembers(kbId);
    response.json({ members: members.map((member) => ({ user_id: member.userId, email: member.email, role: member.role })) } satisfies MemberList);
  });

  router.put('/knowledge-bases/:kbId/members/:userId', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    if (!canManageMembers(role)) throw problem(403, 'forbidden', `Changing roles needs the owner role; your role is ${role}`);
    const { role: newRole } = parse(RoleRequestSchema, request.body);
    const userId = String(request.params.userId);
    if (!(await store.getUser(userId))) throw problem(404, 'not_found', `No user "${userId}"`);
    await guardLastOwner(store, kbId, userId, newRole);
    await store.setRole(kbId, userId, newRole);
    response.json({ user_id: userId, role: newRole } satisfies MemberRole);
  });

  router.delete('/knowledge-bases/:kbId/members/:userId', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    if (!canManageMembers(role)) throw problem(403, 'forbidden', `Removing members needs the owner role; your role is ${role}`);
    const userId = String(request.params.userId);
    await guardLastOwner(store, kbId, userId, undefined);
    await store.removeRole(kbId, userId);
    response.status(204).end();
  });

  router.get('/knowledge-bases/:kbId/tokens', async (request, response) => {
    const { kbId } = await membership(request, response);
    const emails = new Map((await store.listUsers()).map((user) => [user.id, user.email]));
    const now = deps.now();
    response.json({ tokens: (await store.listTokens(kbId)).map((token) => toConsoleToken(token, emails, now)) } satisfies TokenList);
  });

  /** Issues a token for the signed-in person through `issueToken`, its refusals turned into problems. */
  async function issueAsSignedIn(response: Response, input: Omit<IssueTokenInput, 'issuerId'>) {
    const { user } = response.locals as ConsoleLocals;
    try {
      const issued = await issueToken(store, { ...input, issuerId: user.id }, { ttlCapMinutes: deps.tokenTtlCapMinutes, now: deps.now() });
      return { token: issued.token, listed: toConsoleToken(issued.record, new Map([[user.id, user.email]]), deps.now()) };
    } catch (error) {
      if (error instanceof TokenIssueError) {
        throw error.reason === 'forbidden' ? problem(403, 'forbidden', error.message) : problem(400, 'invalid_request', error.message);
      }
      throw error;
    }
  }

  router.post('/knowledge-bases/:kbId/tokens', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    requireUpdatePermission(role, 'Issuing a token');
    const body = parse(IssueTokenRequestSchema, request.body);
    const issued = await issueAsSignedIn(response, {
      kbId,
      allowedOrigins: body.allowed_origins,
      ...(body.ttl_minutes === undefined ? {} : { ttlMinutes: body.ttl_minutes }),
      ...(body.scope === undefined ? {} : { scope: body.scope as TokenRecord['scope'] }),
    });
    const baseUrl = deps.publicBaseUrl(request);
    response.status(201).json({
      ...issued.listed,
      token: issued.token,
      snippet: `<script src="${baseUrl}/widget/kb-widget.js"></script>\n<kb-widget base-url="${baseUrl}" kb-id="${kbId}" token="${issued.token}"></kb-widget>`,
    } satisfies IssuedToken);
  });

  /**
   * A preview token for the Developers tab's live preview: an ordinary
   * widget token of the signed-in person (so the issuer's reach and the
   * scope apply as to any other), whose only allowed origin is the console's
   * own - the origin this request was addressed to, which the same-origin
   * check has already matched against the request's `Origin` - living
   * {@link PREVIEW_TOKEN_TTL_MINUTES} minutes, listed as `purpose: preview`.
   * A token for customers' pages cannot serve here, since the console's
   * origin is rightly not among its allowed origins.
   */
  router.post('/knowledge-bases/:kbId/tokens/preview', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    requireUpdatePermission(role, 'Issuing a preview token');
    const body = parse(PreviewTokenRequestSchema, request.body);
    const consoleOrigin = ownOrigin(request);
    if (consoleOrigin === undefined) {
      throw problem(400, 'invalid_request', `The console's own origin could not be read from the Host header "${request.get('host') ?? ''}"`);
    }
    const issued = await issueAsSignedIn(response, {
      kbId,
      allowedOrigins: [consoleOrigin],
      ttlMinutes: Math.min(PREVIEW_TOKEN_TTL_MINUTES, deps.tokenTtlCapMinutes),
      purpose: 'preview',
      ...(body.scope === undefined ? {} : { scope: body.scope as TokenRecord['scope'] }),
    });
    response.status(201).json({ ...issued.listed, token: issued.token } satisfies PreviewToken);
  });

  router.delete('/knowledge-bases/:kbId/tokens/:tokenId', async (request, response) => {
    const { kbId, role } = await membership(request, response);
    requireUpdatePermission(role, 'Revoking a token');
    const tokenId = String(request.params.tokenId);
    const token = (await store.listTokens(kbId)).find((candidate) => candidate.id === tokenId);
    if (!token) throw problem(404, 'not_found', `No token "${tokenId}" in knowledge base "${kbId}"`);
    await store.revokeToken(tokenId, deps.now());
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

function toConsoleToken(token: TokenRecord, emails: Map<string, string>, now: number): ConsoleToken {
  const result: ConsoleToken = {
    id: token.id,
    status: token.revokedAt !== undefined ? 'revoked' : now >= token.expiresAt ? 'expired' : 'active',
    issuer: (token.issuerId && emails.get(token.issuerId)) || '(removed user)',
    allowed_origins: token.allowedOrigins,
    scope: token.scope,
    purpose: token.purpose,
    created_at: new Date(token.createdAt).toISOString(),
    expires_at: new Date(token.expiresAt).toISOString(),
  };
  if (token.revokedAt !== undefined) result.revoked_at = new Date(token.revokedAt).toISOString();
  if (token.lastUsedAt !== undefined) result.last_used_at = new Date(token.lastUsedAt).toISOString();
  return result;
}
