import type { Request, Response } from 'express';
import { DocumentAccessRequestSchema, DocumentRequestSchema, type StoredDocument } from '../../protocol/console-protocol.ts';
import { canReadDocument } from '../access/access-rules.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { problem } from '../http/problem.ts';
import type { RouteRecord } from '../http/route-record.ts';
import { ingestSource, SourceRejectedError } from '../ingest/pipeline/ingest-source.ts';
import type { PutOutcome, Role, Store } from '../store/store.ts';
import { documentIdProblem, membership, parseBody, requireMemberReaders, requireUpdatePermission, signedInUser, toConsoleDocument, type ConsoleRouteDeps } from './console-context.ts';
import { consoleErrors, documentId } from './openapi-parts.ts';

/**
 * Adds or replaces one document from its source (text, or bytes in base64
 * for a PDF), through the same parsing, chunking and indexing as `kb
 * ingest`, in one transaction. The id's extension picks the format
 * (`.md`, `.html`, `.txt`, `.pdf`, ...); a
 * `restricted` document's readers must be members. Replacing or removing
 * a document needs update permission and being able to read it.
 */
async function putDocument(request: Request, response: Response, { store }: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Adding a document');
  const docId = documentIdOf(request);
  const body = parseBody(DocumentRequestSchema, request.body);
  const readers = body.readers ?? [];
  await requireMemberReaders(store, kbId, readers);
  await requireReadableIfExists(store, response, kbId, role, docId, 'replace');
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
}

/** Changes who may read one document and whether it may be quoted; its passages are kept. */
async function changeDocumentAccess(request: Request, response: Response, { store }: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Changing access to a document');
  const docId = documentIdOf(request);
  const body = parseBody(DocumentAccessRequestSchema, request.body);
  const readers = body.visibility === 'restricted' ? (body.readers ?? []) : [];
  await requireMemberReaders(store, kbId, readers);
  if (!(await requireReadableIfExists(store, response, kbId, role, docId, 'change access to'))) {
    throw problem(404, 'not_found', `No document "${docId}" in knowledge base "${kbId}"`);
  }
  await store.setDocumentAccess(kbId, docId, { visibility: body.visibility, readers, quotable: body.quotable ?? true });
  response.json(toConsoleDocument((await store.getDocument(kbId, docId))!));
}

/** Removes one document and its passages. */
async function removeDocument(request: Request, response: Response, { store }: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Removing a document');
  const docId = documentIdOf(request);
  await requireReadableIfExists(store, response, kbId, role, docId, 'remove');
  if (!(await store.removeDocument(kbId, docId))) throw problem(404, 'not_found', `No document "${docId}" in knowledge base "${kbId}"`);
  response.status(204).end();
}

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
async function requireReadableIfExists(store: Store, response: Response, kbId: string, role: Role, docId: string, action: string): Promise<boolean> {
  const existing = await store.getDocument(kbId, docId);
  if (!existing) return false;
  const user = signedInUser(response);
  if (!canReadDocument(user.id, role, existing)) throw problem(403, 'forbidden', `You cannot ${action} "${docId}": it is a document you cannot read`);
  return true;
}

/** Adding, replacing and removing one document of a knowledge base (editors and owners who can read it). */
export const DOCUMENT_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'put',
    path: '/knowledge-bases/:kbId/documents/*docId',
    body: DocumentRequestSchema,
    operation: {
      summary:
        "Add or replace one document from its source (editors and owners), indexed like `kb ingest` in one transaction; the id's extension picks the format (.md, .markdown, .html, .htm, .txt, .text, .pdf; a PDF's bytes are sent as `content_base64`)",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, documentId],
      requestBody: { description: 'At most 25 MiB of JSON' },
      responses: {
        '200': json(ref('StoredDocument'), 'Replaced (`outcome: updated`) or already identical (`outcome: unchanged`)'),
        '201': json(ref('StoredDocument'), 'Added (`outcome: created`)'),
        '400': problemResponse('Unsupported extension, empty or non-UTF-8 source, readers who are not members, a malformed id (`invalid_request`)'),
        '413': problemResponse('Body over 25 MiB (`payload_too_large`)'),
        ...consoleErrors,
      },
    },
    handler: putDocument,
  },
  {
    method: 'patch',
    path: '/knowledge-bases/:kbId/documents/*docId',
    body: DocumentAccessRequestSchema,
    operation: {
      summary: 'Change who may read one document and whether it may be quoted (editors and owners who can read it); its passages are kept',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, documentId],
      responses: {
        '200': json(ref('ConsoleDocument'), 'The document with its new access'),
        '400': problemResponse('Readers who are not members, a malformed id (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: changeDocumentAccess,
  },
  {
    method: 'delete',
    path: '/knowledge-bases/:kbId/documents/*docId',
    operation: {
      summary: 'Remove one document and its passages (editors and owners who can read it)',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, documentId],
      responses: { '204': { description: 'Removed' }, ...consoleErrors },
    },
    handler: removeDocument,
  },
];
