import { gunzipSync } from 'node:zlib';
import { DomUtils, parseDocument } from 'htmlparser2';
import { httpUrl } from '../pipeline/page-url.ts';

/**
 * A sitemap, as the sitemaps.org protocol (0.9) defines it: a `<urlset>` of
 * pages or a `<sitemapindex>` of further sitemaps, each URL in a `<loc>`;
 * gzip-compressed files (`sitemap.xml.gz`) are decompressed. Parsed with
 * htmlparser2 in XML mode, which recovers from the malformed XML some
 * generators write.
 */
export interface Sitemap {
  /** Page URLs (`<urlset><url><loc>`), in document order. */
  pages: string[];
  /** Further sitemaps (`<sitemapindex><sitemap><loc>`), in document order. */
  sitemaps: string[];
}

/**
 * @param body the sitemap file as fetched (XML, or gzip of it)
 * @returns its page and sitemap URLs, trimmed; `<loc>` values that are not absolute http(s) URLs are left out
 */
export function parseSitemap(body: Uint8Array): Sitemap {
  const bytes = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body;
  const document = parseDocument(Buffer.from(bytes).toString('utf8'), { xmlMode: true });
  const locations = (parent: string) =>
    DomUtils.findAll((element) => element.name.toLowerCase() === parent, document.children).flatMap((entry) => {
      const loc = DomUtils.findOne((element) => element.name.toLowerCase() === 'loc', entry.children);
      const text = loc === null ? '' : DomUtils.textContent(loc).trim();
      return httpUrl(text) === undefined ? [] : [text];
    });
  return { pages: locations('url'), sitemaps: locations('sitemap') };
}
