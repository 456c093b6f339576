/**
 * What a document's id (its path inside the ingested folder, `concepts/storage/volumes.md`)
 * says about its page when the page itself does not say it.
 */

/**
 * File names of section index pages: Hugo's branch and leaf bundles
 * (`_index.md`, `index.md`), Docusaurus and GitHub (`README.md`,
 * `index.md`), MkDocs (`index.md`, `README.md`). Compared in lower case,
 * without the extension.
 */
const INDEX_NAMES = new Set(['_index', 'index', 'readme']);

/** The path's segments and its file name without extension. */
function splitPath(docId: string): { folders: string[]; stem: string } {
  const segments = docId.split('/').filter((segment) => segment !== '');
  const fileName = segments.pop() ?? '';
  const dot = fileName.lastIndexOf('.');
  return { folders: segments, stem: dot > 0 ? fileName.slice(0, dot) : fileName };
}

/** Whether the document is its folder's index page (`concepts/storage/_index.md`). */
export function isSectionIndex(docId: string): boolean {
  return INDEX_NAMES.has(splitPath(docId).stem.toLowerCase());
}

/**
 * The document's path as URL segments: folders, then the file name without
 * its extension, except for a section index, which stands for its folder
 * (`concepts/storage/_index.md` -> `['concepts', 'storage']`).
 */
export function pageSegments(docId: string): string[] {
  const { folders, stem } = splitPath(docId);
  return isSectionIndex(docId) ? folders : [...folders, stem];
}

/**
 * A readable title for a page that has neither a front matter title nor a
 * level-1 heading: its file name, or for a section index its folder's name,
 * as words with the first letter capitalised (`pod-lifecycle.md` -> "Pod
 * lifecycle", `concepts/storage/_index.md` -> "Storage",
 * `getting_started.md` -> "Getting started"); the top folder's index is "Home".
 *
 * @param docId the document id, `/`-separated
 */
export function titleFromPath(docId: string): string {
  const { folders, stem } = splitPath(docId);
  const name = isSectionIndex(docId) ? folders.at(-1) : stem;
  if (name === undefined) return 'Home';
  const words = name.replace(/[-_\s]+/g, ' ').trim();
  if (words === '') return name;
  return words.charAt(0).toUpperCase() + words.slice(1);
}
