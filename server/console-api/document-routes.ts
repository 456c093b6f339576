import { Router, type Request, type Response } from 'express';
import { DocumentAccessRequestSchema, DocumentRequestSchema, type StoredDocument } from '../../protocol/console-protocol.ts';
import { canReadDocument } from '../access/access-rules.ts';
import { problem } from '../http/problem.ts';
import { ingestSource, SourceRejectedError } from '../ingest/pipeline/ingest-source.ts';
import type { PutOutcome, Role } from '../store/store.ts';
import { documentIdProblem, membership, parseBody, requireMemberReaders, requireUpdatePermission, signedInUser, toConsoleDocument, type ConsoleRouteDeps } from './console-context.ts';

/** Adding, replacing and removing one document of a knowledge base (editors and owners). */
export function documentRoutes(deps: ConsoleRouteDeps): Router {
  const { store } = deps;
  const router = Router();

  /**
   * Adds or replaces one document from its source (text, or bytes in base64
   * for a PDF), through the same parsing, chunking and indexing as `kb
   * ingest`, in one transaction. The id's extension picks the format
   * (`.md`, `.html`, `.txt`, `.pdf`, ...); a
   * `restricted` document's readers must be members. Replacing or removing
   * a document needs update permission and being able to read it.
   */
  router.put('/knowledge-bases/:kbId/documents/*docId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Adding a document');
    const docId = documentIdOf(request);
    const body = parseBody(DocumentRequestSchema, request.body);
    const readers = body.readers ?? [];
    await requireMemberReaders(store, kbId, readers);
    await requireReadableIfExists(response, kbId, role, docId, 'replace');
    let outcome: PutOutcome;
    try {
      outcome = await ingestSource(store, {
        kbId,
        docId,
        bytes: body.content !== undefined ? Buffer.from(body.content, 'utf8') : Buffer.from(body.content_base64!, 'base64'),
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

  /** Changes who may read one document and whether it may be quoted; its passages are kept. */
  router.patch('/knowledge-bases/:kbId/documents/*docId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Changing access to a document');
    const docId = documentIdOf(request);
    const body = parseBody(DocumentAccessRequestSchema, request.body);
    const readers = body.visibility === 'restricted' ? (body.readers ?? []) : [];
    await requireMemberReaders(store, kbId, readers);
    if (!(await requireReadableIfExists(response, kbId, role, docId, 'change access to'))) {
      throw problem(404, 'not_found', `No document "${docId}" in knowledge base "${kbId}"`);
    }
    await store.setDocumentAccess(kbId, docId, { visibility: body.visibility, readers, quotable: body.quotable ?? true });
    response.json(toConsoleDocument((await store.getDocument(kbId, docId))!));
  });

  router.delete('/knowledge-bases/:kbId/documents/*docId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Removing a document');
    const docId = documentIdOf(request);
    await requireReadableIfExists(response, kbId, role, docId, 'remove');
    if (!(await store.removeDocument(kbId, docId))) throw problem(404, 'not_found', `No document "${docId}" in knowledge base "${kbId}"`);
    response.status(204).end();
  });

  /** A document id from the path's remaining segments (ids may contain `/`). */
  function documentIdOf(request: Request): string {
    const docId = (request.params.docId as unknown as string[]).join('/');
    const invalid = documentIdProblem(docId);
    if (invalid !== undefined) throw problem(400, 'invalid_request', invalid);
    return docId;
  }

  /**
   * @returns whether the document exists
   * @throws a 403 problem when it exists and the signed-in person cannot read it
   */
  async function requireReadableIfExists(response: Response, kbId: string, role: Role, docId: string, action: string): Promise<boolean> {
    const existing = await store.getDocument(kbId, docId);
    if (!existing) return false;
    const user = signedInUser(response);
    if (!canReadDocument(user.id, role, existing)) throw problem(403, 'forbidden', `You cannot ${action} "${docId}": it is a document you cannot read`);
    return true;
  }

  return router;
}
