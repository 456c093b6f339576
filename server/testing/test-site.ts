import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One resource of a test site: a body and its media type (with the
 * validators it is served with, if any), a status, or a redirect.
 */
export type TestResource = { type: string; body: string | Uint8Array; etag?: string; lastModified?: string } | { status: number } | { redirect: string };

/** A website served by a test on loopback, whose pages the test changes between requests. */
export interface TestSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Resources by path (`/docs/install`); a path not listed answers 404. */
  resources: Map<string, TestResource>;
  /** Paths requested, in order. */
  requested: string[];
  /** Paths answered 304 Not Modified (a conditional request whose validator matched), in order. */
  notModified: string[];
  /** Holds every answer from now until the returned function is called (a crawl that is still running). */
  hold(): () => void;
  close(): Promise<void>;
}

/**
 * Serves `resources` on 127.0.0.1 for importer tests, as a documentation
 * site would: each path with its media type, status or redirect. A
 * resource with an `ETag` or `Last-Modified` answers a conditional GET as
 * RFC 9110 §13.1 says: 304 when `If-None-Match` names its ETag, or, without
 * `If-None-Match`, when `If-Modified-Since` is not before its date.
 */
export async function serveTestSite(resources: Record<string, TestResource>): Promise<TestSite> {
  let held: Promise<void> | undefined;
  const site: Omit<TestSite, 'origin' | 'close'> = {
    resources: new Map(Object.entries(resources)),
    requested: [],
    notModified: [],
    hold() {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
  };
  const server: Server = createServer(async (request, response) => {
    await held;
    const path = (request.url ?? '/').split('?')[0]!;
    site.requested.push(path);
    const resource = site.resources.get(path);
    if (resource === undefined) return void response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    if ('redirect' in resource) return void response.writeHead(301, { Location: resource.redirect }).end();
    if ('status' in resource) return void response.writeHead(resource.status, { 'Content-Type': 'text/plain' }).end();
    const validators = {
      ...(resource.etag === undefined ? {} : { ETag: resource.etag }),
      ...(resource.lastModified === undefined ? {} : { 'Last-Modified': resource.lastModified }),
    };
    if (notModified(request.headers, resource)) {
      site.notModified.push(path);
      return void response.writeHead(304, validators).end();
    }
    response.writeHead(200, { 'Content-Type': resource.type, ...validators });
    response.end(resource.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...site,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function notModified(headers: IncomingHttpHeaders, resource: { etag?: string; lastModified?: string }): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return resource.etag !== undefined && ifNoneMatch.split(/\s*,\s*/).includes(resource.etag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined || resource.lastModified === undefined) return false;
  return Date.parse(resource.lastModified) <= Date.parse(ifModifiedSince);
}

/** A documentation page as themes lay it out: a header and navigation around a `<main>`. */
export function docsPage(title: string, main: string, navigation = ''): string {
  return `<!doctype html><html><head><title>${title} | Example Docs</title></head><body>
<header><a href="/">Example</a> Site banner zeppelin</header>
<nav aria-label="Docs">${navigation}</nav>
<main><h1>${title}</h1>${main}</main>
<aside role="complementary">Sidebar promotion zeppelin</aside>
<footer>Footer copyright zeppelin</footer>
</body></html>`;
}
