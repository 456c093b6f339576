import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { verifyPassword } from './auth/password-hash.ts';
import { ensureOwnerPassword } from './seed.ts';
import { openStore } from './store/open-store.ts';
import { createTestStoreLocation } from './testing/test-store.ts';
import type { Store, User } from './store/store.ts';

/** A fresh store with an owner who has no password, as a first run (or an older release) leaves it. */
async function storeWithOwner(): Promise<{ store: Store; owner: User }> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-seed-test-'));
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location);
  onTestFinished(async () => {
    await store.close();
    await dispose();
    await rm(folder, { recursive: true, force: true });
  });
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Workspace owner' });
  return { store, owner };
}

describe('ensureOwnerPassword', () => {
  test('owner without a password, none configured: a random one in four groups of five, which signs in', async () => {
    // Arrange
    const { store, owner } = await storeWithOwner();

    // Act
    const outcome = await ensureOwnerPassword(store, owner.id, undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'generated', password: expect.stringMatching(/^[A-Z2-7]{5}(-[A-Z2-7]{5}){3}$/) });
    const password = (outcome as { password: string }).password;
    await expect(verifyPassword(password, (await store.getPasswordHash(owner.id))!)).resolves.toBe(true);
  });

  test('owner without a password, KB_OWNER_PASSWORD configured: that one is set', async () => {
    const { store, owner } = await storeWithOwner();

    const outcome = await ensureOwnerPassword(store, owner.id, 'configured owner password');

    expect(outcome).toEqual({ kind: 'configured' });
    await expect(verifyPassword('configured owner password', (await store.getPasswordHash(owner.id))!)).resolves.toBe(true);
  });

  test('second start: unchanged, nothing to print, the first password still works', async () => {
    // Arrange
    const { store, owner } = await storeWithOwner();
    const first = await ensureOwnerPassword(store, owner.id, undefined);
    const hash = await store.getPasswordHash(owner.id);

    // Act
    const second = await ensureOwnerPassword(store, owner.id, 'configured owner password');

    // Assert
    expect(first.kind).toBe('generated');
    expect(second).toEqual({ kind: 'unchanged' });
    await expect(store.getPasswordHash(owner.id)).resolves.toBe(hash);
  });
});
