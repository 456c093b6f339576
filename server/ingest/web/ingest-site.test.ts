import { describe, expect, onTestFinished, test } from 'vitest';
import { analyze } from '../../retrieval/analyzer.ts';
import { createLexicalRetriever } from '../../retrieval/lexical-retriever.ts';
import type { Store } from '../../store/store.ts';
import { makePdf } from '../../testing/pdf-fixture.ts';
import { openTestStore } from '../../testing/test-store.ts';
import { docsPage, serveTestSite, type TestSite } from '../../testing/test-site.ts';
import { crawlSite, DEFAULT_CRAWL_LIMITS } from './crawl-site.ts';
import { DEFAULT_FETCH_LIMITS, FetchRefusedError, type FetchLimits } from './guarded-fetch.ts';
import { ingestSite, webDocumentId } from './ingest-site.ts';

/**
 * The website importer against a documentation site served by the test on
 * loopback: robots.txt, a docs folder with navigation, a PDF, a blog
 * outside the docs, a sitemap index. Private addresses are allowed by the
 * explicit setting, as an intranet site would need; with it off, the same
 * site is refused.
 */

const KB_ID = 'kb';
const LOOPBACK_ALLOWED: FetchLimits = { ...DEFAULT_FETCH_LIMITS, allowPrivateAddresses: true };

async function openSite(): Promise<TestSite> {
  const navigation = '<a href="/docs/install">Install</a> <a href="/docs/configure#ports">Configure</a> <a href="/docs/private/roadmap">Roadmap</a> <a href="/blog/launch">Blog</a> <a href="https://elsewhere.example/">Elsewhere</a>';
  const pdf = await makePdf([[{ text: 'Warranty', size: 20 }, { text: 'The warranty covers the quokka router for three years.' }]]);
  const site = await serveTestSite({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /docs/private/\n' },
    '/docs/': { type: 'text/html', body: docsPage('Overview', '<p>The quokka router connects your home.</p>', navigation) },
    '/docs/install': { type: 'text/html', body: docsPage('Install', '<p>Plug the quokka router into the wall socket and wait for the green light.</p><p>See the <a href="/docs/warranty.pdf">warranty</a>.</p>', navigation) },
    '/docs/configure': { type: 'text/html; charset=utf-8', body: docsPage('Configure', '<h2 id="ports">Ports</h2><p>Open port 8443 for remote quokka administration.</p>', navigation) },
    '/docs/warranty.pdf': { type: 'application/pdf', body: pdf },
    '/docs/private/roadmap': { type: 'text/html', body: docsPage('Roadmap', '<p>Secret quokka plans.</p>') },
    '/docs/logo.png': { type: 'image/png', body: 'PNG' },
    '/blog/launch': { type: 'text/html', body: docsPage('Launch', '<p>We launched the quokka.</p>') },
  });
  site.resources.set('/sitemap.xml', {
    type: 'application/xml',
    body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.origin}/sitemap-docs.xml</loc></sitemap></sitemapindex>`,
  });
  site.resources.set('/sitemap-docs.xml', {
    type: 'application/xml',
    body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/docs/install', '/docs/configure', '/docs/warranty.pdf', '/docs/private/roadmap', '/docs/logo.png'].map((path) => `<url><loc>${site.origin}${path}</loc></url>`).join('')}</urlset>`,
  });
  onTestFinished(() => site.close());
  return site;
}

async function openKnowledgeBase(): Promise<Store> {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  await store.createKnowledgeBase({ id: KB_ID, name: 'Quokka docs' });
  return store;
}

async function topPassage(store: Store, question: string) {
  const { passages } = await createLexicalRetriever(store).search({
    reach: { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] },
    terms: analyze(question),
    topK: 1,
  });
  return passages[0];
}

const PUBLIC = { kbId: KB_ID, visibility: 'public' as const, readers: [], quotable: true, fetchLimits: LOOPBACK_ALLOWED };

describe('crawlSite', () => {
  test('from a page: its links followed below its folder, robots.txt obeyed, the blog and other sites left alone, each page once', async () => {
    const site = await openSite();

    const crawl = await crawlSite({ kind: 'pages', urls: [`${site.origin}/docs/`] }, DEFAULT_CRAWL_LIMITS, LOOPBACK_ALLOWED);

    expect(crawl.pages.map((page) => [page.url.replace(site.origin, ''), page.contentType])).toEqual([
      ['/docs/', 'text/html'],
      ['/docs/install', 'text/html'],
      ['/docs/configure', 'text/html'],
      ['/docs/warranty.pdf', 'application/pdf'],
    ]);
    expect(crawl.skipped).toEqual([{ url: `${site.origin}/docs/private/roadmap`, reason: `disallowed by ${site.origin}/robots.txt` }]);
    expect(site.requested).not.toContain('/docs/private/roadmap');
    expect(site.requested).not.toContain('/blog/launch');
    expect(crawl.truncated).toBe(false);
  });

  test('a sitemap index: the pages of its sitemaps, robots.txt still obeyed, a format not indexed skipped; a page limit truncates', async () => {
    const site = await openSite();

    const crawl = await crawlSite({ kind: 'sitemap', url: `${site.origin}/sitemap.xml` }, DEFAULT_CRAWL_LIMITS, LOOPBACK_ALLOWED);
    const limited = await crawlSite({ kind: 'sitemap', url: `${site.origin}/sitemap.xml` }, { ...DEFAULT_CRAWL_LIMITS, maxPages: 2 }, LOOPBACK_ALLOWED);

    expect(crawl.pages.map((page) => page.url.replace(site.origin, ''))).toEqual(['/docs/install', '/docs/configure', '/docs/warranty.pdf']);
    expect(crawl.skipped.map((skip) => [skip.url.replace(site.origin, ''), skip.reason])).toEqual([
      ['/docs/private/roadmap', `disallowed by ${site.origin}/robots.txt`],
      ['/docs/logo.png', 'image/png is not a format indexed'],
    ]);
    expect([limited.pages.length, limited.truncated]).toEqual([2, true]);
  });

  test('robots.txt that cannot be read (503): no page fetched', async () => {
    const site = await openSite();
    site.resources.set('/robots.txt', { status: 503 });

    const crawl = await crawlSite({ kind: 'pages', urls: [`${site.origin}/docs/`] }, DEFAULT_CRAWL_LIMITS, LOOPBACK_ALLOWED);

    expect(crawl.pages).toEqual([]);
    expect(crawl.skipped[0]!.reason).toContain('answered 503, so no page may be fetched');
    expect(site.requested).toEqual(['/robots.txt']);
  });

  test('the site on a private address with the setting off: refused, nothing requested', async () => {
    const site = await openSite();

    await expect(crawlSite({ kind: 'sitemap', url: `${site.origin}/sitemap.xml` }, DEFAULT_CRAWL_LIMITS, DEFAULT_FETCH_LIMITS)).rejects.toThrow(FetchRefusedError);
    expect(site.requested).toEqual([]);
  });
});

describe('ingestSite', () => {
  test('pages stored under their URLs from their main content; the PDF too; navigation and sidebars not indexed', async () => {
    const site = await openSite();
    const store = await openKnowledgeBase();
    const host = new URL(site.origin).host;

    const report = await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, PUBLIC);

    expect(report.created).toEqual([`${host}/docs/index.html`, `${host}/docs/install.html`, `${host}/docs/configure.html`, `${host}/docs/warranty.pdf`]);
    expect(report.failed).toEqual([]);
    const documents = await store.listDocuments(KB_ID);
    expect(documents.map((document) => [document.docId, document.title, document.url])).toEqual(
      expect.arrayContaining([
        [`${host}/docs/install.html`, 'Install', `${site.origin}/docs/install`],
        [`${host}/docs/warranty.pdf`, 'Warranty', `${site.origin}/docs/warranty.pdf`],
      ]),
    );
    expect(await topPassage(store, 'which port for remote administration')).toMatchObject({ docId: `${host}/docs/configure.html`, url: `${site.origin}/docs/configure`, anchor: 'ports' });
    expect((await topPassage(store, 'how long is the warranty'))?.docId).toBe(`${host}/docs/warranty.pdf`);
    expect(await topPassage(store, 'zeppelin')).toBeUndefined();
  });

  test('imported again: unchanged pages untouched; a changed page updated; a page gone (404) removed; the others kept', async () => {
    const site = await openSite();
    const store = await openKnowledgeBase();
    const host = new URL(site.origin).host;
    await ingestSite(store, { kind: 'sitemap', url: `${site.origin}/sitemap.xml` }, PUBLIC);
    site.resources.set('/docs/install', { type: 'text/html', body: docsPage('Install', '<p>Mount the quokka router on the wall bracket.</p>', 'New navigation') });
    site.resources.delete('/docs/configure');

    const report = await ingestSite(store, { kind: 'sitemap', url: `${site.origin}/sitemap.xml` }, PUBLIC);

    expect(report).toMatchObject({ created: [], updated: [`${host}/docs/install.html`], unchanged: [`${host}/docs/warranty.pdf`], removed: [`${host}/docs/configure.html`] });
    expect((await store.listDocuments(KB_ID)).map((document) => document.docId).sort()).toEqual([`${host}/docs/install.html`, `${host}/docs/warranty.pdf`]);
    expect((await topPassage(store, 'wall bracket'))?.docId).toBe(`${host}/docs/install.html`);
  });

  test('a page that fails to fetch keeps its previous version, and so does all else; once it answers again, a page no longer linked is removed', async () => {
    const site = await openSite();
    const store = await openKnowledgeBase();
    const host = new URL(site.origin).host;
    const everything = [`${host}/docs/configure.html`, `${host}/docs/index.html`, `${host}/docs/install.html`, `${host}/docs/warranty.pdf`];
    await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, PUBLIC);
    site.resources.set('/docs/', { type: 'text/html', body: docsPage('Overview', '<p>The quokka router.</p>', '<a href="/docs/install">Install</a>') });
    site.resources.set('/docs/install', { status: 500 });

    const failing = await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, PUBLIC);
    const afterFailing = (await store.listDocuments(KB_ID)).map((document) => document.docId).sort();
    site.resources.set('/docs/install', { type: 'text/html', body: docsPage('Install', '<p>Plug it in. See the <a href="/docs/warranty.pdf">warranty</a>.</p>') });
    const recovered = await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, PUBLIC);

    expect(failing.skipped).toContainEqual({ url: `${site.origin}/docs/install`, reason: 'answered 500' });
    expect(failing.removed).toEqual([]);
    expect(afterFailing).toEqual(everything);
    expect(recovered.removed).toEqual([`${host}/docs/configure.html`]);
    expect((await store.listDocuments(KB_ID)).map((document) => document.docId).sort()).toEqual(everything.filter((docId) => !docId.endsWith('configure.html')));
  });
});

describe('re-sync with the previous sync\'s validators', () => {
  /** The site with validators: an ETag on the overview and the PDF, a Last-Modified on the install page. */
  async function openValidatingSite(): Promise<TestSite> {
    const site = await openSite();
    const withValidators = (path: string, validators: { etag?: string; lastModified?: string }) => {
      const resource = site.resources.get(path) as { type: string; body: string | Uint8Array };
      site.resources.set(path, { ...resource, ...validators });
    };
    withValidators('/docs/', { etag: '"overview-1"' });
    withValidators('/docs/install', { lastModified: 'Mon, 02 Nov 2026 10:00:00 GMT' });
    withValidators('/docs/warranty.pdf', { etag: '"warranty-1"' });
    return site;
  }

  test('pages asked conditionally answer 304 and are unchanged, their stored links still followed; a changed page updated; a page gone removed', async () => {
    const site = await openValidatingSite();
    const store = await openKnowledgeBase();
    const host = new URL(site.origin).host;
    const first = await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, PUBLIC);
    site.resources.set('/docs/configure', { type: 'text/html', body: docsPage('Configure', '<p>Open port 9443 for remote quokka administration.</p>'), etag: '"configure-2"' });
    site.resources.delete('/docs/warranty.pdf');
    site.requested.length = 0;

    const resync = await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, { ...PUBLIC, previousPages: first.learned });

    expect(first.learned.find((page) => page.url === `${site.origin}/docs/`)).toMatchObject({ etag: '"overview-1"', links: expect.arrayContaining([`${site.origin}/docs/install`]) });
    expect(site.notModified).toEqual(['/docs/', '/docs/install']);
    // Reached only through the links of the two unchanged pages, as stored.
    expect(site.requested).toEqual(expect.arrayContaining(['/docs/configure', '/docs/warranty.pdf']));
    expect(resync).toMatchObject({
      created: [],
      updated: [`${host}/docs/configure.html`],
      unchanged: [`${host}/docs/index.html`, `${host}/docs/install.html`],
      removed: [`${host}/docs/warranty.pdf`],
    });
    expect((await topPassage(store, 'which port for remote administration'))?.text).toContain('9443');
    expect((await topPassage(store, 'plug into the wall socket'))?.docId).toBe(`${host}/docs/install.html`);
    expect(resync.learned.map((page) => page.docId).sort()).toEqual([`${host}/docs/configure.html`, `${host}/docs/index.html`, `${host}/docs/install.html`]);
  });

  test('a page whose document a person removed since is fetched in full and stored again', async () => {
    const site = await openValidatingSite();
    const store = await openKnowledgeBase();
    const host = new URL(site.origin).host;
    const first = await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, PUBLIC);
    await store.removeDocument(KB_ID, `${host}/docs/install.html`);

    const resync = await ingestSite(store, { kind: 'pages', urls: [`${site.origin}/docs/`] }, { ...PUBLIC, previousPages: first.learned });

    expect(site.notModified).toEqual(['/docs/', '/docs/warranty.pdf']);
    expect(resync.created).toEqual([`${host}/docs/install.html`]);
    expect(resync.unchanged.sort()).toEqual([`${host}/docs/configure.html`, `${host}/docs/index.html`, `${host}/docs/warranty.pdf`]);
  });
});

describe('webDocumentId', () => {
  test('host and path, readable, with the extension of the format indexed', () => {
    expect(webDocumentId('https://docs.example.com/guide/setup/', 'text/html')).toBe('docs.example.com/guide/setup/index.html');
    expect(webDocumentId('https://docs.example.com/', 'text/html')).toBe('docs.example.com/index.html');
    expect(webDocumentId('https://docs.example.com/guide/set%20up?tab=2#x', 'text/html')).toBe('docs.example.com/guide/set up.html');
    expect(webDocumentId('https://docs.example.com/a/page.html', 'text/html')).toBe('docs.example.com/a/page.html');
    expect(webDocumentId('http://127.0.0.1:8080/files/manual.pdf', 'application/pdf')).toBe('127.0.0.1:8080/files/manual.pdf');
    expect(webDocumentId('https://docs.example.com/../../etc/passwd', 'text/plain')).toBe('docs.example.com/etc/passwd.txt');
  });
});
