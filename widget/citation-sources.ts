/**
 * The sources list of an answer as a visitor reads it (docs/widget.md "What a visitor gets"):
 * one row per cited document, named by its title (or a readable form of its
 * `doc_id`), linked when it has a URL a visitor may follow, with the row's
 * citations under it. DOM-free.
 */
import type { Citation } from '../protocol/query-protocol.ts';
import { TITLE_SEPARATOR } from '../protocol/query-terms.ts';

/** One document of a sources list. */
export interface SourceGroup {
  /** The document's title: the first part of its citations' titles, else the readable form of its `doc_id`. */
  title: string;
  /** Where the title links: the citations' URL when they share one, else the first one's page (without its anchor). */
  url?: string;
  /** Its citations in answer order, each with the rest of its title (the section path), empty when none. */
  citations: { citation: Citation; section: string }[];
}

/**
 * A document identifier as a name, the way MkDocs titles a page that has
 * none (mkdocs `structure/pages.py` `Page._set_title`): the file name without
 * folder and extension, `-` and `_` as spaces, capitalised when all lower
 * case. `child_process.md` is "Child process"; `api/fs.md` is "Fs"; an
 * `index` or `README` file is named after its folder.
 *
 * @param documentId a `doc_id`, e.g. `guides/getting-started.md`
 */
export function readableDocumentName(documentId: string): string {
  const parts = documentId.split('/').filter(Boolean);
  let name = (parts.pop() ?? '').replace(/\.[a-z0-9]+$/i, '');
  if (/^(index|readme)$/i.test(name) && parts.length > 0) name = parts.pop()!;
  name = name.replace(/[-_]+/g, ' ').trim();
  if (name === '') return documentId;
  return name === name.toLowerCase() ? name[0]!.toUpperCase() + name.slice(1) : name;
}

/**
 * A URL a visitor may be sent to from the widget: `https:` or `mailto:`, or
 * `http:` on the page's own origin (a site served over plain HTTP links to
 * itself). Anything else (`javascript:`, `data:`, another site over plain
 * HTTP, text that is no URL) is refused.
 *
 * @param url the URL; relative URLs are resolved against `base` when given, else refused
 * @param pageOrigin the embedding page's origin, `location.origin`
 * @param base the URL relative URLs are resolved against, `document.baseURI`
 * @returns the normalised URL, or undefined when refused
 */
export function followableUrl(url: string | undefined, pageOrigin: string, base?: string): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url, base);
    const allowed = parsed.protocol === 'https:' || parsed.protocol === 'mailto:' || (parsed.protocol === 'http:' && parsed.origin === pageOrigin);
    return allowed ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Groups citations by document (`kb_id` and `doc_id`), in the order each
 * document is first cited. A title's first part names the group; the rest
 * (the section) stays with its citation.
 *
 * @param citations an answer's citations, in index order
 * @param pageOrigin the embedding page's origin, for {@link followableUrl}
 */
export function groupSources(citations: readonly Citation[], pageOrigin: string): SourceGroup[] {
  const byDocument = new Map<string, Citation[]>();
  for (const citation of citations) {
    const key = JSON.stringify([citation.kb_id, citation.doc_id]);
    byDocument.set(key, [...(byDocument.get(key) ?? []), citation]);
  }
  return [...byDocument.values()].map((members) => {
    const urls = members.map((citation) => followableUrl(citation.url, pageOrigin));
    const url = urls.every((candidate) => candidate === urls[0]) ? urls[0] : urls.find(Boolean)?.split('#')[0];
    return {
      title: members.find((citation) => citation.title)?.title?.split(TITLE_SEPARATOR)[0] ?? readableDocumentName(members[0]!.doc_id),
      url,
      citations: members.map((citation) => ({ citation, section: citation.title?.split(TITLE_SEPARATOR).slice(1).join(TITLE_SEPARATOR) ?? '' })),
    };
  });
}
