import type { Request, Response } from 'express';
import type { Role, Store } from '../store/store.ts';
import { problem } from '../http/problem.ts';
import { emailsByUserId, membership, readableDocuments, signedInUser } from './console-context.ts';

/**
 * Which document ids of an ingest job (an upload, a website import) a
 * member viewing it may see: all of them when they started it (the ids are
 * theirs: files they sent, pages they asked for), otherwise only those of
 * documents they can read now, so that following someone else's job never
 * reveals the ids - often titles - of restricted documents. A document
 * removed since is no longer readable, so its id is shown only to the
 * job's starter.
 *
 * @param jobs the jobs viewed; the knowledge base's documents are read only when one of them is someone else's
 * @returns per job, whether a document id of it may be shown
 */
export async function jobDocumentFilter(
  store: Pick<Store, 'listDocuments'>,
  viewer: { kbId: string; userId: string; role: Role },
  jobs: readonly { startedBy: string }[],
): Promise<(job: { startedBy: string }) => (docId: string) => boolean> {
  if (jobs.every((job) => job.startedBy === viewer.userId)) return () => () => true;
  const readable = await readableDocuments(store, viewer.kbId, viewer.userId, viewer.role);
  return (job) => (job.startedBy === viewer.userId ? () => true : (docId) => readable.has(docId));
}

/** A kind of ingest job as {@link sendJobList} and {@link sendJob} serve it. */
export interface JobKindView<Job extends { id: string; startedBy: string }, View> {
  /** The path segment and list key: `imports`, `uploads`. */
  plural: string;
  /** For a 404's sentence, and the path parameter `{singular}Id`: `import`, `upload`. */
  singular: string;
  list(kbId: string): Job[];
  get(kbId: string, id: string): Job | undefined;
  /** The job as the console API shows it, its starter's email given, with only the document ids `shown` allows. */
  toView(job: Job, emails: ReadonlyMap<string, string>, shown: (docId: string) => boolean): View;
}

/** The store's reads a job view needs: the viewer's role, the starters' emails, the readable documents. */
type JobViewStore = Pick<Store, 'getRole' | 'getUser' | 'listDocuments'>;

/**
 * Answers `GET …/{plural}` for any member: the knowledge base's jobs of a
 * kind, newest first, under the `plural` key, each showing only the
 * document ids its viewer may see ({@link jobDocumentFilter}).
 */
export async function sendJobList<Job extends { id: string; startedBy: string }, View>(
  request: Request,
  response: Response,
  store: JobViewStore,
  kind: JobKindView<Job, View>,
): Promise<void> {
  const { kbId, role } = await membership(store, request, response);
  response.json({ [kind.plural]: await jobViews(store, kind, { kbId, role, userId: signedInUser(response).id }, kind.list(kbId)) });
}

/**
 * Answers `GET …/{plural}/{singular}Id` for any member: one job, showing
 * only the document ids its viewer may see.
 *
 * @throws a 404 `not_found` problem when the knowledge base has no such job
 */
export async function sendJob<Job extends { id: string; startedBy: string }, View>(
  request: Request,
  response: Response,
  store: JobViewStore,
  kind: JobKindView<Job, View>,
): Promise<void> {
  const { kbId, role } = await membership(store, request, response);
  // The parameter is named as the document names it (`importId`, `uploadId`).
  const id = String(request.params[`${kind.singular}Id`]);
  const job = kind.get(kbId, id);
  if (!job) throw problem(404, 'not_found', `No ${kind.singular} "${id}" in knowledge base "${kbId}"`);
  response.json((await jobViews(store, kind, { kbId, role, userId: signedInUser(response).id }, [job]))[0]);
}

/** The jobs as their viewer may see them, their starters' emails looked up once. */
async function jobViews<Job extends { id: string; startedBy: string }, View>(
  store: JobViewStore,
  kind: JobKindView<Job, View>,
  viewer: { kbId: string; userId: string; role: Role },
  jobs: Job[],
): Promise<View[]> {
  const emails = await emailsByUserId(store, jobs.map((job) => job.startedBy));
  const shownOf = await jobDocumentFilter(store, viewer, jobs);
  return jobs.map((job) => kind.toView(job, emails, shownOf(job)));
}
