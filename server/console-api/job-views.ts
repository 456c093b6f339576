import type { Router } from 'express';
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

/** A kind of ingest job as {@link jobReadRoutes} serves it. */
export interface JobKindView<Job extends { id: string; startedBy: string }, View> {
  /** The path segment and list key: `imports`, `uploads`. */
  plural: string;
  /** For a 404's sentence: `import`, `upload`. */
  singular: string;
  list(kbId: string): Job[];
  get(kbId: string, id: string): Job | undefined;
  /** The job as the console API shows it, its starter's email given, with only the document ids `shown` allows. */
  toView(job: Job, emails: ReadonlyMap<string, string>, shown: (docId: string) => boolean): View;
}

/**
 * Adds `GET …/{plural}` (the knowledge base's jobs of a kind, newest
 * first) and `GET …/{plural}/{id}` (one, 404 when unknown) for any member,
 * each job showing only the document ids its viewer may see
 * ({@link jobDocumentFilter}).
 */
export function jobReadRoutes<Job extends { id: string; startedBy: string }, View>(
  router: Router,
  store: Pick<Store, 'getRole' | 'getUser' | 'listDocuments'>,
  kind: JobKindView<Job, View>,
): void {
  const views = async (kbId: string, role: Role, userId: string, jobs: Job[]): Promise<View[]> => {
    const emails = await emailsByUserId(store, jobs.map((job) => job.startedBy));
    const shownOf = await jobDocumentFilter(store, { kbId, userId, role }, jobs);
    return jobs.map((job) => kind.toView(job, emails, shownOf(job)));
  };
  router.get(`/knowledge-bases/:kbId/${kind.plural}`, async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    response.json({ [kind.plural]: await views(kbId, role, signedInUser(response).id, kind.list(kbId)) });
  });
  // The parameter is named as the document names it (`importId`, `uploadId`).
  const jobId = `${kind.singular}Id`;
  router.get(`/knowledge-bases/:kbId/${kind.plural}/:${jobId}`, async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    const job = kind.get(kbId, String(request.params[jobId]));
    if (!job) throw problem(404, 'not_found', `No ${kind.singular} "${String(request.params[jobId])}" in knowledge base "${kbId}"`);
    response.json((await views(kbId, role, signedInUser(response).id, [job]))[0]);
  });
}
