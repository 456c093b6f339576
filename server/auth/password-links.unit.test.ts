import { describe, expect, test } from 'vitest';
import type { PasswordLinkRecord } from '../store/store.ts';
import { createPasswordLink, hashPasswordLinkSecret, PASSWORD_LINK_TTL_MILLISECONDS, passwordLinkState, setPasswordUrl } from './password-links.ts';

const LINK: PasswordLinkRecord = { secretHash: 'h', userId: 'usr_dana', createdAt: 1000, expiresAt: 1000 + PASSWORD_LINK_TTL_MILLISECONDS };

describe('passwordLinkState', () => {
  test.each<[string, PasswordLinkRecord | undefined, boolean, number, string]>([
    ['a fresh link of a user without password', LINK, false, 2000, 'usable'],
    ['the last millisecond before expiry', LINK, false, LINK.expiresAt - 1, 'usable'],
    ['at its expiry', LINK, false, LINK.expiresAt, 'expired'],
    ['no such link', undefined, false, 2000, 'unknown'],
    ['used, even when also expired', { ...LINK, usedAt: 1500 }, true, LINK.expiresAt + 1, 'used'],
    ['replaced, even when also expired', { ...LINK, replacedAt: 1500 }, false, LINK.expiresAt + 1, 'replaced'],
    ['its user has set a password another way (the CLI)', LINK, true, 2000, 'password_set'],
  ])('%s: %s', (_case, link, userHasPassword, at, expected) => {
    expect(passwordLinkState(link, userHasPassword, at)).toBe(expected);
  });
});

test('createPasswordLink: a kbp_ secret of 256 bits, stored only as its SHA-256, for 7 days; the URL opens the console page', async () => {
  const stored: PasswordLinkRecord[] = [];

  const { secret, expiresAt } = await createPasswordLink({ createPasswordLink: async (link) => void stored.push(link) }, 'usr_dana', 5000);

  expect(secret).toMatch(/^kbp_[A-Za-z0-9_-]{43}$/);
  expect(stored).toEqual([{ secretHash: hashPasswordLinkSecret(secret), userId: 'usr_dana', createdAt: 5000, expiresAt }]);
  expect(hashPasswordLinkSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
  expect(expiresAt).toBe(5000 + 7 * 24 * 60 * 60_000);
  expect(setPasswordUrl('https://kb.example.com', secret)).toBe(`https://kb.example.com/console#/set-password/${secret}`);
});
