import { readdir, readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, extname, relative, resolve, sep } from 'node:path';
import { sourceContentHash, type SourceDocument } from './ingest-source.ts';
import { createDocumentPreparer, type DocumentPreparer } from './prepare-pool.ts';
import { parserFor } from '../parsing/source-formats.ts';
import { type DocumentInput, type KnowledgeBase, type Store, type Visibility } from '../../store/store.ts';
import { NotFoundError } from '../../errors.ts';

/**
 * Ingests files and folders of markdown, HTML and plain text into a knowledge
 * base: parse, cut into heading-aware chunks and analyze (on worker threads
 * when there are many files: ingest/pipeline/prepare-pool.ts), and store the documents
 * in batches of {@link INGEST_BATCH_DOCUMENTS}, one transaction a batch and
 * each document in its own savepoint (Store.putDocuments): a failed or
 * interrupted ingest leaves every document either at its previous or at its
 * new version, never half-written. Files are reported in their order.
 *
 * Re-ingest is idempotent: a file whose bytes and access options hash to the
 * stored content hash is neither parsed nor written. Ingesting a folder also
 * removes the documents previously ingested from that folder whose files are
 * gone (docs/design-decisions.md "The engine": removed documents leave the index).
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
  /** Worker threads preparing documents when there are many (default: one per core); see ingest/pipeline/prepare-pool.ts. */
  threads?: number;
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
  const storedHashes = new Map((await store.listDocuments(options.kbId)).map((document) => [document.docId, document.contentHash]));
  const preparer = createDocumentPreparer(files.length, options.threads ?? availableParallelism());
  let done = 0;
  // Files in order since the last write: those to write, and those before or between them with nothing to write.
  let pending: FileOutcome[] = [];
  let pendingWrites = 0;
  let pendingBytes = 0;
  const flush = async () => {
    const writing = pending.filter((outcome) => outcome.kind === 'write');
    const written = writing.length === 0 ? [] : await writeBatch(store, writing);
    let next = 0;
    for (const outcome of pending) {
      recordOutcome(report, outcome.kind === 'write' ? written[next++]! : outcome);
      done += 1;
      options.onProgress?.({ done, total: files.length, docId: outcome.file.docId });
    }
    pending = [];
    pendingWrites = 0;
    pendingBytes = 0;
  };
  const consume = async (outcome: FileOutcome) => {
    pending.push(outcome);
    if (outcome.kind === 'write') {
      pendingWrites += 1;
      pendingBytes += outcome.bytes;
    }
    if (pendingWrites >= INGEST_BATCH_DOCUMENTS || pendingBytes >= INGEST_BATCH_BYTES || pendingWrites === 0) await flush();
  };
  try {
    // Files are prepared ahead (up to PREPARE_AHEAD at once) while batches are written, and reported in their order.
    const inFlight: Promise<FileOutcome>[] = [];
    for (const file of files) {
      inFlight.push(prepareFile(store, preparer, file, options, knowledgeBase, storedHashes));
      if (inFlight.length >= PREPARE_AHEAD) await consume(await inFlight.shift()!);
    }
    for (const outcome of inFlight) await consume(await outcome);
    await flush();
  } finally {
    await preparer.close();
  }
  await pruneRemoved(store, options.kbId, folders, files, report);
  if (report.created.length + report.updated.length + report.removed.length > 0) await store.refreshPlannerStatistics();
  return report;
}

/**
 * Most documents written in one transaction (Store.putDocuments): one commit
 * per batch instead of one per document, each document still all or nothing.
 * A batch is one index segment (store/index/index-segments.ts): at 256 rather than
 * 64, a batch's documents share more of their terms, so fewer term rows are
 * written and merged (16 copies of the Node.js docs, embedded: 12.8 to 10.9 s;
 * 512 was no faster).
 */
export const INGEST_BATCH_DOCUMENTS = 256;
/** Most source bytes in one batch, so that a batch of large pages stays small in memory. */
export const INGEST_BATCH_BYTES = 16 * 1024 * 1024;
/** Files being read and prepared at once, ahead of the batch being written: a batch and a quarter keeps the workers busy during a write (two batches were no faster, and held twice the memory). */
const PREPARE_AHEAD = INGEST_BATCH_DOCUMENTS + 64;

/** What became of one file, or what remains to do with it (`write`). */
type FileOutcome = { file: SourceFile } & (
  | { kind: 'write'; input: DocumentInput; bytes: number }
  | { kind: 'created' | 'updated' | 'unchanged' }
  | { kind: 'skipped'; reason: string; removed: boolean }
  | { kind: 'failed'; reason: string }
);

/** Adds a file's outcome to the report. */
function recordOutcome(report: IngestReport, outcome: FileOutcome): void {
  const { file } = outcome;
  switch (outcome.kind) {
    case 'write':
      throw new Error(`"${file.docId}" was never written`);
    case 'skipped':
      report.skipped.push({ docId: file.docId, path: file.path, reason: outcome.reason });
      if (outcome.removed) report.removed.push(file.docId);
      return;
    case 'failed':
      report.failed.push({ docId: file.docId, path: file.path, reason: outcome.reason });
      return;
    default:
      report[outcome.kind].push(file.docId);
  }
}

/**
 * Reads and prepares one file: what to write, or why nothing is - unchanged
 * (same content hash as stored), skipped (a draft or a page without text: a
 * stored version is removed now) or failed (unreadable, rejected).
 */
async function prepareFile(
  store: Store,
  preparer: DocumentPreparer,
  file: SourceFile,
  options: IngestOptions,
  knowledgeBase: KnowledgeBase,
  storedHashes: ReadonlyMap<string, string>,
): Promise<FileOutcome> {
  try {
    const bytes = await readFile(file.path);
    const source: SourceDocument = {
      kbId: options.kbId,
      docId: file.docId,
      bytes,
      visibility: options.visibility,
      readers: options.readers,
      quotable: options.quotable,
      ...(file.root === undefined ? {} : { sourceRoot: file.root }),
    };
    const contentHash = sourceContentHash(source, knowledgeBase.anchorStyle);
    if (storedHashes.get(file.docId) === contentHash) return { file, kind: 'unchanged' };
    const result = await preparer.prepare({ source, site: knowledgeBase, contentHash });
    if (result.kind === 'prepared') return { file, kind: 'write', input: result.input, bytes: bytes.length };
    if (result.kind === 'rejected') return { file, kind: 'failed', reason: result.reason };
    return { file, kind: 'skipped', reason: result.reason, removed: await store.removeDocument(options.kbId, file.docId) };
  } catch (error) {
    return { file, kind: 'failed', reason: (error as Error).message };
  }
}

/** Writes a batch in one transaction: each file's outcome, in order; a batch that fails as a whole fails each of its files. */
async function writeBatch(store: Store, batch: readonly (FileOutcome & { kind: 'write' })[]): Promise<FileOutcome[]> {
  const outcomes = await store.putDocuments(batch.map((entry) => entry.input)).catch((error: Error) => batch.map(() => ({ error })));
  return batch.map(({ file }, position): FileOutcome => {
    const outcome = outcomes[position]!;
    return 'outcome' in outcome ? { file, kind: outcome.outcome } : { file, kind: 'failed', reason: outcome.error.message };
  });
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
 * folder, with `/` separators (docs/specification.md "Citation": `doc_id` is stable and readable).
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
        `File "${given}" is not a supported format (${extname(path) || 'no extension'}); use markdown, HTML, plain text or PDF`,
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
