import type { Request, Response } from 'express';
import type { z } from 'zod';
import { canReadDocument, hasUpdatePermission, ReadersNotMembersError, requireReadersAreMembers } from '../access/access-rules.ts';
import type { ConsoleLocals } from '../http/console-session.ts';
import { problem } from '../http/problem.ts';
import type { ImportJobs } from '../ingest/jobs/import-jobs.ts';
import type { UploadJobs } from '../ingest/jobs/upload-jobs.ts';
import type { ConsoleDocument } from '../../protocol/console-protocol.ts';
import type { DocumentRecord, Role, Store, User } from '../store/store.ts';

/**
 * What every console API route needs: the store, the clock, the platform's
 * token settings, and the checks each route starts with. Shared by the
 * per-resource route files (knowledge-base-routes.ts, document-routes.ts,
 * feedback-list-routes.ts, member-routes.ts, token-routes.ts).
 */
export interface ConsoleRouteDeps {
  store: Store;
  now: () => number;
  /** Platform cap on token lifetimes, minutes (shown to the form, enforced on issue). */
  tokenTtlCapMinutes: number;
  /** Public base URL of the API, for the ready-to-paste snippet. */
  publicBaseUrl: (request: Request) => string;
  /** The website imports running and finished (console-api/import-routes.ts). */
  imports: ImportJobs;
  /** The uploads of files running and finished (console-api/upload-routes.ts), in the imports' registry. */
  uploads: UploadJobs;
  /** Private addresses a website import may reach (`KB_IMPORT_ALLOW_PRIVATE_ADDRESSES`): none, all, or a list. */
  importAllowPrivateAddresses: boolean | readonly string[];
}

/** The signed-in person (the session check runs before every console route: app.ts). */
export function signedInUser(response: Response): User {
  return (response.locals as ConsoleLocals).user;
}

/**
 * The signed-in person's role on the request's `kbId`.
 *
 * @throws a 404 `not_found` problem when they are not a member: a knowledge
 *   base the person is not a member of is not revealed
 */
export async function membership(store: Pick<Store, 'getRole'>, request: Request, response: Response): Promise<{ kbId: string; role: Role }> {
  const kbId = String(request.params.kbId);
  const role = await store.getRole(kbId, signedInUser(response).id);
  if (!role) throw problem(404, 'not_found', `No knowledge base "${kbId}" that you are a member of`);
  return { kbId, role };
}

/**
 * @param action what is refused, as the start of a sentence ("Issuing a token")
 * @throws a 403 `forbidden` problem when the role has no update permission
 */
export function requireUpdatePermission(role: Role, action: string): void {
  if (!hasUpdatePermission(role)) {
    throw problem(403, 'forbidden', `${action} needs update permission (editor or owner); your role is ${role}`);
  }
}

/**
 * A request body validated by its protocol schema (protocol/console-protocol.ts).
 *
 * @throws a 400 `invalid_request` problem naming the first field that is wrong
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw problem(400, 'invalid_request', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/**
 * Validates a request's query string against `schema`.
 *
 * @throws a 400 `invalid_request` problem naming the first bad parameter and
 *   its value, or the unknown parameters
 */
export function parseQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join('.');
    if (!name) throw problem(400, 'invalid_request', `Query: ${issue?.message ?? 'invalid'}`);
    const value = (query as Record<string, unknown>)[name];
    throw problem(400, 'invalid_request', `${name}: ${issue?.message ?? 'invalid'}, got ${JSON.stringify(value)}`);
  }
  return parsed.data;
}

/**
 * Why `docId` is not a document id the console API takes, as a sentence
 * naming it; undefined when it is one: a relative path of 1 to 300
 * characters, without empty, `.` or `..` segments (ids may contain `/`).
 */
export function documentIdProblem(docId: string): string | undefined {
  const segments = docId.split('/');
  if (docId.length > 0 && docId.length <= 300 && !segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return undefined;
  return `"${docId}" is not a document id: use a relative path such as guides/setup.md`;
}

/** A stored document as the console API shows it: its readers only when it is `restricted`. */
export function toConsoleDocument(document: DocumentRecord): ConsoleDocument {
  return {
    doc_id: document.docId,
    title: document.title,
    visibility: document.visibility,
    ...(document.visibility === 'restricted' ? { readers: [...document.readers] } : {}),
    quotable: document.quotable,
    passages: document.chunkCount,
    updated_at: new Date(document.updatedAt).toISOString(),
  };
}

/** The documents of a knowledge base a person can read, by id. */
export async function readableDocuments(store: Pick<Store, 'listDocuments'>, kbId: string, userId: string, role: Role): Promise<Map<string, DocumentRecord>> {
  const documents = await store.listDocuments(kbId);
  return new Map(documents.filter((document) => canReadDocument(userId, role, document)).map((document) => [document.docId, document]));
}

/**
 * The emails of some users, by id, each looked up once (a job is polled
 * every second: not the whole user list); a removed user is absent.
 */
export async function emailsByUserId(store: Pick<Store, 'getUser'>, userIds: readonly string[]): Promise<Map<string, string>> {
  const users = await Promise.all([...new Set(userIds)].map((userId) => store.getUser(userId)));
  return new Map(users.flatMap((user) => (user ? [[user.id, user.email] as const] : [])));
}

/**
 * Checks that the readers chosen for restricted documents are members of
 * the knowledge base.
 *
 * @throws a 400 `invalid_request` problem naming the readers who are not members
 */
export async function requireMemberReaders(store: Parameters<typeof requireReadersAreMembers>[0], kbId: string, readers: readonly string[]): Promise<void> {
  try {
    await requireReadersAreMembers(store, kbId, readers);
  } catch (error) {
    if (error instanceof ReadersNotMembersError) throw problem(400, 'invalid_request', error.message);
    throw error;
  }
}
