import { analyze, ANALYZER_VERSION } from './analyzer.ts';
import type { FieldCounts, IndexedPage, IndexedPassage, PageFieldCounts } from '../store/index/index-data.ts';

export type { FieldCounts, IndexedPage, IndexedPassage, PageFieldCounts };

/**
 * The fields of a passage in the lexical index (BM25F, retrieval/bm25f.ts):
 * its document's title and description, the headings of its section below
 * the title, and its text. A passage is indexed with its document's title and
 * description, so a page whose title names the question's subject ranks each
 * of its passages above a page that mentions the words in passing.
 *
 * The analysis of documents for the index happens here, and only here, with
 * the one analyzer (retrieval/analyzer.ts): the store persists what this
 * computes and never analyzes text itself.
 */

/** The fields, in the order of every {@link FieldCounts} (store/index-data.ts). */
export const INDEX_FIELDS = ['title', 'description', 'heading', 'body'] as const;

/** One field of {@link INDEX_FIELDS}. */
export type IndexField = (typeof INDEX_FIELDS)[number];

/** Field positions, for reading a {@link FieldCounts}. */
export const TITLE = 0;
export const DESCRIPTION = 1;
export const HEADING = 2;
export const BODY = 3;

/**
 * Version of the index's analysis: the analyzer's version and this module's
 * choice of fields. Stored with each knowledge base's index; an index made
 * with another version is re-made from the stored passages before it is
 * searched (retrieval/reindex.ts), so an index is never silently stale
 * (docs/ingestion.md "What forces a rebuild").
 */
export const INDEX_ANALYSIS_VERSION = `${ANALYZER_VERSION}.fields-2`;

/** The document a passage belongs to, as the index needs it. */
export interface DocumentFields {
  title: string;
  /** The document's description (front matter); absent when it has none. */
  description?: string;
}

/**
 * The section headings of a passage below its document's title: the heading
 * path without its first element when that is the title (the path starts at
 * the page's title, ingest/parsing/section-builder.ts).
 */
export function sectionHeadings(title: string, headingPath: readonly string[]): readonly string[] {
  return headingPath[0] === title ? headingPath.slice(1) : headingPath;
}

/**
 * Analyzes one passage for the index.
 *
 * @param document its document's title and description
 * @param passage its heading path (from the page title down) and text
 */
export function indexPassage(document: DocumentFields, passage: { headingPath: readonly string[]; text: string }): IndexedPassage {
  return indexPassages(document, [passage])[0]!;
}

/**
 * Analyzes the passages of one document for the index ({@link indexPassage}
 * for each, the document's title and description analyzed once).
 *
 * @param document their document's title and description
 * @param passages each one's heading path (from the page title down) and text
 */
export function indexPassages(document: DocumentFields, passages: readonly { headingPath: readonly string[]; text: string }[]): IndexedPassage[] {
  const title = analyze(document.title);
  const description = analyze(document.description ?? '');
  return passages.map(
    (passage) =>
      fieldTerms([
        title,
        description,
        analyze(sectionHeadings(document.title, passage.headingPath).join('\n')),
        analyze(passage.text),
      ]) as unknown as IndexedPassage,
  );
}

/**
 * The page fields of a document (store/index-data.ts `PageFieldCounts`):
 * what a page's ranking weighs, so that a page whose title, description or
 * headings name the question's subject outranks a page that mentions its
 * words in passing (retrieval/bm25f.ts `PAGE_RANKING`).
 *
 * - title, description: the document's;
 * - lead: the first paragraph of its text, for a page without a description
 *   (most pages introduce their subject there);
 * - headings: every section heading below the title, each once;
 * - body: all its passages' text;
 * - path: the words of its document id (`concepts/storage/volumes.md` →
 *   "concepts storage volumes"), which name its place in the site.
 *
 * Computed from the stored passages alone, so ingest and re-indexing give
 * the same page index.
 *
 * @param docId the document id (its path)
 */
export function indexPage(
  docId: string,
  document: DocumentFields,
  passages: readonly { headingPath: readonly string[]; text: string; index?: IndexedPassage }[],
): IndexedPage {
  // The body is counted from the passages' own indexes when they come with them (ingest, re-index): analyzed once, not twice.
  const indexed = passages.every((passage) => passage.index !== undefined);
  const headings = new Map<string, string>();
  for (const passage of passages) {
    const sections = sectionHeadings(document.title, passage.headingPath);
    sections.forEach((heading, depth) => headings.set(JSON.stringify(sections.slice(0, depth + 1)), heading));
  }
  const fields = [
    analyze(document.title),
    analyze(document.description ?? ''),
    document.description === undefined ? analyze(leadParagraph(passages[0]?.text ?? '')) : [],
    analyze([...headings.values()].join('\n')),
    indexed ? [] : passages.flatMap((passage) => analyze(passage.text)),
    analyze(docId.replace(/\.[a-z]+$/i, '').replace(/(^|\/)_?index$/, '')),
  ];
  const page = fieldTerms(fields);
  if (indexed) addPassageBodies(page, passages.map((passage) => passage.index!));
  return page as unknown as IndexedPage;
}

/** Position of the body in a page's fields (`indexPage`). */
const PAGE_BODY = 4;

/** Adds the body fields of a page's passage indexes to the page's body field. */
function addPassageBodies(page: { terms: Map<string, number[]>; lengths: number[] }, passages: readonly IndexedPassage[]): void {
  const fieldCount = page.lengths.length;
  for (const passage of passages) {
    for (const [term, frequencies] of passage.terms) {
      const frequency = frequencies[BODY]!;
      if (frequency === 0) continue;
      let counts = page.terms.get(term);
      if (!counts) {
        counts = new Array<number>(fieldCount).fill(0);
        page.terms.set(term, counts);
      }
      counts[PAGE_BODY] = counts[PAGE_BODY]! + frequency;
    }
    page.lengths[PAGE_BODY] = page.lengths[PAGE_BODY]! + passage.lengths[BODY]!;
  }
}

/** The first paragraph of a passage's text that is prose (not code, not a list). */
function leadParagraph(text: string): string {
  for (const paragraph of text.split(/\n\s*\n/)) {
    const trimmed = paragraph.trim();
    if (trimmed !== '' && !trimmed.startsWith('```') && !trimmed.startsWith('- ') && !trimmed.includes(' | ')) return trimmed;
  }
  return '';
}

/** Term frequencies per field and field lengths of analyzed fields. */
function fieldTerms(fields: readonly string[][]): { terms: Map<string, number[]>; lengths: number[] } {
  const terms = new Map<string, number[]>();
  fields.forEach((fieldTerms, field) => {
    for (const term of fieldTerms) {
      let counts = terms.get(term);
      if (!counts) {
        counts = new Array<number>(fields.length).fill(0);
        terms.set(term, counts);
      }
      counts[field] = counts[field]! + 1;
    }
  });
  return { terms, lengths: fields.map((fieldTerms) => fieldTerms.length) };
}
