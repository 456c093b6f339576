import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * HTTP GET for the website importer, refusing server-side request forgery:
 * a crawl runs on the server, inside its network, at URLs a console user
 * typed or a sitemap listed, so it must not reach what only the server can
 * reach (the cloud metadata service at 169.254.169.254, an admin port on
 * localhost, a database on the private network). As OWASP's SSRF
 * prevention cheat sheet advises:
 *
 * - only `http:` and `https:` URLs without credentials;
 * - the address a request connects to is checked where the connection is
 *   made (the socket's DNS lookup), so a name that resolves to a private
 *   address is refused, and one that resolves differently on a second
 *   lookup (DNS rebinding) cannot slip through; a URL with an address in
 *   place of a name is checked before any connection;
 * - only global unicast addresses pass ({@link isPublicAddress}): not
 *   loopback, private (RFC 1918), link-local, unique-local, carrier-grade
 *   NAT, multicast, reserved, unspecified, nor an IPv4 address wrapped in an
 *   IPv6 one (`::ffff:127.0.0.1`, NAT64, 6to4, Teredo);
 * - redirects are followed by hand, each target checked like the first URL,
 *   at most {@link FetchLimits.maxRedirects} of them;
 * - the body is read up to {@link FetchLimits.maxBytes}, and the whole
 *   exchange is bounded by {@link FetchLimits.timeoutMs}.
 *
 * `allowPrivateAddresses` lifts the address rule, for a knowledge base
 * whose site is on an intranet (and for tests, which serve sites on
 * loopback): `true` for every address, or a list of the addresses allowed.
 */

/** Bounds of one fetch. */
export interface FetchLimits {
  /** Largest body read, in bytes; a larger one is an error. */
  maxBytes: number;
  /** Longest time for the whole exchange, redirects included, in milliseconds. */
  timeoutMs: number;
  /** Most redirects followed. */
  maxRedirects: number;
  /** `true`: any address may be reached; a list: those addresses too; `false` (default): global unicast only. */
  allowPrivateAddresses?: boolean | readonly string[];
}

/** Defaults for a documentation page (the importer's, server/ingest/web/crawl-site.ts). */
export const DEFAULT_FETCH_LIMITS: FetchLimits = { maxBytes: 10 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 };

/** The `User-Agent` of the importer, the name robots.txt rules are matched against. */
export const CRAWLER_USER_AGENT = 'kb-widget-importer/1.0 (+https://github.com/kb-widget)';
/** The token robots.txt groups name the importer by. */
export const CRAWLER_ROBOTS_NAME = 'kb-widget-importer';

/** What a fetch brought back. */
export interface FetchedResponse {
  /** The URL answered, after redirects. */
  url: string;
  status: number;
  /** The media type, lower case, without parameters (`text/html`); empty when absent. */
  contentType: string;
  body: Buffer;
  etag?: string;
  lastModified?: string;
}

/** A URL the fetcher will not request (a refused scheme or address). */
export class FetchRefusedError extends Error {
  override name = 'FetchRefusedError';
}

/** A request that failed: unreachable, too slow, too large, too many redirects. */
export class FetchFailedError extends Error {
  override name = 'FetchFailedError';
}

/**
 * GETs a URL under the rules above. Statuses other than redirects are
 * returned, not thrown (a 304 or a 404 is an answer).
 *
 * @param headers extra request headers (`If-None-Match`, `If-Modified-Since`, `Accept`)
 * @throws FetchRefusedError for a URL or redirect target the rules refuse (nothing is sent to it)
 * @throws FetchFailedError when the exchange fails, runs out of time, exceeds the byte limit or redirects too often
 */
export async function guardedFetch(url: string, limits: FetchLimits, headers: Record<string, string> = {}): Promise<FetchedResponse> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  let current = checkedUrl(url, limits);
  for (let redirects = 0; ; redirects++) {
    const response = await request(current, limits, headers, deadline);
    const location = response.headers['location'];
    if (response.status >= 300 && response.status < 400 && response.status !== 304 && location !== undefined) {
      response.discard();
      if (redirects >= limits.maxRedirects) throw new FetchFailedError(`${url} redirects more than ${limits.maxRedirects} times`);
      current = checkedUrl(new URL(location, current).href, limits);
      continue;
    }
    const body = await response.read(limits.maxBytes, current.href);
    const etag = header(response.headers, 'etag');
    const lastModified = header(response.headers, 'last-modified');
    return {
      url: current.href,
      status: response.status,
      contentType: (header(response.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase(),
      body,
      ...(etag === undefined ? {} : { etag }),
      ...(lastModified === undefined ? {} : { lastModified }),
    };
  }
}

/**
 * @returns whether an address is global unicast: the only kind the fetcher
 *   reaches when private addresses are not allowed (ipaddr.js's range
 *   classification, after RFC 6890's special-purpose registries)
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  // An IPv4 address in IPv6 clothing is judged as itself; ipaddr.js calls the other embeddings (NAT64, 6to4, Teredo) by their own ranges, refused below.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return isPublicAddress((parsed as ipaddr.IPv6).toIPv4Address().toString());
  return parsed.range() === 'unicast';
}

/** @throws FetchRefusedError when the address may not be reached under the limits' setting */
function requireAllowedAddress(address: string, host: string, limits: FetchLimits): void {
  const allowed = limits.allowPrivateAddresses;
  if (allowed === true || isPublicAddress(address)) return;
  if (Array.isArray(allowed) && allowed.some((entry) => sameAddress(entry, address))) return;
  const what = ipaddr.isValid(address) ? describeRange(address) : 'not an IP address';
  throw new FetchRefusedError(
    `${host === address ? address : `${host} resolves to ${address}`}, ${what}: refused, as every address that is not public is (KB_IMPORT_ALLOW_PRIVATE_ADDRESSES allows them)`,
  );
}

function sameAddress(left: string, right: string): boolean {
  return ipaddr.isValid(left) && ipaddr.isValid(right) && ipaddr.process(left).toString() === ipaddr.process(right).toString();
}

/** The range of a refused address, in words. */
function describeRange(address: string): string {
  const range = ipaddr.parse(address).range();
  const names: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    linkLocal: 'a link-local address',
    uniqueLocal: 'a unique-local address',
    carrierGradeNat: 'a carrier-grade NAT address',
    unspecified: 'the unspecified address',
    multicast: 'a multicast address',
    broadcast: 'the broadcast address',
    reserved: 'a reserved address',
    ipv4Mapped: 'an IPv4-mapped address of one that is not public',
  };
  return names[range] ?? `an address in the ${range} range`;
}

/** @throws FetchRefusedError for a URL that is not http(s), carries credentials, or names a refused address */
function checkedUrl(text: string, limits: FetchLimits): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FetchRefusedError(`"${text}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`${url.href}: only http and https URLs are fetched`);
  if (url.username !== '' || url.password !== '') throw new FetchRefusedError(`${url.origin}: URLs with credentials are not fetched`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) requireAllowedAddress(host, host, limits);
  return url;
}

function header(headers: http.IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

interface OpenResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Reads the body, at most `maxBytes`. */
  read(maxBytes: number, url: string): Promise<Buffer>;
  /** Drops the body (a redirect's). */
  discard(): void;
}

/** Sends one GET, connecting only to addresses the rules allow (checked in the socket's lookup). */
function request(url: URL, limits: FetchLimits, headers: Record<string, string>, signal: AbortSignal): Promise<OpenResponse> {
  const lookup = (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
    dnsLookup(hostname, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      try {
        for (const { address } of addresses) requireAllowedAddress(address, hostname, limits);
      } catch (refusal) {
        return callback(refusal);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.get(
      url,
      {
        headers: { 'User-Agent': CRAWLER_USER_AGENT, 'Accept-Encoding': 'identity', ...headers },
        lookup: lookup as unknown as typeof dnsLookup,
        signal,
        // A fresh connection per request: a kept-alive socket would skip the lookup's check.
        agent: false,
      },
      (incoming) => {
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          discard: () => incoming.resume(),
          read: (maxBytes, where) =>
            new Promise<Buffer>((resolveBody, rejectBody) => {
              const chunks: Buffer[] = [];
              let size = 0;
              incoming.on('data', (chunk: Buffer) => {
                size += chunk.length;
                if (size > maxBytes) {
                  incoming.destroy();
                  rejectBody(new FetchFailedError(`${where} is larger than ${maxBytes} bytes`));
                  return;
                }
                chunks.push(chunk);
              });
              incoming.on('end', () => resolveBody(Buffer.concat(chunks)));
              incoming.on('error', (error) => rejectBody(failure(error, where, limits)));
            }),
        });
      },
    );
    outgoing.on('error', (error) => reject(error instanceof FetchRefusedError ? error : failure(error, url.href, limits)));
  });
}

function failure(error: Error, url: string, limits: FetchLimits): Error {
  if (error instanceof FetchRefusedError || error instanceof FetchFailedError) return error;
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return new FetchFailedError(`${url} did not answer within ${limits.timeoutMs} ms`);
  return new FetchFailedError(`${url} could not be fetched: ${error.message}`);
}
