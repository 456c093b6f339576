import { DomUtils, parseDocument } from 'htmlparser2';

/**
 * The main content of a fetched HTML page, for indexing: the page's
 * `<head>` (title, description) with the first of `<main>`, `[role=main]`
 * or a lone `<article>`, as documentation themes mark the page's content;
 * without such a landmark, the whole page. Either way the landmarks of
 * navigation, banner, footer and sidebars (`[role=navigation]`,
 * `[role=banner]`, `[role=contentinfo]`, `[role=complementary]`, `<aside>`
 * outside the content) are left out, as are `<nav>`, `<header>` and
 * `<footer>` by the HTML parser itself (ingest/parsing/html-parser.ts). This is
 * the landmark approach of screen readers rather than Readability's
 * scoring: documentation sites mark their content, and a scoring heuristic
 * would drop the code blocks and tables docs consist of.
 *
 * @param html the page
 * @returns an HTML page of its head and main content
 */
export function mainContentHtml(html: string): string {
  const document = parseDocument(html);
  const head = DomUtils.findOne((element) => element.name === 'head', document.children);
  const main =
    DomUtils.findOne((element) => element.name === 'main' || element.attribs['role'] === 'main', document.children) ??
    loneArticle(document.children) ??
    undefined;
  const content = main ?? DomUtils.findOne((element) => element.name === 'body', document.children) ?? document;
  for (const chrome of DomUtils.findAll((element) => CHROME_ROLES.has(element.attribs['role'] ?? '') || (main === undefined && element.name === 'aside'), [content])) {
    DomUtils.removeElement(chrome);
  }
  const body = main === undefined ? DomUtils.getInnerHTML(content) : DomUtils.getOuterHTML(content);
  return `<!doctype html><html>${head === null ? '' : DomUtils.getOuterHTML(head)}<body>${body}</body></html>`;
}

/** ARIA landmark roles of a page's chrome. */
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);

function loneArticle(nodes: Parameters<typeof DomUtils.findAll>[1]) {
  const articles = DomUtils.findAll((element) => element.name === 'article', nodes);
  return articles.length === 1 ? articles[0] : undefined;
}
