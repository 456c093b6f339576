/**
 * Browser origins and the allowed-origin lists of widget tokens
 * (docs/design-decisions.md "Tokens and origins", docs/specification.md "Authentication").
 *
 * An origin is compared in its serialized form (RFC 6454 section 6.1, HTML
 * "serialization of an origin"), as produced by the WHATWG URL parser: the
 * same normalization a browser applies before it sends an `Origin` header.
 * A token's list holds exact origins (`https://shop.example.com`) and
 * subdomain patterns (`https://*.example.com`), each stored in the canonical
 * form given by {@link formatAllowedOrigin}.
 */

/**
 * One entry of a token's allowed-origin list.
 *
 * - `exact`: one serialized origin, e.g. `https://shop.example.com`,
 *   `http://localhost:5173`, `http://[::1]:8080`.
 * - `subdomains`: every host with at least one more label in front of
 *   `domain`, same scheme and port; never `domain` itself (the apex).
 */
export type AllowedOrigin =
  | { kind: 'exact'; origin: string }
  | {
      kind: 'subdomains';
      scheme: 'http' | 'https';
      /** Lowercase ASCII (punycode) domain of at least two labels, e.g. `example.com`. */
      domain: string;
      /** Decimal port, omitted when it is the scheme's default (80 or 443). */
      port?: string;
    };

/**
 * What an origin may look like before it is parsed: `scheme://host[:port]`
 * and at most one trailing `/`. The host is a bracketed IPv6 literal or a run
 * of characters without whitespace, controls, or any of `/ ? # @ \ % : [ ] *`.
 * This refuses what the URL parser would otherwise silently repair or drop
 * (userinfo, an empty `?` or `#`, percent-escapes and tabs in the host,
 * backslashes) and keeps a `*` pattern from ever being taken for a host.
 */
const ORIGIN_SYNTAX = /^https?:\/\/(?:\[[0-9A-Fa-f:.]+\]|[^\s\p{Cc}/?#@\\%:\[\]*]+)(?::\d{1,5})?\/?$/iu;

/** `scheme://*.` in front of a subdomain pattern. */
const PATTERN_PREFIX = /^(https?):\/\/\*\./i;

/** A host the URL parser serialized as an IPv4 or IPv6 address. */
const IP_ADDRESS_HOST = /^(?:\d+\.\d+\.\d+\.\d+|\[.*\])$/;

/**
 * Normalizes a browser `Origin` header value or a configured allowed origin
 * to its serialization (WHATWG URL standard, "origin" of a URL and
 * "serialization of an origin"; RFC 6454 section 6.1).
 *
 * Accepted: `http` or `https`, a host, an optional port and at most one
 * trailing `/` - nothing else. The result has a lowercase scheme and host, an
 * IDN host in punycode (UTS #46 through the URL host parser), IPv4 in
 * dotted-decimal form, and no port when it is the scheme's default (80 for
 * http, 443 for https). So `HTTPS://Bücher.Example:443/` gives
 * `https://xn--bcher-kva.example`.
 *
 * Refused (undefined): the opaque origin `null`; any other scheme; userinfo,
 * a path beyond `/`, a query or fragment (even empty); whitespace, control
 * characters, backslashes, percent-escapes or `*` anywhere; hosts or ports
 * the URL parser rejects (invalid punycode, port above 65535). A trailing dot
 * (`https://example.com.`) is kept: it is a different origin.
 *
 * @param value the raw header value or configured string
 * @returns the serialized origin, e.g. `https://example.com:8443`, or undefined
 */
export function normalizeOrigin(value: string): string | undefined {
  if (!ORIGIN_SYNTAX.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    return undefined;
  }
  return url.origin;
}

/**
 * Parses one configured allowed origin: an exact origin (see
 * {@link normalizeOrigin}) or a subdomain pattern `scheme://*.domain[:port]`.
 *
 * A pattern's domain is normalized like an origin's host (lowercase, IDN to
 * punycode, default port dropped) and must be a domain name of at least two
 * labels: `https://*.com`, `https://*.127.0.0.1` and `https://*.[::1]` are
 * refused. Public suffixes of two or more labels (`https://*.co.uk`) are not
 * detected: no Public Suffix List is consulted. A `*` anywhere but directly
 * after `://`, or a pattern with a path, is refused.
 *
 * @param value the configured string, e.g. `https://*.Example.com:443`
 * @returns the parsed entry, or undefined when `value` is neither form
 */
export function parseAllowedOrigin(value: string): AllowedOrigin | undefined {
  const prefix = PATTERN_PREFIX.exec(value);
  if (!prefix) {
    const origin = normalizeOrigin(value);
    return origin === undefined ? undefined : { kind: 'exact', origin };
  }
  const scheme = prefix[1]?.toLowerCase() === 'https' ? 'https' : 'http';
  const apex = normalizeOrigin(`${scheme}://${value.slice(prefix[0].length)}`);
  if (apex === undefined) return undefined;
  const url = new URL(apex);
  const domain = url.hostname;
  if (IP_ADDRESS_HOST.test(domain)) return undefined;
  const labels = domain.replace(/\.$/, '').split('.');
  if (labels.length < 2 || labels.some((label) => label === '')) return undefined;
  return url.port === '' ? { kind: 'subdomains', scheme, domain } : { kind: 'subdomains', scheme, domain, port: url.port };
}

/**
 * The canonical string of an allowed origin, the form to store and to show:
 * `https://shop.example.com`, `https://*.example.com`, `http://*.example.com:8080`.
 * `parseAllowedOrigin(formatAllowedOrigin(entry))` gives `entry` back.
 */
export function formatAllowedOrigin(allowed: AllowedOrigin): string {
  if (allowed.kind === 'exact') return allowed.origin;
  return `${allowed.scheme}://*.${allowed.domain}${allowed.port === undefined ? '' : `:${allowed.port}`}`;
}

/**
 * Whether a serialized origin (the output of {@link normalizeOrigin}) is
 * allowed by one entry. An exact entry matches the identical serialization; a
 * pattern matches a host ending in `.<domain>` with at least one non-empty
 * label before it, the same scheme and the same port.
 *
 * @param allowed the parsed entry
 * @param origin an already normalized origin, e.g. `https://a.example.com`
 */
export function matchesAllowedOrigin(allowed: AllowedOrigin, origin: string): boolean {
  if (allowed.kind === 'exact') return origin === allowed.origin;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== `${allowed.scheme}:` || url.port !== (allowed.port ?? '')) return false;
  const suffix = `.${allowed.domain}`;
  if (!url.hostname.endsWith(suffix)) return false;
  const subdomain = url.hostname.slice(0, -suffix.length);
  return subdomain !== '' && subdomain.split('.').every((label) => label !== '');
}

/**
 * Whether a browser request's `Origin` header is allowed by a token's list
 * (docs/design-decisions.md "Tokens and origins"). The header is normalized first; `null`,
 * a malformed value, or no matching entry gives false. An empty list allows
 * no origin at all (a server-only token). Entries that do not parse never
 * match. A request without an `Origin` header is a server call and must be
 * decided before calling this (docs/specification.md "Authentication").
 *
 * @param origin the raw `Origin` request header value
 * @param allowed the token's allowed origins, as stored (canonical strings)
 */
export function isOriginAllowed(origin: string, allowed: readonly string[]): boolean {
  const normalized = normalizeOrigin(origin);
  if (normalized === undefined) return false;
  return allowed.some((value) => {
    const entry = parseAllowedOrigin(value);
    return entry !== undefined && matchesAllowedOrigin(entry, normalized);
  });
}
