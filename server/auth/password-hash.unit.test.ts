import { scryptSync } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  generatePassword,
  hashPassword,
  needsRehash,
  PasswordPolicyError,
  passwordPolicyProblem,
  verifyPassword,
} from './password-hash.ts';

const PASSWORD = 'correct horse battery';

describe('hashPassword', () => {
  test('a policy-conforming password: scrypt$32768$8$3$salt$hash with a 16-byte salt and a 64-byte key', async () => {
    // Act
    const stored = await hashPassword(PASSWORD);

    // Assert
    const [algorithm, N, r, p, salt, key, ...rest] = stored.split('$');
    expect([algorithm, N, r, p, rest]).toEqual(['scrypt', '32768', '8', '3', []]);
    expect(Buffer.from(salt!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64url')).toHaveLength(64);
    expect(salt).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  test('the stored key is scrypt of the password with the stored salt and parameters (RFC 7914)', async () => {
    // Arrange
    const stored = await hashPassword(PASSWORD);
    const [, , , , salt, key] = stored.split('$');

    // Act
    const expected = scryptSync(PASSWORD, Buffer.from(salt!, 'base64url'), 64, {
      N: 2 ** 15,
      r: 8,
      p: 3,
      maxmem: 64 * 1024 * 1024,
    });

    // Assert
    expect(Buffer.from(key!, 'base64url').equals(expected)).toBe(true);
  });

  test('the same password twice: two different hashes (fresh salt)', async () => {
    const [first, second] = await Promise.all([hashPassword(PASSWORD), hashPassword(PASSWORD)]);

    expect(first).not.toBe(second);
  });

  test('11 characters: refused with a PasswordPolicyError saying the minimum and the length', async () => {
    await expect(hashPassword('abcdefghijk')).rejects.toThrow(
      new PasswordPolicyError('Password must be at least 12 characters long; this one has 11'),
    );
  });

  test('1025 characters: refused', async () => {
    await expect(hashPassword('a'.repeat(1025))).rejects.toBeInstanceOf(PasswordPolicyError);
  });
});

describe('passwordPolicyProblem', () => {
  test('12 characters and 1024 characters: accepted', () => {
    expect([passwordPolicyProblem('a'.repeat(12)), passwordPolicyProblem('a'.repeat(1024))]).toEqual([undefined, undefined]);
  });

  test('characters outside the BMP count as one each: 11 emoji are too short', () => {
    expect(passwordPolicyProblem('🔑'.repeat(11))).toBe('Password must be at least 12 characters long; this one has 11');
  });

  test('the refusal never contains the password', () => {
    expect(passwordPolicyProblem('hunter2')).not.toContain('hunter2');
  });
});

describe('verifyPassword', () => {
  test('the right password: true; a wrong one: false', async () => {
    const stored = await hashPassword(PASSWORD);

    const results = await Promise.all([verifyPassword(PASSWORD, stored), verifyPassword(`${PASSWORD}!`, stored)]);

    expect(results).toEqual([true, false]);
  });

  test('the password in another Unicode normalization form (NFD vs NFC): true', async () => {
    const stored = await hashPassword('café au lait, sans sucre'.normalize('NFC'));

    await expect(verifyPassword('café au lait, sans sucre'.normalize('NFD'), stored)).resolves.toBe(true);
  });

  test.each([
    ['empty', ''],
    ['another algorithm', 'bcrypt$2b$10$abc'],
    ['N not a power of two', 'scrypt$1000$8$1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5'],
    ['N beyond the accepted bound', 'scrypt$4294967296$8$1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5'],
    ['missing fields', 'scrypt$32768$8$1$c2FsdA'],
  ])('a malformed stored value (%s): false, no exception', async (_case, stored) => {
    await expect(verifyPassword(PASSWORD, stored)).resolves.toBe(false);
  });

  test('a hash made with other parameters (N = 2^14, p = 1): still verifies, and needs a rehash', async () => {
    // Arrange
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync(PASSWORD, salt, 64, { N: 2 ** 14, r: 8, p: 1 });
    const stored = `scrypt$16384$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;

    // Act
    const verified = await verifyPassword(PASSWORD, stored);

    // Assert
    expect(verified).toBe(true);
    expect(needsRehash(stored)).toBe(true);
    expect(needsRehash(await hashPassword(PASSWORD))).toBe(false);
  });
});

describe('generatePassword', () => {
  test('four dash-separated groups of five base32 characters, different each time, accepted by the policy', () => {
    const passwords = Array.from({ length: 50 }, generatePassword);

    for (const password of passwords) {
      expect(password).toMatch(/^[A-Z2-7]{5}(-[A-Z2-7]{5}){3}$/);
      expect(passwordPolicyProblem(password)).toBeUndefined();
    }
    expect(new Set(passwords).size).toBe(50);
  });
});
