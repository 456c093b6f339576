import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_FETCH_LIMITS, FetchFailedError, FetchRefusedError, guardedFetch, isPublicAddress, type FetchLimits } from './guarded-fetch.ts';

/**
 * The importer's fetcher against a site served by the test on loopback.
 * With private addresses refused (the default), nothing on loopback, a
 * private network, link-local or an IPv6-mapped form of them is requested,
 * whether named directly, through DNS or as a redirect's target; the test
 * server counts what reaches it. It listens on 127.0.0.2, and a "public"
 * site is simulated by allowing exactly that address, so that its
 * redirects to other addresses (`localhost` is 127.0.0.1) are judged.
 */

let server: Server;
let origin: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push(request.url ?? '');
    const port = (server.address() as AddressInfo).port;
    switch (request.url) {
      case '/page':
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ETag: '"v1"', 'Last-Modified': 'Tue, 24 Nov 2026 10:00:00 GMT' });
        response.end('<h1>Page</h1>');
        return;
      case '/to-metadata':
        response.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end();
        return;
      case '/to-ipv6-loopback':
        response.writeHead(301, { Location: `http://[::1]:${port}/page` }).end();
        return;
      case '/to-mapped':
        response.writeHead(307, { Location: `http://[::ffff:a9fe:a9fe]:${port}/page` }).end();
        return;
      case '/to-localhost':
        response.writeHead(302, { Location: `http://localhost:${port}/page` }).end();
        return;
      case '/to-page':
        response.writeHead(302, { Location: '/page' }).end();
        return;
      case '/loop':
        response.writeHead(302, { Location: '/loop' }).end();
        return;
      case '/large':
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.end('x'.repeat(2048));
        return;
      default:
        response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  origin = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Limits under which the test server, on 127.0.0.2, stands for a public site. */
const AS_PUBLIC: FetchLimits = { ...DEFAULT_FETCH_LIMITS, allowPrivateAddresses: ['127.0.0.2'] };

describe('guardedFetch with private addresses refused (the default)', () => {
  test.each([
    ['loopback, by address', () => `${origin}/page`, /127\.0\.0\.2, a loopback address: refused/],
    ['loopback, by name (after DNS resolution)', () => `${origin.replace('127.0.0.2', 'localhost')}/page`, /localhost resolves to 127\.0\.0\.1, a loopback address: refused/],
    ['IPv6 loopback', () => 'http://[::1]:9/page', /::1, a loopback address: refused/],
    ['IPv4-mapped IPv6 loopback', () => 'http://[::ffff:127.0.0.1]:9/page', /IPv4-mapped address of one that is not public: refused/],
    ['a private network (RFC 1918)', () => 'http://10.0.0.8/admin', /10\.0\.0\.8, a private address: refused/],
    ['link-local (the cloud metadata service)', () => 'http://169.254.169.254/latest/meta-data/', /a link-local address: refused/],
    ['IPv6 link-local', () => 'http://[fe80::1]/', /a link-local address: refused/],
    ['IPv6 unique-local', () => 'http://[fd00::5]/', /a unique-local address: refused/],
    ['the unspecified address', () => 'http://0.0.0.0:9/', /the unspecified address: refused/],
  ])('%s: refused before anything is sent', async (_name, target, message) => {
    const before = received.length;

    const fetching = guardedFetch(target(), DEFAULT_FETCH_LIMITS);

    await expect(fetching).rejects.toThrow(FetchRefusedError);
    await expect(fetching).rejects.toThrow(message);
    expect(received.length).toBe(before);
  });

  test('schemes other than http(s) and URLs with credentials: refused', async () => {
    await expect(guardedFetch('file:///etc/passwd', DEFAULT_FETCH_LIMITS)).rejects.toThrow('only http and https URLs are fetched');
    await expect(guardedFetch('https://user:secret@example.com/', DEFAULT_FETCH_LIMITS)).rejects.toThrow('URLs with credentials are not fetched');
  });
});

describe('guardedFetch redirects from an allowed site', () => {
  test.each([
    ['to the metadata service', '/to-metadata', /169\.254\.169\.254, a link-local address: refused/],
    ['to IPv6 loopback', '/to-ipv6-loopback', /::1, a loopback address: refused/],
    ['to an IPv4-mapped address', '/to-mapped', /IPv4-mapped address of one that is not public: refused/],
    ['to a name resolving to loopback', '/to-localhost', /localhost resolves to 127\.0\.0\.1, a loopback address: refused/],
  ])('%s: refused, only the first request sent', async (_name, path, message) => {
    const before = received.length;

    const fetching = guardedFetch(`${origin}${path}`, AS_PUBLIC);

    await expect(fetching).rejects.toThrow(message);
    expect(received.slice(before)).toEqual([path]);
  });

  test('a redirect on the site is followed; the answer carries its URL, media type and validators', async () => {
    const fetched = await guardedFetch(`${origin}/to-page`, AS_PUBLIC);

    expect(fetched).toMatchObject({ url: `${origin}/page`, status: 200, contentType: 'text/html', etag: '"v1"', lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT' });
    expect(fetched.body.toString()).toBe('<h1>Page</h1>');
  });

  test('a redirect loop, a body over the limit: failed with the reason', async () => {
    await expect(guardedFetch(`${origin}/loop`, AS_PUBLIC)).rejects.toThrow(new FetchFailedError(`${origin}/loop redirects more than 5 times`));
    await expect(guardedFetch(`${origin}/large`, { ...AS_PUBLIC, maxBytes: 1024 })).rejects.toThrow(`${origin}/large is larger than 1024 bytes`);
  });

  test('every address allowed (the setting on): loopback fetched; a 404 is an answer, not an error', async () => {
    const fetched = await guardedFetch(`${origin}/missing`, { ...DEFAULT_FETCH_LIMITS, allowPrivateAddresses: true });

    expect(fetched.status).toBe(404);
  });
});

describe('isPublicAddress', () => {
  test('global unicast only', () => {
    expect(['8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'].map(isPublicAddress)).toEqual([true, true, true]);
    expect(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '100.64.0.1', '169.254.0.1', '224.0.0.1', '198.18.0.1', '::1', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::1', 'example.com'].map(isPublicAddress)).toEqual(
      Array(15).fill(false),
    );
  });
});
