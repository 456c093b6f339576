import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../protocol/workspace-terms.ts';

/**
 * Console passwords, stored as scrypt hashes (a memory-hard key derivation
 * function, RFC 7914), never in clear.
 *
 * Parameters: N = 2^15, r = 8, p = 3 - 32 MiB of memory and about 200 ms of
 * one core per hash here. Source: OWASP Password Storage Cheat Sheet, whose
 * floor for scrypt is N = 2^17, r = 8, p = 1 (128 MiB), with equivalent
 * settings that trade memory for CPU, N = 2^15, r = 8, p = 3 among them;
 * RFC 7914 (the scrypt definition; N a power of two, r * p < 2^30). p = 1 at
 * N = 2^15 would be below that floor, so p is 3. Salt: 16 random bytes;
 * derived key: 64 bytes.
 *
 * Stored form (all numbers decimal, bytes base64url without padding):
 * `scrypt$N$r$p$salt$hash`, e.g. `scrypt$32768$8$3$q2…$Zm…`. The parameters
 * travel with each hash, so raising them later only needs
 * {@link needsRehash} at the next successful sign-in.
 *
 * Policy (NIST SP 800-63B section 5.1.1.2, OWASP Authentication Cheat Sheet):
 * 12..1024 characters counted as Unicode code points, no composition rules;
 * passwords are NFKC-normalized before hashing so the same password typed on
 * another keyboard or system still matches.
 */

/** scrypt cost parameters of new hashes (see the module comment). */
export const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 3 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 64;
/** Upper bound of the parameters accepted from a stored hash (guards against a crafted row). */
const MAX_N = 2 ** 20;

/** A password outside the policy (too short, too long). */
export class PasswordPolicyError extends Error {
  override name = 'PasswordPolicyError';
}

/**
 * @returns a sentence saying why `password` is refused, or undefined when it
 *   meets the policy; never contains the password
 */
export function passwordPolicyProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    return `Password must be at least ${MIN_PASSWORD_LENGTH} characters long; this one has ${length}`;
  }
  if (length > MAX_PASSWORD_LENGTH) {
    return `Password must be at most ${MAX_PASSWORD_LENGTH} characters long; this one has ${length}`;
  }
  return undefined;
}

/**
 * Hashes a new password with fresh salt and the current parameters.
 *
 * @returns the stored form `scrypt$N$r$p$salt$hash`
 * @throws PasswordPolicyError when the password is shorter than 12 or longer than 1024 characters
 */
export async function hashPassword(password: string): Promise<string> {
  const problem = passwordPolicyProblem(password);
  if (problem !== undefined) throw new PasswordPolicyError(problem);
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p } = SCRYPT_PARAMETERS;
  const key = await derive(password, salt, KEY_BYTES, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Checks a password against a stored hash in constant time (`timingSafeEqual`).
 * Never throws for bad input: a malformed stored value or a password longer
 * than the policy allows is simply not a match.
 *
 * @param stored the output of {@link hashPassword}
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed || [...password].length > MAX_PASSWORD_LENGTH) return false;
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.parameters);
  return timingSafeEqual(key, parsed.key);
}

/** @returns whether `stored` was made with other parameters than today's (re-hash it after a successful sign-in) */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  const { N, r, p } = parsed.parameters;
  return (
    N !== SCRYPT_PARAMETERS.N || r !== SCRYPT_PARAMETERS.r || p !== SCRYPT_PARAMETERS.p || parsed.key.length !== KEY_BYTES
  );
}

/** RFC 4648 base32 alphabet: no 0/1/8/9, so nothing to confuse with O, I, L or B. */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * A random password for a first owner: four groups of five base32
 * characters (`K7QZB-M2XWA-…`), 100 bits of entropy.
 */
export function generatePassword(): string {
  // 256 is a multiple of 32, so `byte % 32` is uniform.
  const characters = [...randomBytes(20)].map((byte) => BASE32[byte % 32]!);
  return [0, 5, 10, 15].map((start) => characters.slice(start, start + 5).join('')).join('-');
}

interface ParsedHash {
  parameters: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^[1-9]\d{0,9}$/.test(part) ? Number(part) : NaN));
  if (N === undefined || r === undefined || p === undefined) return undefined;
  // N must be a power of two above 1 (RFC 7914 section 2); bounds keep a crafted row from exhausting memory.
  if (!(N > 1 && N <= MAX_N && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 8 || key.length < 16) return undefined;
  return { parameters: { N, r, p }, salt, key };
}

function derive(password: string, salt: Buffer, length: number, parameters: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = {
    ...parameters,
    // Node refuses above 32 MiB by default; scrypt needs 128 * N * r bytes plus a little.
    maxmem: 256 * parameters.N * parameters.r,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
