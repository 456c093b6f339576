import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import type { SourceSpan } from '../../protocol/query-protocol.ts';

/**
 * Opaque, verifiable passage locators (docs/specification.md "Citation":
 * `source_span` is stable for the same passage version, verifiable by the
 * server and reveals nothing a client may rely on).
 *
 * The locator is encrypted with AES-256-GCM under a server key. The IV is
 * derived from an HMAC-SHA-256 of the plaintext (the synthetic-IV idea of
 * RFC 5297), so the same passage version always yields the same `ref`, and
 * the GCM tag makes a tampered `ref` fail to open.
 */

/** What a span locates: one passage of one document version. */
export interface SpanLocator {
  kbId: string;
  docId: string;
  chunkId: number;
  /** Content hash of the document version (a prefix is enough to tell versions apart). */
  version: string;
}

/** Encodes and verifies source spans with one key. */
export interface SourceSpanCodec {
  encode(locator: SpanLocator): SourceSpan;
  /** @returns the locator, or undefined when the span was not issued by this key or was altered */
  decode(span: unknown): SpanLocator | undefined;
}

const IV_BYTES = 12;
/** Spans kept ready: encoding is deterministic, so a cached span is exactly the one computed. */
const SPAN_CACHE_LIMIT = 10_000;
const TAG_BYTES = 16;

/**
 * @param secret at least 32 bytes of key material (hex or any string); split
 *   into an encryption key and an IV key with HMAC
 */
export function createSourceSpanCodec(secret: string): SourceSpanCodec {
  const encryptionKey = createHmac('sha256', secret).update('source-span/encrypt').digest();
  const ivKey = createHmac('sha256', secret).update('source-span/iv').digest();
  const encoded = new Map<string, SourceSpan>();
  return {
    encode(locator) {
      const key = `${locator.kbId}\u0000${locator.docId}\u0000${locator.chunkId}\u0000${locator.version}`;
      const cached = encoded.get(key);
      if (cached) return { ref: cached.ref };
      const plaintext = Buffer.from(
        JSON.stringify([locator.kbId, locator.docId, locator.chunkId, locator.version.slice(0, 16)]),
      );
      const iv = createHmac('sha256', ivKey).update(plaintext).digest().subarray(0, IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      const span = { ref: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url') };
      if (encoded.size >= SPAN_CACHE_LIMIT) encoded.clear();
      encoded.set(key, span);
      return { ref: span.ref };
    },
    decode(span) {
      if (typeof span !== 'object' || span === null) return undefined;
      const ref = (span as { ref?: unknown }).ref;
      if (typeof ref !== 'string') return undefined;
      const bytes = Buffer.from(ref, 'base64url');
      // Only the canonical encoding opens: Buffer ignores the unused low bits of
      // the last character, so other spellings of the same bytes are refused here.
      if (bytes.length <= IV_BYTES + TAG_BYTES || bytes.toString('base64url') !== ref) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', encryptionKey, bytes.subarray(0, IV_BYTES));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const plaintext = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
        const [kbId, docId, chunkId, version] = JSON.parse(plaintext.toString()) as [string, string, number, string];
        return { kbId, docId, chunkId, version };
      } catch {
        return undefined;
      }
    },
  };
}
