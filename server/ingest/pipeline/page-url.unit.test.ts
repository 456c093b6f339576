import { describe, expect, test } from 'vitest';
import { BaseUrlError, normalizeBaseUrl, pageUrl } from './page-url.ts';

const HUGO = { baseUrl: 'https://kubernetes.io/docs/', urlStyle: 'pretty' } as const;
const NODE = { baseUrl: 'https://nodejs.org/docs/latest-v18.x/api/', urlStyle: 'html' } as const;

describe('pageUrl', () => {
  test('pretty URLs: a folder per page, a section index for its folder, the root index for the base', () => {
    expect(pageUrl(HUGO, 'concepts/storage/volumes.md')).toBe('https://kubernetes.io/docs/concepts/storage/volumes/');
    expect(pageUrl(HUGO, 'concepts/storage/_index.md')).toBe('https://kubernetes.io/docs/concepts/storage/');
    expect(pageUrl(HUGO, 'contribute/style/hugo-shortcodes/index.md')).toBe('https://kubernetes.io/docs/contribute/style/hugo-shortcodes/');
    expect(pageUrl(HUGO, '_index.md')).toBe('https://kubernetes.io/docs/');
  });

  test('html URLs: a file per page, as the Node.js docs publish them', () => {
    expect(pageUrl(NODE, 'fs.md')).toBe('https://nodejs.org/docs/latest-v18.x/api/fs.html');
    expect(pageUrl(NODE, 'index.md')).toBe('https://nodejs.org/docs/latest-v18.x/api/index.html');
    expect(pageUrl(NODE, 'guides/README.md')).toBe('https://nodejs.org/docs/latest-v18.x/api/guides/index.html');
  });

  test('a PDF: the file itself in either style, its name percent-encoded', () => {
    expect(pageUrl(HUGO, 'manuals/router guide.pdf')).toBe('https://kubernetes.io/docs/manuals/router%20guide.pdf');
    expect(pageUrl(NODE, 'Release-Notes.PDF')).toBe('https://nodejs.org/docs/latest-v18.x/api/Release-Notes.PDF');
  });

  test("front matter slug: replaces the last segment, names a page in an index's folder; a leading / makes it a path from the base URL", () => {
    expect(pageUrl(HUGO, 'concepts/storage/volumes.md', { slug: 'vols' })).toBe('https://kubernetes.io/docs/concepts/storage/vols/');
    expect(pageUrl(NODE, 'fs.md', { slug: 'file-system' })).toBe('https://nodejs.org/docs/latest-v18.x/api/file-system.html');
    expect(pageUrl(HUGO, 'a/b.md', { slug: '/intro' })).toBe('https://kubernetes.io/docs/intro/');
    expect(pageUrl(NODE, 'guide/index.md', { slug: 'start' })).toBe('https://nodejs.org/docs/latest-v18.x/api/guide/start.html');
  });

  test('front matter url: absolute as written, a path from the site host, or relative to the base', () => {
    expect(pageUrl(HUGO, 'a.md', { url: 'https://example.com/x/' })).toBe('https://example.com/x/');
    expect(pageUrl(HUGO, 'a.md', { url: '/blog/post/' })).toBe('https://kubernetes.io/blog/post/');
    expect(pageUrl(HUGO, 'a.md', { url: 'setup/' })).toBe('https://kubernetes.io/docs/setup/');
  });

  test('no base URL: only an absolute front matter url; never a non-http URL', () => {
    const noSite = { urlStyle: 'pretty' } as const;

    expect(pageUrl(noSite, 'a.md')).toBeUndefined();
    expect(pageUrl(noSite, 'a.md', { url: '/x/' })).toBeUndefined();
    expect(pageUrl(noSite, 'a.md', { url: 'https://example.com/a' })).toBe('https://example.com/a');
    expect(pageUrl(HUGO, 'a.md', { url: 'javascript:alert(1)' })).toBeUndefined();
  });

  test('segments with spaces and non-ASCII letters: percent-encoded', () => {
    expect(pageUrl(HUGO, 'guides/Über uns.md')).toBe('https://kubernetes.io/docs/guides/%C3%9Cber%20uns/');
  });
});

describe('normalizeBaseUrl', () => {
  test('without a trailing slash: one added; whitespace trimmed', () => {
    expect(normalizeBaseUrl(' https://nodejs.org/docs/latest-v18.x/api ')).toBe('https://nodejs.org/docs/latest-v18.x/api/');
  });

  test('not absolute, not http(s), or with a query or fragment: BaseUrlError naming it', () => {
    expect(() => normalizeBaseUrl('docs/')).toThrow(new BaseUrlError('Base URL "docs/" is not an absolute URL (https://example.com/docs/)'));
    expect(() => normalizeBaseUrl('ftp://example.com/')).toThrow(/must use http or https/);
    expect(() => normalizeBaseUrl('https://example.com/?v=1')).toThrow(/must not have a query or fragment/);
  });
});
