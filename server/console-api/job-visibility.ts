import type { Role, Store } from '../store/store.ts';
import { readableDocuments } from './console-context.ts';

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
