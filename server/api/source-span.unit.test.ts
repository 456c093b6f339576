import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createSourceSpanCodec, type SpanLocator } from './source-span.ts';

const SECRET = '0123456789abcdef0123456789abcdef';
const OTHER_SECRET = 'fedcba9876543210fedcba9876543210';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A locator whose version is a 16-character content-hash prefix (what decode gives back). */
function locatorOf(overrides: Partial<SpanLocator> = {}): SpanLocator {
  return { kbId: 'node-docs', docId: 'guides/setup.md', chunkId: 42, version: '9f86d081884c7d65', ...overrides };
}

/** The ref with the character at `position` replaced by a different base64url character. */
function withCharacterChanged(ref: string, position: number, shift = 1): string {
  const current = BASE64URL.indexOf(ref[position]!);
  const replacement = BASE64URL[(current + shift) % BASE64URL.length]!;
  return `${ref.slice(0, position)}${replacement}${ref.slice(position + 1)}`;
}

describe('createSourceSpanCodec', () => {
  test('encoded locator: decodes back to the same locator', () => {
    const codec = createSourceSpanCodec(SECRET);
    const locator = locatorOf();

    const decoded = codec.decode(codec.encode(locator));

    expect(decoded).toEqual(locator);
  });

  test('version given as a full SHA-256 hex: decodes to its first 16 characters', () => {
    const codec = createSourceSpanCodec(SECRET);
    const fullHash = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

    const decoded = codec.decode(codec.encode(locatorOf({ version: fullHash })));

    expect(decoded).toEqual(locatorOf({ version: '9f86d081884c7d65' }));
  });

  test('any locator: round trip through encode and decode (version prefix of 16)', () => {
    const codec = createSourceSpanCodec(SECRET);

    fc.assert(
      fc.property(
        fc.record({
          kbId: fc.string({ minLength: 1, maxLength: 30 }),
          docId: fc.string({ minLength: 1, maxLength: 80 }),
          chunkId: fc.nat(),
          version: fc.string({ maxLength: 16 }),
        }),
        (locator) => {
          expect(codec.decode(codec.encode(locator))).toEqual(locator);
        },
      ),
    );
  });

  test('same locator encoded twice, also by a second codec with the same secret: same ref', () => {
    const codec = createSourceSpanCodec(SECRET);
    const restarted = createSourceSpanCodec(SECRET);

    const first = codec.encode(locatorOf());
    const second = codec.encode(locatorOf());
    const afterRestart = restarted.encode(locatorOf());

    expect(second).toEqual(first);
    expect(afterRestart).toEqual(first);
  });

  test('same passage in another document version: different ref', () => {
    const codec = createSourceSpanCodec(SECRET);

    const before = codec.encode(locatorOf({ version: 'aaaaaaaaaaaaaaaa' }));
    const after = codec.encode(locatorOf({ version: 'bbbbbbbbbbbbbbbb' }));

    expect(after.ref).not.toBe(before.ref);
  });

  test('neighbouring passage of the same version: different ref', () => {
    const codec = createSourceSpanCodec(SECRET);

    const first = codec.encode(locatorOf({ chunkId: 1 }));
    const second = codec.encode(locatorOf({ chunkId: 2 }));

    expect(second.ref).not.toBe(first.ref);
  });

  test('encoded span: an object with only a url-safe string ref', () => {
    const span = createSourceSpanCodec(SECRET).encode(locatorOf());

    expect(Object.keys(span)).toEqual(['ref']);
    expect(span.ref).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  test('ref: contains neither the doc id, the kb id nor the version, in clear or base64url', () => {
    const locator = locatorOf({ docId: 'secret-roadmap.md' });
    const span = createSourceSpanCodec(SECRET).encode(locator);
    const bytes = Buffer.from(span.ref, 'base64url').toString('latin1');

    for (const value of [locator.docId, 'secret-roadmap', locator.kbId, locator.version]) {
      expect(span.ref).not.toContain(value);
      expect(span.ref).not.toContain(Buffer.from(value).toString('base64url'));
      expect(bytes).not.toContain(value);
    }
  });

  test('ref with one character in the middle changed: decode undefined', () => {
    const codec = createSourceSpanCodec(SECRET);
    const { ref } = codec.encode(locatorOf());

    const tampered = withCharacterChanged(ref, Math.floor(ref.length / 2));

    expect(codec.decode({ ref: tampered })).toBeUndefined();
  });

  test('ref with any one character but the last changed: decode undefined', () => {
    const codec = createSourceSpanCodec(SECRET);
    const { ref } = codec.encode(locatorOf());

    fc.assert(
      fc.property(fc.integer({ min: 0, max: ref.length - 2 }), fc.integer({ min: 1, max: 63 }), (position, shift) => {
        expect(codec.decode({ ref: withCharacterChanged(ref, position, shift) })).toBeUndefined();
      }),
    );
  });

  test('ref with its last character changed: never decodes to a different locator', () => {
    const codec = createSourceSpanCodec(SECRET);

    for (const docId of ['a.md', 'ab.md', 'abc.md']) {
      const locator = locatorOf({ docId });
      const { ref } = codec.encode(locator);
      for (let shift = 1; shift < BASE64URL.length; shift += 1) {
        const decoded = codec.decode({ ref: withCharacterChanged(ref, ref.length - 1, shift) });

        if (decoded !== undefined) expect(decoded).toEqual(locator);
      }
    }
  });

  test('ref with its last character changed (non-canonical base64url): decode undefined', () => {
    const codec = createSourceSpanCodec(SECRET);
    const { ref } = codec.encode(locatorOf({ docId: 'a.md' }));
    const accepted: string[] = [];

    for (let shift = 1; shift < BASE64URL.length; shift += 1) {
      const tampered = withCharacterChanged(ref, ref.length - 1, shift);
      if (codec.decode({ ref: tampered }) !== undefined) accepted.push(tampered);
    }

    expect(accepted).toEqual([]);
  });

  test('span issued under another secret: decode undefined', () => {
    const span = createSourceSpanCodec(OTHER_SECRET).encode(locatorOf());

    const decoded = createSourceSpanCodec(SECRET).decode(span);

    expect(decoded).toBeUndefined();
  });

  test.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'abc'],
    ['a number', 42],
    ['an array', ['ref']],
    ['an object without ref', { other: 'x' }],
    ['a non-string ref', { ref: 123 }],
    ['an empty ref', { ref: '' }],
    ['a ref too short to hold IV and tag', { ref: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['a ref of random bytes', { ref: Buffer.alloc(80, 7).toString('base64url') }],
  ])('span that is %s: decode undefined', (_label, span) => {
    const codec = createSourceSpanCodec(SECRET);

    expect(codec.decode(span)).toBeUndefined();
  });

  test('span object with extra fields but a valid ref: decodes (accepted back unchanged)', () => {
    const codec = createSourceSpanCodec(SECRET);
    const span = { ...codec.encode(locatorOf()), note: 'from client' };

    expect(codec.decode(span)).toEqual(locatorOf());
  });
});
