import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { DocsQuestion } from './docs-questions.ts';

/**
 * Small knowledge bases cut out of a large documentation corpus, for the
 * evidence model to see knowledge bases of the size many help sites have
 * (tens of kilobytes, a handful of pages) beside the whole corpora
 * (eval/README.md "Small knowledge bases"). In a few pages about one thing,
 * ordinary words of a question are often absent and every page is close in
 * meaning to every other: features a model fitted on 3 MB corpora reads as
 * "off-topic" and "no page stands out" (the held-out piscina set showed it).
 *
 * A corpus is cut into pieces of at most {@link SMALL_KNOWLEDGE_BASE_BYTES}
 * by default:
 * a folder whose files add up to no more than that is one knowledge base
 * (its pages about one subject, as a small product's docs are); a larger
 * folder is cut into its subfolders, and its own files into runs of
 * consecutive files (in name order) up to that size. A single file larger
 * than that is a knowledge base of one page.
 */

/** Most bytes of source text in one small knowledge base (the held-out piscina docs: 40 kB). */
export const SMALL_KNOWLEDGE_BASE_BYTES = 120_000;

/** One piece of a corpus, ingested as a knowledge base of its own. */
export interface SmallKnowledgeBase {
  /** A name for the piece: its folder, or its first file, relative to the corpus root. */
  name: string;
  /** Files of the piece (absolute), all under {@link folder}. */
  files: string[];
  /** What to ingest (`ingestPaths`): the folder itself for a whole folder, else the files, so each page's id is its path relative to {@link folder}. */
  paths: string[];
  /** The folder the files' document ids are relative to (absolute). */
  folder: string;
  /** Bytes of source text. */
  bytes: number;
}

/** A question asked of a small knowledge base, with the gold pages as that knowledge base names them. */
export interface SmallKnowledgeBaseQuestion {
  question: DocsQuestion;
  /** Gold document ids inside the knowledge base (its own ids); empty when the answer is elsewhere or the question is off-topic. */
  gold: string[];
}

/**
 * @param root the corpus folder (document ids are paths relative to it)
 * @param maxBytes most bytes of a piece (of a run of files; a larger single file is a piece of its own)
 * @param extensions file extensions that are pages (`.md`)
 * @returns the pieces, a folder's own files before its subfolders, each in name order
 */
export async function cutIntoSmallKnowledgeBases(
  root: string,
  maxBytes: number = SMALL_KNOWLEDGE_BASE_BYTES,
  extensions: readonly string[] = ['.md'],
): Promise<SmallKnowledgeBase[]> {
  const pieces: SmallKnowledgeBase[] = [];
  // Every page's size, read once; a folder's pages are those under its path.
  const all = await pagesUnder(root, extensions);
  const bytesOf = new Map(all.map((page) => [page.path, page.bytes]));
  const visit = async (folder: string): Promise<void> => {
    const pages = all.filter((page) => page.path.startsWith(folder + sep));
    const total = pages.reduce((sum, page) => sum + page.bytes, 0);
    if (pages.length > 0 && total <= maxBytes) {
      pieces.push({ name: relative(root, folder) || '.', files: pages.map((page) => page.path), paths: [folder], folder, bytes: total });
      return;
    }
    const entries = (await readdir(folder, { withFileTypes: true })).sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    let run: string[] = [];
    let runBytes = 0;
    const closeRun = () => {
      if (run.length === 0) return;
      pieces.push({ name: relative(root, run[0]!), files: run, paths: run, folder, bytes: runBytes });
      run = [];
      runBytes = 0;
    };
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const bytes = bytesOf.get(path);
      if (!entry.isFile() || bytes === undefined) continue;
      if (run.length > 0 && runBytes + bytes > maxBytes) closeRun();
      run.push(path);
      runBytes += bytes;
    }
    closeRun();
    for (const entry of entries) if (entry.isDirectory()) await visit(join(folder, entry.name));
  };
  await visit(root);
  return pieces;
}

/**
 * The questions of a documentation set as asked of one piece of it: each
 * question with its gold pages renamed to the piece's document ids (a file
 * given on its own is ingested under its name; one inside the piece's folder
 * under its path relative to that folder). Every question is returned; one
 * whose gold pages all lie elsewhere has no gold here.
 *
 * @param root the corpus folder the set's gold ids are relative to
 */
export function questionsOfPiece(root: string, piece: SmallKnowledgeBase, questions: readonly DocsQuestion[]): SmallKnowledgeBaseQuestion[] {
  const ids = new Map(piece.files.map((file) => [relative(root, file).split(sep).join('/'), relative(piece.folder, file).split(sep).join('/')]));
  return questions.map((question) => ({ question, gold: question.gold.flatMap((gold) => (ids.has(gold) ? [ids.get(gold)!] : [])) }));
}

async function pagesUnder(folder: string, extensions: readonly string[]): Promise<{ path: string; bytes: number }[]> {
  const pages: { path: string; bytes: number }[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !extensions.some((extension) => entry.name.endsWith(extension))) continue;
    const path = join(entry.parentPath, entry.name);
    pages.push({ path, bytes: (await stat(path)).size });
  }
  return pages.sort((left, right) => (left.path < right.path ? -1 : 1));
}
