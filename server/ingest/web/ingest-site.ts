import { ingestSource, SourceRejectedError, SourceSkippedError } from '../pipeline/ingest-source.ts';
import { type DocumentRecord, type ImportPageState, type Store, type Visibility } from '../../store/store.ts';
import { NotFoundError } from '../../errors.ts';
import { crawlSite, DEFAULT_CRAWL_LIMITS, type CrawlLimits, type CrawlSeed } from './crawl-site.ts';
import { DEFAULT_FETCH_LIMITS, type FetchLimits } from './guarded-fetch.ts';
import { mainContentHtml } from './main-content.ts';

/**
 * Imports a website into a knowledge base: crawls it (web/crawl-site.ts),
 * and stores each page as a document named by its URL
 * ({@link webDocumentId}), the page's URL kept as the document's URL, each
 * in its own transaction (ingest-source.ts), so a page that fails leaves
 * its previous version. An HTML page is indexed from its main content
 * (web/main-content.ts), so a change of the site's navigation or footer
 * alone leaves its pages unchanged.
 *
 * Re-importing the same site updates what changed and removes what is gone:
 * the documents imported from the site (their source is the site's origin)
 * that answered 404 or 410, and, when the crawl was complete (not cut short
 * by a limit, every page fetched), those it no longer reached. A page that
 * could not be fetched this time (an error, a timeout) keeps its previous
 * version, and so do the pages it may link to.
 *
 * A re-sync of a source (ingest/jobs/import-sources.ts) passes what its last
 * sync learned of each page ({@link SiteIngestOptions.previousPages}): a
 * page whose document still exists is requested conditionally, and one
 * that answers 304 Not Modified is reported unchanged without being read
 * again. The report's `learned` is what to pass next time.
 */

/** Who may read the imported pages. */
export interface SiteIngestOptions {
  kbId: string;
  visibility: Visibility;
  readers: string[];
  quotable: boolean;
  limits?: CrawlLimits;
  fetchLimits?: FetchLimits;
  /** Called after each page is stored or refused. */
  onProgress?: (progress: { done: number; total: number; url: string }) => void;
  /**
   * Whether the import may replace or remove an existing document (the
   * console: only one its starter can read, as an upload may); a page whose
   * document it may not is reported failed and left as it is. Default: any.
   */
  mayReplace?: (document: DocumentRecord) => boolean;
  /** What the previous sync of the same source learned of its pages (a re-sync); none: every page fetched in full. */
  previousPages?: readonly ImportPageState[];
}

/** What an import did, by document id; pages not imported by URL. */
export interface SiteIngestReport {
  site: string;
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
  /** Pages not fetched or not indexed (robots.txt, another site, a format not indexed, a page without text), with why. */
  skipped: { url: string; reason: string }[];
  /** Pages fetched but not stored (a file that is not its format), with why; their previous version is kept. */
  failed: { url: string; docId: string; reason: string }[];
  /** Whether a limit (pages, bytes) stopped the crawl. */
  truncated: boolean;
  /** The pages stored or unchanged, with their validators and links: the next re-sync's `previousPages`. */
  learned: ImportPageState[];
}

/**
 * @throws NotFoundError when the knowledge base does not exist
 * @throws FetchRefusedError when the site's address is refused (a private address, with the setting off)
 */
export async function ingestSite(store: Store, seed: CrawlSeed, options: SiteIngestOptions): Promise<SiteIngestReport> {
  const knowledgeBase = await store.getKnowledgeBase(options.kbId);
  if (knowledgeBase === undefined) throw new NotFoundError(`Knowledge base "${options.kbId}" does not exist`);
  // A page is asked for conditionally only while its document is still there (a person may have removed it).
  const previous = new Map<string, ImportPageState>();
  if (options.previousPages !== undefined && options.previousPages.length > 0) {
    const existing = new Set((await store.listDocuments(options.kbId)).map((document) => document.docId));
    for (const page of options.previousPages) if (existing.has(page.docId)) previous.set(page.url, page);
  }
  const crawl = await crawlSite(seed, options.limits ?? DEFAULT_CRAWL_LIMITS, options.fetchLimits ?? DEFAULT_FETCH_LIMITS, previous);
  const sourceRoot = `${crawl.site}/`;
  const report: SiteIngestReport = {
    site: crawl.site,
    created: [],
    updated: [],
    unchanged: [],
    removed: [],
    skipped: [...crawl.skipped],
    failed: [],
    truncated: crawl.truncated,
    learned: [],
  };
  const imported = new Set<string>();
  const total = crawl.pages.length + crawl.notModified.length;
  let done = 0;
  for (const url of crawl.notModified) {
    const page = previous.get(url)!;
    done += 1;
    if (!imported.has(page.docId)) {
      imported.add(page.docId);
      report.unchanged.push(page.docId);
      report.learned.push(page);
    }
    options.onProgress?.({ done, total, url });
  }
  const mayReplaceDocument = async (docId: string) => {
    if (!options.mayReplace) return true;
    const existing = await store.getDocument(options.kbId, docId);
    return existing === undefined || options.mayReplace(existing);
  };
  for (const page of crawl.pages) {
    const docId = webDocumentId(page.url, page.contentType);
    done += 1;
    if (imported.has(docId)) {
      report.skipped.push({ url: page.url, reason: `another page of this import is already the document "${docId}"` });
    } else if (!(await mayReplaceDocument(docId))) {
      imported.add(docId);
      report.failed.push({ url: page.url, docId, reason: 'a document of this id exists that you cannot read; it is left as it is' });
    } else {
      imported.add(docId);
      const bytes = page.contentType === 'text/html' ? Buffer.from(mainContentHtml(page.body.toString('utf8'))) : page.body;
      try {
        const outcome = await ingestSource(
          store,
          { kbId: options.kbId, docId, bytes, url: page.url, visibility: options.visibility, readers: options.readers, quotable: options.quotable, sourceRoot },
          knowledgeBase,
        );
        report[outcome].push(docId);
        report.learned.push({
          url: page.requestedUrl,
          docId,
          ...(page.etag === undefined ? {} : { etag: page.etag }),
          ...(page.lastModified === undefined ? {} : { lastModified: page.lastModified }),
          links: page.links,
        });
      } catch (error) {
        if (error instanceof SourceSkippedError) {
          report.skipped.push({ url: page.url, reason: error.message });
          if (await store.removeDocument(options.kbId, docId)) report.removed.push(docId);
        } else if (error instanceof SourceRejectedError) {
          report.failed.push({ url: page.url, docId, reason: error.message });
        } else {
          throw error;
        }
      }
    }
    options.onProgress?.({ done, total, url: page.url });
  }
  const gone = new Set(crawl.gone);
  const reached = new Set([...crawl.pages.map((page) => page.url), ...crawl.skipped.map((skip) => skip.url)]);
  const complete = !crawl.truncated && crawl.unreachable.length === 0;
  for (const document of await store.listDocuments(options.kbId)) {
    if (document.sourceRoot !== sourceRoot || imported.has(document.docId) || document.url === undefined) continue;
    if (options.mayReplace && !options.mayReplace(document)) continue;
    if (gone.has(document.url) || (complete && !reached.has(document.url))) {
      if (await store.removeDocument(options.kbId, document.docId)) report.removed.push(document.docId);
    }
  }
  return report;
}

/**
 * The document id of a page: its host and path, readable
 * (`https://docs.example.com/guide/setup/` → `docs.example.com/guide/setup/index.html`),
 * ending in the extension of the format it is indexed as, which picks its
 * parser; the query and fragment are not part of it.
 *
 * @param contentType the media type the crawl indexes it as (web/crawl-site.ts)
 */
export function webDocumentId(url: string, contentType: string): string {
  const parsed = new URL(url);
  let path = parsed.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape stays as written.
  }
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  if (path.endsWith('/') || segments.length === 0) segments.push('index');
  let name = segments.pop()!;
  const extension = EXTENSIONS[contentType] ?? EXTENSIONS['text/html']!;
  if (!extension.pattern.test(name)) name += extension.add;
  return [parsed.host, ...segments, name].join('/');
}

/** The extension a page's document id ends in, by its media type: kept when the URL has one, else added. */
const EXTENSIONS: Record<string, { pattern: RegExp; add: string }> = {
  'text/html': { pattern: /\.html?$/i, add: '.html' },
  'application/pdf': { pattern: /\.pdf$/i, add: '.pdf' },
  'text/markdown': { pattern: /\.(md|markdown)$/i, add: '.md' },
  'text/plain': { pattern: /\.(txt|text)$/i, add: '.txt' },
};
