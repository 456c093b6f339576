import robotsParserModule from 'robots-parser';
import { DomUtils, parseDocument } from 'htmlparser2';
import { CRAWLER_ROBOTS_NAME, DEFAULT_FETCH_LIMITS, FetchFailedError, FetchRefusedError, guardedFetch, type FetchLimits } from './guarded-fetch.ts';
import { parseSitemap } from './sitemap.ts';
import { httpUrl } from '../pipeline/page-url.ts';

/**
 * Crawls one website for the importer: from pages (following their links
 * down to {@link CrawlLimits.maxDepth}) or from a sitemap (and the sitemaps
 * an index lists), same site only, honouring robots.txt, within limits on
 * pages, depth, bytes and concurrency. Every request goes through
 * {@link guardedFetch}, which refuses private addresses before and after
 * redirects and DNS resolution.
 *
 * The site is the origin (scheme, host, port) of the first URL. Links are
 * followed only within it and below the first page's folder
 * (`https://example.com/docs/intro` → `https://example.com/docs/…`), so
 * importing a product's docs does not import its blog; sitemap entries on
 * the site are taken as listed. A page that redirects off the site is
 * skipped. robots.txt is read as RFC 9309 says: its rules for
 * `kb-widget-importer`, else for `*`; none when it answers 4xx; every page
 * disallowed when it cannot be fetched (5xx, unreachable).
 *
 * A re-sync passes what the previous crawl learned of each page
 * ({@link KnownPage}): the page is requested conditionally
 * (`If-None-Match` with its ETag, `If-Modified-Since` with its
 * `Last-Modified`, RFC 9110 §13.1), and when it answers 304 Not Modified
 * its links as they were are followed, so a site whose pages did not
 * change costs one small response per page.
 */

/** Bounds of one crawl. */
export interface CrawlLimits {
  /** Most pages fetched (sitemaps and robots.txt not counted). */
  maxPages: number;
  /** Link hops followed from the given pages (0: only them). Sitemaps are not followed beyond their entries. */
  maxDepth: number;
  /** Most bytes of all pages together. */
  maxTotalBytes: number;
  /** Requests in flight at once. */
  concurrency: number;
}

/** Defaults: a documentation site of a few hundred pages. */
export const DEFAULT_CRAWL_LIMITS: CrawlLimits = { maxPages: 500, maxDepth: 3, maxTotalBytes: 200 * 1024 * 1024, concurrency: 4 };

/** Where a crawl starts. */
export type CrawlSeed = { kind: 'pages'; urls: string[] } | { kind: 'sitemap'; url: string };

/** A page fetched for indexing. */
export interface CrawledPage {
  /** The page's URL (after redirects, without its fragment): the document's URL. */
  url: string;
  /** The URL requested (before redirects): the key of what a re-sync knows of it. */
  requestedUrl: string;
  /** `text/html`, `application/pdf`, `text/markdown` or `text/plain`. */
  contentType: string;
  body: Buffer;
  /** Its validators, to request it conditionally next time. */
  etag?: string;
  lastModified?: string;
  /** The links of an HTML page within the crawl's scope (followed or not), absolute, without fragments. */
  links: string[];
}

/** What an earlier crawl learned of a page, by the URL it requested: its validators and its links. */
export interface KnownPage {
  etag?: string;
  lastModified?: string;
  links: readonly string[];
}

/** What a crawl did. */
export interface CrawlReport {
  /** The site's origin, `https://docs.example.com`. */
  site: string;
  /** Pages fetched, in the order they were found. */
  pages: CrawledPage[];
  /** Known pages that answered 304 Not Modified, by the URL requested: unchanged since the previous crawl. */
  notModified: string[];
  /** URLs not fetched or not kept, with why (robots.txt, another site, an error, a media type not indexed, gone). */
  skipped: { url: string; reason: string }[];
  /** URLs that answered 404 or 410: gone from the site. */
  gone: string[];
  /** URLs that could not be fetched (an error, a timeout, a status other than 200, 404 or 410): what they link to is unknown this time. */
  unreachable: string[];
  /** Whether a limit stopped the crawl before every page found was fetched. */
  truncated: boolean;
}

/** robots-parser is CommonJS: its default import is the function its types call `default`. */
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** Media types of pages indexed. */
const INDEXED_TYPES = new Set(['text/html', 'application/xhtml+xml', 'application/pdf', 'text/markdown', 'text/x-markdown', 'text/plain']);

/**
 * @param fetchLimits per-request limits and the private-address setting
 * @param known what the previous crawl learned, by requested URL (a re-sync); pages not in it are fetched unconditionally
 * @throws FetchRefusedError when the first URL itself is refused (the site cannot be crawled at all)
 * @throws Error when the seed is empty or not an http(s) URL
 */
export async function crawlSite(
  seed: CrawlSeed,
  limits: CrawlLimits = DEFAULT_CRAWL_LIMITS,
  fetchLimits: FetchLimits = DEFAULT_FETCH_LIMITS,
  known: ReadonlyMap<string, KnownPage> = new Map(),
): Promise<CrawlReport> {
  const { site, scope } = crawlScope(seed);
  const report: CrawlReport = { site, pages: [], notModified: [], skipped: [], gone: [], unreachable: [], truncated: false };
  const robots = await readRobots(site, fetchLimits);
  const frontier = createFrontier(site, robots, report);
  if (seed.kind === 'pages') {
    for (const url of seed.urls) frontier.enqueue(url, 0);
  } else {
    for (const url of await readSitemaps(seed.url, site, fetchLimits, limits.maxPages, report)) frontier.enqueue(url, limits.maxDepth);
  }
  await runCrawl({ site, scope, limits, fetchLimits, known, report, frontier, totalBytes: 0 });
  return report;
}

/**
 * The site a crawl stays on (the origin of its first URL) and the folder
 * whose links it follows (the first URL's).
 *
 * @throws Error when the seed is empty or not an http(s) URL
 */
function crawlScope(seed: CrawlSeed): { site: string; scope: string } {
  const first = seed.kind === 'pages' ? seed.urls[0] : seed.url;
  if (first === undefined) throw new Error('Give at least one page URL to import');
  const start = new URL(first);
  if (start.protocol !== 'http:' && start.protocol !== 'https:') throw new Error(`"${first}" is not an http or https URL`);
  const site = start.origin;
  return { site, scope: `${site}${start.pathname.replace(/[^/]*$/, '')}` };
}

/** A page waiting to be fetched, and how many link hops from the given pages it was found. */
interface QueuedPage {
  url: string;
  depth: number;
}

/** The pages a crawl has found and not yet fetched, in the order found. */
interface Frontier {
  readonly queue: QueuedPage[];
  /** Queues a URL (without its fragment) the first time it is found, unless it is off the site or robots.txt disallows it (then reported as skipped). */
  enqueue(url: string, depth: number): void;
}

function createFrontier(site: string, robots: RobotsRules, report: CrawlReport): Frontier {
  const seen = new Set<string>();
  const queue: QueuedPage[] = [];
  return {
    queue,
    enqueue(url, depth) {
      const normalized = withoutFragment(url);
      if (normalized === undefined || seen.has(normalized)) return;
      seen.add(normalized);
      if (new URL(normalized).origin !== site) {
        report.skipped.push({ url: normalized, reason: `not on the site ${site}` });
      } else if (!robots.allows(normalized)) {
        report.skipped.push({ url: normalized, reason: robots.reason });
      } else {
        queue.push({ url: normalized, depth });
      }
    },
  };
}

/** A crawl under way: what bounds it, what it found and reports, and the bytes fetched so far. */
interface CrawlRun {
  site: string;
  scope: string;
  limits: CrawlLimits;
  fetchLimits: FetchLimits;
  known: ReadonlyMap<string, KnownPage>;
  report: CrawlReport;
  frontier: Frontier;
  totalBytes: number;
}

/** Fetches the frontier's pages with a pool of `concurrency` loops over one queue, in the order found, until it is empty or a limit is reached. */
async function runCrawl(run: CrawlRun): Promise<void> {
  const { limits, report, frontier } = run;
  const { queue } = frontier;
  let fetched = 0;
  const running = new Set<Promise<void>>();
  while (queue.length > 0 || running.size > 0) {
    while (queue.length > 0 && running.size < limits.concurrency) {
      if (fetched >= limits.maxPages || run.totalBytes >= limits.maxTotalBytes) {
        report.truncated = true;
        queue.length = 0;
        break;
      }
      fetched += 1;
      const task = crawlPage(run, queue.shift()!).finally(() => running.delete(task));
      running.add(task);
    }
    if (running.size > 0) await Promise.race(running);
  }
}

/** Queues the links in the crawl's folder, one hop further, unless the page is at the deepest hop. */
function followLinks(run: CrawlRun, links: readonly string[], depth: number): void {
  if (depth >= run.limits.maxDepth) return;
  for (const link of links) if (link.startsWith(run.scope)) run.frontier.enqueue(link, depth + 1);
}

/**
 * Fetches one page (conditionally when a previous crawl knew it) and
 * reports it: a page kept, with its links followed; not modified, with
 * its known links followed; gone, unreachable or skipped, with why.
 */
async function crawlPage(run: CrawlRun, { url, depth }: QueuedPage): Promise<void> {
  const { site, scope, limits, fetchLimits, report } = run;
  const previous = run.known.get(url);
  let response;
  try {
    response = await guardedFetch(url, { ...fetchLimits, maxBytes: Math.min(fetchLimits.maxBytes, limits.maxTotalBytes - run.totalBytes) }, {
      Accept: 'text/html, application/pdf, text/markdown, text/plain;q=0.9, */*;q=0.1',
      ...(previous?.etag === undefined ? {} : { 'If-None-Match': previous.etag }),
      ...(previous?.lastModified === undefined ? {} : { 'If-Modified-Since': previous.lastModified }),
    });
  } catch (error) {
    if (!(error instanceof FetchRefusedError || error instanceof FetchFailedError)) throw error;
    report.unreachable.push(url);
    return void report.skipped.push({ url, reason: error.message });
  }
  run.totalBytes += response.body.length;
  if (response.status === 404 || response.status === 410) {
    report.gone.push(url);
    return void report.skipped.push({ url, reason: `gone (${response.status})` });
  }
  if (response.status === 304 && previous !== undefined) {
    report.notModified.push(url);
    return followLinks(run, previous.links, depth);
  }
  if (response.status !== 200) {
    report.unreachable.push(url);
    return void report.skipped.push({ url, reason: `answered ${response.status}` });
  }
  const finalUrl = withoutFragment(response.url) ?? url;
  if (new URL(finalUrl).origin !== site) return void report.skipped.push({ url, reason: `redirects off the site, to ${finalUrl}` });
  const contentType = indexedType(response.contentType, finalUrl);
  if (contentType === undefined) return void report.skipped.push({ url, reason: `${response.contentType || 'no media type'} is not a format indexed` });
  const links = contentType === 'text/html' ? linksOf(response.body.toString('utf8'), finalUrl).filter((link) => link.startsWith(scope)) : [];
  report.pages.push({
    url: finalUrl,
    requestedUrl: url,
    contentType,
    body: response.body,
    ...(response.etag === undefined ? {} : { etag: response.etag }),
    ...(response.lastModified === undefined ? {} : { lastModified: response.lastModified }),
    links,
  });
  followLinks(run, links, depth);
}

/** The links of an HTML page, absolute (against its `<base href>` or its URL), without fragments, each once. */
function linksOf(html: string, pageUrl: string): string[] {
  const document = parseDocument(html);
  const base = DomUtils.findOne((element) => element.name === 'base' && element.attribs['href'] !== undefined, document.children)?.attribs['href'];
  const baseUrl = base === undefined ? pageUrl : (httpUrl(base.trim(), pageUrl) ?? pageUrl);
  const links = new Set<string>();
  for (const anchor of DomUtils.findAll((element) => element.name === 'a' && element.attribs['href'] !== undefined, document.children)) {
    if ((anchor.attribs['rel'] ?? '').split(/\s+/).includes('nofollow')) continue;
    const url = withoutFragment(httpUrl(anchor.attribs['href']!.trim(), baseUrl) ?? '');
    if (url !== undefined) links.add(url);
  }
  return [...links];
}

function withoutFragment(text: string): string | undefined {
  try {
    const url = new URL(text);
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** The media type a page is indexed as, by its `Content-Type`, else its extension; undefined when not indexed. */
function indexedType(contentType: string, url: string): string | undefined {
  if (contentType === 'application/xhtml+xml') return 'text/html';
  if (contentType === 'text/x-markdown') return 'text/markdown';
  if (INDEXED_TYPES.has(contentType)) {
    // Servers send markdown as text/plain.
    if (contentType === 'text/plain' && /\.(md|markdown)$/i.test(new URL(url).pathname)) return 'text/markdown';
    return contentType;
  }
  if (contentType === '' || contentType === 'application/octet-stream') {
    const path = new URL(url).pathname.toLowerCase();
    if (path.endsWith('.pdf')) return 'application/pdf';
    if (/\.(md|markdown)$/.test(path)) return 'text/markdown';
  }
  return undefined;
}

/** What robots.txt allows the importer. */
interface RobotsRules {
  allows(url: string): boolean;
  /** Why a URL is not allowed. */
  reason: string;
}

/** The site's robots.txt rules for the importer (RFC 9309). */
async function readRobots(site: string, fetchLimits: FetchLimits): Promise<RobotsRules> {
  const robotsUrl = `${site}/robots.txt`;
  let response;
  try {
    response = await guardedFetch(robotsUrl, { ...fetchLimits, maxBytes: 500 * 1024 });
  } catch (error) {
    if (error instanceof FetchRefusedError) throw error;
    return { allows: () => false, reason: `${robotsUrl} could not be read (${(error as Error).message}), so no page may be fetched (RFC 9309)` };
  }
  if (response.status >= 400 && response.status < 500) return { allows: () => true, reason: '' };
  if (response.status !== 200) return { allows: () => false, reason: `${robotsUrl} answered ${response.status}, so no page may be fetched (RFC 9309)` };
  const robots = robotsParser(robotsUrl, response.body.toString('utf8'));
  return { allows: (url) => robots.isAllowed(url, CRAWLER_ROBOTS_NAME) !== false, reason: `disallowed by ${robotsUrl}` };
}

/** The page URLs of a sitemap and the sitemaps it indexes (each read once), at most `maxPages`. */
async function readSitemaps(url: string, site: string, fetchLimits: FetchLimits, maxPages: number, report: CrawlReport): Promise<string[]> {
  const pages: string[] = [];
  const pending = [url];
  const read = new Set<string>();
  while (pending.length > 0 && pages.length < maxPages) {
    const sitemapUrl = pending.shift()!;
    if (read.has(sitemapUrl)) continue;
    read.add(sitemapUrl);
    if (new URL(sitemapUrl).origin !== site) {
      report.skipped.push({ url: sitemapUrl, reason: `not on the site ${site}` });
      continue;
    }
    const response = await guardedFetch(sitemapUrl, fetchLimits).catch((error: Error) => {
      if (error instanceof FetchRefusedError && sitemapUrl === url) throw error;
      report.skipped.push({ url: sitemapUrl, reason: error.message });
      return undefined;
    });
    if (response === undefined) continue;
    if (response.status !== 200) {
      report.skipped.push({ url: sitemapUrl, reason: `the sitemap answered ${response.status}` });
      continue;
    }
    const sitemap = parseSitemap(response.body);
    pending.push(...sitemap.sitemaps);
    pages.push(...sitemap.pages);
  }
  return pages;
}
