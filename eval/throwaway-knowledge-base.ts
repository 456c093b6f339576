import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestPaths, type IngestReport } from '../server/ingest/ingest-files.ts';
import { embeddedStoreLocation, openStore } from '../server/store/open-store.ts';
import type { Reach, Store } from '../server/store/store.ts';
import { createLexicalRetriever } from '../server/retrieval/lexical-retriever.ts';
import type { Retriever } from '../server/retrieval/retriever.ts';

/**
 * A knowledge base that lives for one evaluation: an embedded store in a
 * temporary folder, filled through the normal ingestion path (`ingestPaths`,
 * exactly as `npm run kb -- ingest` does, over source files written to disk
 * or over a folder given as it is), and removed with everything in it by
 * {@link ThrowawayKnowledgeBase.close}.
 */
export interface ThrowawayKnowledgeBase {
  store: Store;
  /** The lexical retriever over `store`, as an answer worker has one. */
  retriever: Retriever;
  /** What an anonymous asker reaches: every document (all are public). */
  reach: Reach;
  /** Ingestion's report (documents created, failed). */
  report: IngestReport;
  /** Wall-clock milliseconds spent opening the store, writing the files (if any) and ingesting them. */
  ingestMilliseconds: number;
  /** Closes the store and deletes the folder. */
  close(): Promise<void>;
}

/** One source file of the knowledge base. */
export interface SourceDocument {
  /** File name, with an extension the ingester reads (`.md`, `.txt`); becomes the document id. */
  fileName: string;
  text: string;
}

/**
 * @param kbId id of the knowledge base (also used in the folder's name)
 * @param documents the files to ingest, public and quotable
 * @throws Error when a document fails to ingest (an evaluation over a partial corpus would mislead)
 */
export async function createThrowawayKnowledgeBase(
  kbId: string,
  documents: readonly SourceDocument[],
): Promise<ThrowawayKnowledgeBase> {
  const knowledgeBase = await openThrowawayKnowledgeBase(kbId, async (folder) => {
    const sources = join(folder, 'sources');
    await mkdir(sources);
    for (const document of documents) await writeFile(join(sources, document.fileName), document.text);
    return [sources];
  });
  const [failure] = knowledgeBase.report.failed;
  if (failure) {
    await knowledgeBase.close();
    throw new Error(`Ingesting "${failure.docId}" into ${kbId} failed: ${failure.reason}`);
  }
  return knowledgeBase;
}

/**
 * A throwaway knowledge base of files and folders already on disk (a docs
 * site's source), ingested in place as `npm run kb -- ingest <paths>` would:
 * a file inside a given folder gets its path relative to that folder as its
 * document id. Files that fail to ingest are listed in the report, not
 * thrown: the caller decides whether a partial corpus is acceptable.
 *
 * @param kbId id of the knowledge base (also used in the folder's name)
 * @param paths files and folders, read and never written
 * @throws Error when a path does not exist (from `ingestPaths`)
 */
export async function ingestThrowawayKnowledgeBase(kbId: string, paths: readonly string[]): Promise<ThrowawayKnowledgeBase> {
  return openThrowawayKnowledgeBase(kbId, async () => [...paths]);
}

/**
 * Opens an embedded store in a new temporary folder, creates the knowledge
 * base with an owner, and ingests the paths `prepare` returns (it may write
 * them into the folder it is given) as public, quotable documents.
 */
async function openThrowawayKnowledgeBase(
  kbId: string,
  prepare: (folder: string) => Promise<string[]>,
): Promise<ThrowawayKnowledgeBase> {
  const started = performance.now();
  const folder = await mkdtemp(join(tmpdir(), `kb-eval-${kbId}-`));
  const store = openStore(embeddedStoreLocation(folder));
  const close = async (): Promise<void> => {
    await store.close();
    await rm(folder, { recursive: true, force: true });
  };
  try {
    const paths = await prepare(folder);
    const owner = await store.createUser({ email: 'eval@example.com', name: 'Eval' });
    await store.createKnowledgeBase({ id: kbId, name: kbId });
    await store.setRole(kbId, owner.id, 'owner');
    const report = await ingestPaths(store, { kbId, paths, visibility: 'public', readers: [], quotable: true });
    return {
      store,
      retriever: createLexicalRetriever(store),
      reach: { kbId, userId: '', visibilities: ['public'] },
      report,
      ingestMilliseconds: performance.now() - started,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
