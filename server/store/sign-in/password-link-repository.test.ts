import { describe, expect, onTestFinished, test } from 'vitest';
import { openTestStore } from '../../testing/test-store.ts';
import { PASSWORD_LINK_KEPT_AFTER_EXPIRY_MILLISECONDS } from './password-link-repository.ts';
import type { PasswordLinkRecord, Store, User } from '../store.ts';

/** Set-password links' storage on the test run's backend. */

const DAY = 24 * 60 * 60_000;

async function openLinkStore(): Promise<{ store: Store; user: User }> {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  const user = await store.createUser({ email: 'dana@example.com', name: 'Dana' });
  return { store, user };
}

function link(userId: string, secretHash: string, createdAt: number): PasswordLinkRecord {
  return { secretHash, userId, createdAt, expiresAt: createdAt + 7 * DAY };
}

describe('set-password links', () => {
  test('found by hash as created; unknown hash: undefined', async () => {
    const { store, user } = await openLinkStore();

    await store.createPasswordLink(link(user.id, 'a'.repeat(64), 1000));

    await expect(store.findPasswordLink('a'.repeat(64))).resolves.toEqual({ secretHash: 'a'.repeat(64), userId: user.id, createdAt: 1000, expiresAt: 1000 + 7 * DAY });
    await expect(store.findPasswordLink('b'.repeat(64))).resolves.toBeUndefined();
  });

  test('used: the password hash is set and the link marked used; a second use changes nothing', async () => {
    const { store, user } = await openLinkStore();
    await store.createPasswordLink(link(user.id, 'first', 1000));

    const used = await store.usePasswordLink('first', 2000, 'scrypt$hash-1');
    const again = await store.usePasswordLink('first', 3000, 'scrypt$hash-2');

    expect([used, again]).toEqual([user.id, undefined]);
    await expect(store.getPasswordHash(user.id)).resolves.toBe('scrypt$hash-1');
    await expect(store.findPasswordLink('first')).resolves.toMatchObject({ usedAt: 2000 });
  });

  test('a newer link replaces the older one, which no longer sets a password', async () => {
    const { store, user } = await openLinkStore();
    await store.createPasswordLink(link(user.id, 'older', 1000));

    await store.createPasswordLink(link(user.id, 'newer', 1000));

    await expect(store.findPasswordLink('older')).resolves.toMatchObject({ replacedAt: 1000 });
    await expect(store.usePasswordLink('older', 2000, 'scrypt$old')).resolves.toBeUndefined();
    await expect(store.usePasswordLink('newer', 2000, 'scrypt$new')).resolves.toBe(user.id);
    await expect(store.getPasswordHash(user.id)).resolves.toBe('scrypt$new');
  });

  test('expired at its expiry time: not used, no password set', async () => {
    const { store, user } = await openLinkStore();
    await store.createPasswordLink(link(user.id, 'late', 1000));

    await expect(store.usePasswordLink('late', 1000 + 7 * DAY, 'scrypt$late')).resolves.toBeUndefined();
    await expect(store.getPasswordHash(user.id)).resolves.toBeUndefined();
  });

  test('a user who has a password since: the link does not replace it', async () => {
    const { store, user } = await openLinkStore();
    await store.createPasswordLink(link(user.id, 'pending', 1000));
    await store.setPasswordHash(user.id, 'scrypt$set-by-cli');

    await expect(store.usePasswordLink('pending', 2000, 'scrypt$link')).resolves.toBeUndefined();
    await expect(store.getPasswordHash(user.id)).resolves.toBe('scrypt$set-by-cli');
  });

  test('used twice at once (on PostgreSQL, on two connections of the pool): exactly one sets the password', async () => {
    const { store, user } = await openLinkStore();
    await store.createPasswordLink(link(user.id, 'raced', 1000));

    const outcomes = await Promise.all([store.usePasswordLink('raced', 2000, 'scrypt$one'), store.usePasswordLink('raced', 2000, 'scrypt$two')]);

    expect(outcomes.filter((outcome) => outcome === user.id)).toHaveLength(1);
    const winner = outcomes[0] === user.id ? 'scrypt$one' : 'scrypt$two';
    await expect(store.getPasswordHash(user.id)).resolves.toBe(winner);
  });

  test('housekeeping: a link expired over 30 days before a new one is created is deleted; a user removed takes their links along', async () => {
    const { store, user } = await openLinkStore();
    const other = await store.createUser({ email: 'erin@example.com', name: 'Erin' });
    await store.createPasswordLink(link(user.id, 'ancient', 1000));
    await store.createPasswordLink(link(other.id, 'recent', 1000 + 7 * DAY));

    await store.createPasswordLink(link(other.id, 'newest', 1000 + 7 * DAY + PASSWORD_LINK_KEPT_AFTER_EXPIRY_MILLISECONDS + 1));

    await expect(store.findPasswordLink('ancient')).resolves.toBeUndefined();
    await expect(store.findPasswordLink('recent')).resolves.toMatchObject({ userId: other.id });
    await store.removeUser(other.id);
    await expect(store.findPasswordLink('recent')).resolves.toBeUndefined();
    await expect(store.findPasswordLink('newest')).resolves.toBeUndefined();
  });

  test('members without a password are listed as such', async () => {
    const { store, user } = await openLinkStore();
    const withPassword = await store.createUser({ email: 'erin@example.com', name: 'Erin' });
    await store.setPasswordHash(withPassword.id, 'scrypt$x');
    await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
    await store.setRole('docs', user.id, 'reader');
    await store.setRole('docs', withPassword.id, 'owner');

    await expect(store.listMembersWithoutPassword('docs')).resolves.toEqual([user.id]);
  });
});
