import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, relative, resolve, sep } from 'node:path';
import { ingestSource, SourceRejectedError, SourceSkippedError, type SourceDocument } from './ingest-source.ts';
import { parserFor } from './source-formats.ts';
import { NotFoundError, type KnowledgeBase, type Store, type Visibility } from '../store/store.ts';

/**
 * Ingests files and folders of markdown, HTML and plain text into a knowledge
 * base: parse, cut into heading-aware chunks, analyze, and store each
 * document in its own transaction (a failed or interrupted ingest leaves every
 * document either at its previous or at its new version, never half-written).
 *
 * Re-ingest is idempotent: a file whose bytes and access options hash to the
 * stored content hash is neither parsed nor written. Ingesting a folder also
 * removes the documents previously ingested from that folder whose files are
 * gone (DESIGN.md "The engine": removed documents removed from the index).
 *
 * A page that is not published - a draft (front matter `draft: true`) or a
 * page with no text (a section index that is only front matter) - is
 * skipped with a warning, not a failure, and a version stored earlier is
 * removed: the knowledge base holds what the site publishes.
 */

export { INDEX_VERSION } from './ingest-source.ts';

export interface IngestOptions {
  kbId: string;
  /** Files and folders; folders are walked recursively (hidden entries skipped). */
  paths: string[];
  visibility: Visibility;
  /** User ids allowed to read `restricted` documents. */
  readers: string[];
  quotable: boolean;
  /** Called after each file, for progress display. */
  onProgress?: (progress: { done: number; total: number; docId: string }) => void;
}

/** What an ingest did, by document id. */
export interface IngestReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
  /**
   * Pages not published, so not indexed (drafts, pages without text): a
   * warning, not a failure. A version stored earlier was removed (and is
   * listed in `removed`).
   */
  skipped: { docId: string; path: string; reason: string }[];
  /** Files that could not be read or parsed; the previous version (if any) is kept. */
  failed: { docId: string; path: string; reason: string }[];
}

interface SourceFile {
  path: string;
  docId: string;
  /** The folder it was found in, when it came from a folder. */
  root?: string;
}

/**
 * @throws Error naming the path when a given path does not exist or is not a
 *   supported file, before anything is written
 * @throws NotFoundError when the knowledge base does not exist
 */
export async function ingestPaths(store: Store, options: IngestOptions): Promise<IngestReport> {
  const { files, folders, duplicates } = await collectSourceFiles(options.paths);
  const knowledgeBase = await store.getKnowledgeBase(options.kbId);
  if (knowledgeBase === undefined) throw new NotFoundError(`Knowledge base "${options.kbId}" does not exist`);
  const report: IngestReport = { created: [], updated: [], unchanged: [], removed: [], skipped: [], failed: [] };
  for (const duplicate of duplicates) {
    report.failed.push({
      docId: duplicate.docId,
      path: duplicate.path,
      reason: `Another file given in this ingest has the same document id "${duplicate.docId}"`,
    });
  }
  let done = 0;
  for (const file of files) {
    try {
      const outcome = await ingestFile(store, file, options, knowledgeBase, report);
      if (outcome) report[outcome].push(file.docId);
    } catch (error) {
      report.failed.push({ docId: file.docId, path: file.path, reason: (error as Error).message });
    }
    done += 1;
    options.onProgress?.({ done, total: files.length, docId: file.docId });
  }
  await pruneRemoved(store, options.kbId, folders, files, report);
  return report;
}

async function ingestFile(
  store: Store,
  file: SourceFile,
  options: IngestOptions,
  knowledgeBase: KnowledgeBase,
  report: IngestReport,
): Promise<'created' | 'updated' | 'unchanged' | undefined> {
  const source: SourceDocument = {
    kbId: options.kbId,
    docId: file.docId,
    bytes: await readFile(file.path),
    visibility: options.visibility,
    readers: options.readers,
    quotable: options.quotable,
  };
  try {
    return await ingestSource(store, file.root === undefined ? source : { ...source, sourceRoot: file.root }, knowledgeBase);
  } catch (error) {
    if (error instanceof SourceSkippedError) {
      report.skipped.push({ docId: file.docId, path: file.path, reason: error.message });
      if (await store.removeDocument(options.kbId, file.docId)) report.removed.push(file.docId);
      return undefined;
    }
    if (!(error instanceof SourceRejectedError)) throw error;
    report.failed.push({ docId: file.docId, path: file.path, reason: error.message });
    return undefined;
  }
}

async function pruneRemoved(
  store: Store,
  kbId: string,
  folders: readonly string[],
  files: readonly SourceFile[],
  report: IngestReport,
): Promise<void> {
  const roots = new Set(folders);
  if (roots.size === 0) return;
  const present = new Set(files.map((file) => file.docId));
  for (const document of await store.listDocuments(kbId)) {
    if (document.sourceRoot && roots.has(document.sourceRoot) && !present.has(document.docId)) {
      if (await store.removeDocument(kbId, document.docId)) report.removed.push(document.docId);
    }
  }
}

/** The files an ingest reads, the folders it syncs, and files whose document id was already taken. */
export interface SourceFiles {
  files: SourceFile[];
  /** Absolute paths of the folders given (their removed files are pruned). */
  folders: string[];
  /** Later files whose document id repeats an earlier one's; they are not read. */
  duplicates: SourceFile[];
}

/**
 * Expands paths into the supported files they name. A file's document id is
 * its name; a file inside a given folder gets its path relative to that
 * folder, with `/` separators (DESIGN.md: `doc_id` is stable and readable).
 */
export async function collectSourceFiles(paths: readonly string[]): Promise<SourceFiles> {
  const files: SourceFile[] = [];
  const folders: string[] = [];
  for (const given of paths) {
    const path = resolve(given);
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new Error(`Path "${given}" does not exist`);
    if (info.isDirectory()) {
      folders.push(path);
      for (const found of await walk(path)) {
        files.push({ path: found, docId: relative(path, found).split(sep).join('/'), root: path });
      }
    } else if (parserFor(path)) {
      files.push({ path, docId: basename(path) });
    } else {
      throw new Error(
        `File "${given}" is not a supported format (${extname(path) || 'no extension'}); use markdown, HTML or plain text`,
      );
    }
  }
  const seen = new Set<string>();
  const unique: SourceFile[] = [];
  const duplicates: SourceFile[] = [];
  for (const file of files) {
    if (seen.has(file.docId)) duplicates.push(file);
    else unique.push(file);
    seen.add(file.docId);
  }
  return { files: unique, folders, duplicates };
}

async function walk(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries.sort((left, right) => left.name.localeCompare(right.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = resolve(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await walk(path)));
    else if (entry.isFile() && parserFor(path)) found.push(path);
  }
  return found;
}
