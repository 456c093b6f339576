import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatAllowedOrigin,
  isOriginAllowed,
  matchesAllowedOrigin,
  normalizeOrigin,
  parseAllowedOrigin,
} from './origins.ts';

describe('normalizeOrigin', () => {
  it.each([
    ['https://example.com', 'https://example.com'],
    ['HTTPS://EXAMPLE.COM', 'https://example.com'],
    ['https://example.com/', 'https://example.com'],
    ['https://example.com:443', 'https://example.com'],
    ['http://example.com:80', 'http://example.com'],
    ['https://example.com:8443', 'https://example.com:8443'],
    ['http://example.com:443', 'http://example.com:443'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
    ['https://BÜCHER.example', 'https://xn--bcher-kva.example'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    ['http://[0:0:0:0:0:0:0:1]:80', 'http://[::1]'],
    ['https://example.com.', 'https://example.com.'],
  ])('origin %j, serialized per the URL standard, is %j', (value, expected) => {
    // Act
    const normalized = normalizeOrigin(value);

    // Assert
    expect(normalized).toBe(expected);
  });

  it.each([
    ['the opaque origin', 'null'],
    ['an empty value', ''],
    ['garbage', 'not an origin'],
    ['a scheme other than http(s)', 'ftp://example.com'],
    ['a file URL', 'file:///etc/passwd'],
    ['a path', 'https://example.com/app'],
    ['two trailing slashes', 'https://example.com//'],
    ['a query', 'https://example.com/?a=1'],
    ['an empty query', 'https://example.com?'],
    ['an empty fragment', 'https://example.com#'],
    ['userinfo', 'https://user:secret@example.com'],
    ['empty userinfo', 'https://@example.com'],
    ['a percent-escape in the host', 'https://ex%61mple.com'],
    ['a tab in the host', 'https://exa\tmple.com'],
    ['leading whitespace', ' https://example.com'],
    ['a backslash', 'https:\\\\example.com'],
    ['a missing "//"', 'https:example.com'],
    ['a wildcard', 'https://*.example.com'],
    ['an empty port', 'https://example.com:'],
    ['a port above 65535', 'https://example.com:65536'],
    ['invalid punycode', 'https://xn--a.example'],
  ])('origin with %s is refused (undefined)', (_circumstance, value) => {
    // Act
    const normalized = normalizeOrigin(value);

    // Assert
    expect(normalized).toBeUndefined();
  });
});

describe('parseAllowedOrigin', () => {
  it('exact origin, uppercase with default port, parses to its serialization', () => {
    // Act
    const allowed = parseAllowedOrigin('HTTPS://Shop.Example.com:443/');

    // Assert
    expect(allowed).toEqual({ kind: 'exact', origin: 'https://shop.example.com' });
  });

  it('subdomain pattern, uppercase IDN with default port, parses to lowercase punycode without port', () => {
    // Act
    const allowed = parseAllowedOrigin('HTTPS://*.BÜCHER.example:443');

    // Assert
    expect(allowed).toEqual({ kind: 'subdomains', scheme: 'https', domain: 'xn--bcher-kva.example' });
  });

  it('subdomain pattern with another port keeps the port', () => {
    // Act
    const allowed = parseAllowedOrigin('http://*.example.com:8080');

    // Assert
    expect(allowed).toEqual({ kind: 'subdomains', scheme: 'http', domain: 'example.com', port: '8080' });
  });

  it.each([
    ['a single-label domain', 'https://*.com'],
    ['an IPv4 domain', 'https://*.127.0.0.1'],
    ['an IPv6 domain', 'https://*.[::1]'],
    ['a wildcard inside the host', 'https://a.*.example.com'],
    ['a wildcard without a dot', 'https://*example.com'],
    ['two wildcards', 'https://*.*.example.com'],
    ['a bare wildcard', 'https://*'],
    ['a path', 'https://*.example.com/app'],
    ['another scheme', 'wss://*.example.com'],
    ['an empty label', 'https://*..example.com'],
    ['the opaque origin', 'null'],
  ])('value with %s is refused (undefined)', (_circumstance, value) => {
    // Act
    const allowed = parseAllowedOrigin(value);

    // Assert
    expect(allowed).toBeUndefined();
  });
});

describe('formatAllowedOrigin', () => {
  it.each([
    ['HTTPS://*.Example.COM:443', 'https://*.example.com'],
    ['http://*.example.com:8080', 'http://*.example.com:8080'],
    ['https://*.bücher.example', 'https://*.xn--bcher-kva.example'],
    ['http://LOCALHOST:5173/', 'http://localhost:5173'],
  ])('parsed %j formats to canonical %j, which parses back to the same entry', (value, expected) => {
    // Arrange
    const allowed = parseAllowedOrigin(value);
    if (allowed === undefined) throw new Error(`Fixture ${value} does not parse`);

    // Act
    const canonical = formatAllowedOrigin(allowed);

    // Assert
    expect(canonical).toBe(expected);
    expect(parseAllowedOrigin(canonical)).toEqual(allowed);
  });
});

describe('isOriginAllowed', () => {
  const exact = ['https://example.com'];
  const pattern = ['https://*.example.com'];

  it.each([
    ['the same origin', 'https://example.com', exact],
    ['uppercase scheme and host', 'HTTPS://EXAMPLE.COM', exact],
    ['the explicit default port', 'https://example.com:443', exact],
    ['a trailing slash', 'https://example.com/', exact],
    ['a Unicode IDN host against stored punycode', 'https://bücher.example', ['https://xn--bcher-kva.example']],
    ['an uppercase IDN host against stored punycode', 'https://BÜCHER.example', ['https://xn--bcher-kva.example']],
    ['a local dev server', 'http://localhost:5173', ['http://localhost:5173']],
    ['one subdomain of a pattern', 'https://a.example.com', pattern],
    ['a nested subdomain of a pattern', 'https://a.b.example.com', pattern],
    ['a subdomain with the default port against a pattern', 'https://a.example.com:443', pattern],
    ['a subdomain against a pattern with a port', 'http://a.example.com:8080', ['http://*.example.com:8080']],
    ['the second entry of a list', 'https://b.test', ['https://a.test', 'https://b.test']],
  ])('origin matching by %s is allowed', (_circumstance, origin, allowed) => {
    // Act
    const result = isOriginAllowed(origin, allowed);

    // Assert
    expect(result).toBe(true);
  });

  it.each([
    ['a look-alike with the allowed host as a prefix', 'https://example.com.evil.test', exact],
    ['a look-alike with the allowed host as a suffix', 'https://evilexample.com', exact],
    ['http against https', 'http://example.com', exact],
    ['https against http', 'https://localhost:5173', ['http://localhost:5173']],
    ['another port', 'https://example.com:8443', exact],
    ['a subdomain against an exact origin', 'https://a.example.com', exact],
    ['a loopback address against localhost', 'http://127.0.0.1:5173', ['http://localhost:5173']],
    ['the opaque origin', 'null', exact],
    ['a trailing path', 'https://example.com/app', exact],
    ['userinfo', 'https://user@example.com', exact],
    ['garbage', '%%%', exact],
    ['an empty allowed list', 'https://example.com', []],
    ['the apex against a pattern', 'https://example.com', pattern],
    ['a suffix look-alike against a pattern', 'https://evilexample.com', pattern],
    ['a prefix look-alike against a pattern', 'https://a.example.com.evil.test', pattern],
    ['http against an https pattern', 'http://a.example.com', pattern],
    ['another port against a pattern', 'https://a.example.com:8443', pattern],
    ['an empty label against a pattern', 'https://.example.com', pattern],
    ['a pattern given as the origin', 'https://*.example.com', pattern],
    ['an allowed entry that does not parse', 'https://example.com', ['https://example.com/path']],
  ])('origin with %s is refused', (_circumstance, origin, allowed) => {
    // Act
    const result = isOriginAllowed(origin, allowed);

    // Assert
    expect(result).toBe(false);
  });

  it('exact allowed origin for any hostname never matches look-alikes and always matches itself in uppercase', () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        // Arrange
        const allowed = [`https://${domain}`];

        // Act
        const suffixed = isOriginAllowed(`https://${domain}.evil.test`, allowed);
        const prefixed = isOriginAllowed(`https://evil${domain}`, allowed);
        const uppercase = isOriginAllowed(`https://${domain}`.toUpperCase(), allowed);

        // Assert
        expect(suffixed).toBe(false);
        expect(prefixed).toBe(false);
        expect(uppercase).toBe(true);
      }),
    );
  });

  it('subdomain pattern for any hostname matches its subdomains but never its apex or a look-alike', () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        // Arrange
        const allowed = [`https://*.${domain}`];

        // Act
        const subdomain = isOriginAllowed(`https://www.${domain}`, allowed);
        const apex = isOriginAllowed(`https://${domain}`, allowed);
        const lookAlike = isOriginAllowed(`https://www.${domain}.evil.test`, allowed);

        // Assert
        expect(subdomain).toBe(true);
        expect(apex).toBe(false);
        expect(lookAlike).toBe(false);
      }),
    );
  });
});

describe('matchesAllowedOrigin', () => {
  it('pattern against a serialized origin that is not a URL is false', () => {
    // Arrange
    const allowed = parseAllowedOrigin('https://*.example.com');
    if (allowed === undefined) throw new Error('Fixture does not parse');

    // Act
    const result = matchesAllowedOrigin(allowed, 'null');

    // Assert
    expect(result).toBe(false);
  });
});
