/**
 * The URL of a document's page on the knowledge base's published site, so a
 * citation can link to it (`https://kubernetes.io/docs/concepts/storage/volumes/`).
 */
import { isSectionIndex, pageSegments } from './document-path.ts';
import type { UrlStyle } from '../../store/store.ts';

/** Where and how a knowledge base's site is published (store/workspace/workspace.ts `KnowledgeBase`). */
export interface SiteLocation {
  /** The published URL of the ingested folder's root, ending in `/`; absent when unknown. */
  baseUrl?: string;
  urlStyle: UrlStyle;
}

/** What a page's front matter says about its URL (front-matter.ts). */
export interface PageRoute {
  /** Front matter `url`: an absolute URL, a path from the site's host (`/docs/x/`), or relative to the base URL. */
  url?: string;
  /** Front matter `slug`: replaces the last segment; a leading `/` makes it a path from the base URL (Docusaurus). */
  slug?: string;
}

/** A base URL that is not an absolute http(s) URL without query or fragment. */
export class BaseUrlError extends Error {
  override name = 'BaseUrlError';
}

/**
 * Checks and normalises a site base URL: absolute `http:` or `https:`, no
 * query, no fragment, ending in `/` (one is added), so page paths resolve
 * under it (`https://nodejs.org/docs/latest-v18.x/api` ->
 * `https://nodejs.org/docs/latest-v18.x/api/`).
 *
 * @throws BaseUrlError naming the value when it is not such a URL
 */
export function normalizeBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new BaseUrlError(`Base URL "${text}" is not an absolute URL (https://example.com/docs/)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BaseUrlError(`Base URL "${text}" must use http or https`);
  if (url.search !== '' || url.hash !== '') throw new BaseUrlError(`Base URL "${text}" must not have a query or fragment`);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

/**
 * The page URL of a document, as static-site generators publish it:
 * - `pretty` (Hugo, Docusaurus, MkDocs): a folder per page,
 *   `concepts/storage/volumes.md` -> `<base>concepts/storage/volumes/`,
 *   and a section index stands for its folder,
 *   `concepts/storage/_index.md` -> `<base>concepts/storage/`;
 * - `html` (the Node.js docs, Sphinx, MkDocs without directory URLs): a
 *   file per page, `fs.md` -> `<base>fs.html`, `guide/index.md` ->
 *   `<base>guide/index.html`.
 *
 * Front matter `slug` replaces the last segment (on a section index it
 * names a page inside its folder; a slug starting with `/` is a path from
 * the base URL); front matter `url` replaces the whole URL:
 * absolute as written, else resolved against the base URL (a leading `/`
 * from its host, as Hugo reads it). Segments are percent-encoded.
 *
 * A PDF is published as the file itself in either style:
 * `manuals/router.pdf` -> `<base>manuals/router.pdf`.
 *
 * @param docId the document's path inside the ingested folder, `/`-separated
 * @returns the URL, or undefined when the knowledge base has no base URL
 *   and the page gives no absolute `url`, or the URL is not http(s)
 */
export function pageUrl(site: SiteLocation, docId: string, route: PageRoute = {}): string | undefined {
  if (route.url !== undefined) return httpUrl(route.url, site.baseUrl);
  if (site.baseUrl === undefined) return undefined;
  if (/\.pdf$/i.test(docId)) return httpUrl(docId.split('/').map(encodeURIComponent).join('/'), site.baseUrl);
  if (route.slug?.startsWith('/')) {
    const path = route.slug.slice(1);
    return httpUrl(site.urlStyle === 'pretty' || path === '' ? withTrailingSlash(path) : `${path}.html`, site.baseUrl);
  }
  const segments = pageSegments(docId);
  if (route.slug !== undefined) {
    // A section index's slug names a page in its folder (Docusaurus); Hugo gives section pages no slug.
    if (isSectionIndex(docId) || segments.length === 0) segments.push(route.slug);
    else segments[segments.length - 1] = route.slug;
  }
  const path = segments.map(encodeURIComponent).join('/');
  if (site.urlStyle === 'pretty') return httpUrl(withTrailingSlash(path), site.baseUrl);
  return httpUrl(isSectionIndex(docId) && route.slug === undefined ? withTrailingSlash(path) + 'index.html' : `${path}.html`, site.baseUrl);
}

function withTrailingSlash(path: string): string {
  return path === '' || path.endsWith('/') ? path : `${path}/`;
}

/**
 * `target` resolved against `base`, as an absolute URL (page URLs here,
 * crawled links and sitemap entries in ingest/web/).
 *
 * @returns its href; undefined when it is relative and there is no base, does not parse, or is not http(s)
 */
export function httpUrl(target: string, base?: string): string | undefined {
  try {
    const url = new URL(target, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
