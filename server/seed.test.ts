import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { verifyPassword } from './auth/password-hash.ts';
import { updateSiteSettings } from './ingest/site-settings.ts';
import { DEMO_KB_ID, DEMO_SITE, ensureOwnerPassword, seedDemo } from './seed.ts';
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

/** A folder with one page of the Node.js docs' shape, removed after the test. */
async function nodeDocsFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-seed-corpus-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  await mkdir(join(folder, 'api'));
  await writeFile(
    join(folder, 'api', 'fs.md'),
    "# File system\n\n## `fs.stat(path[, options], callback)`\n\nAsynchronous stat.\n\n## Event: `'close'`\n\nA.\n\n## Event: `'close'`\n\nB.\n",
  );
  return join(folder, 'api');
}

describe('seedDemo', () => {
  test('first run: the demo knowledge base links to nodejs.org, .html pages with the Node.js heading ids', async () => {
    // Arrange
    const { store } = await storeWithOwner();
    const corpusPath = await nodeDocsFolder();

    // Act
    await seedDemo(store, { ownerEmail: 'owner@example.com', corpusPath });

    // Assert
    await expect(store.getKnowledgeBase(DEMO_KB_ID)).resolves.toMatchObject(DEMO_SITE);
    const passages = await store.passagesOf({ kbId: DEMO_KB_ID, userId: '', visibilities: ['public'] }, 'fs.md');
    expect(passages.map((passage) => `${passage.url}#${passage.anchor}`)).toEqual([
      'https://nodejs.org/docs/latest-v18.x/api/fs.html#fsstatpath-options-callback',
      'https://nodejs.org/docs/latest-v18.x/api/fs.html#event-close',
      'https://nodejs.org/docs/latest-v18.x/api/fs.html#event-close_1',
    ]);
  });

  test('a demo knowledge base created before sites existed: given nodejs.org; one whose site was set: kept', async () => {
    // Arrange
    const { store } = await storeWithOwner();
    const corpusPath = await nodeDocsFolder();
    await store.createKnowledgeBase({ id: DEMO_KB_ID, name: 'Node.js API documentation' });

    // Act
    await seedDemo(store, { ownerEmail: 'owner@example.com', corpusPath });
    const upgradedUrl = (await store.getDocument(DEMO_KB_ID, 'fs.md'))?.url;
    await updateSiteSettings(store, DEMO_KB_ID, { baseUrl: 'https://mirror.example.com/node/' });
    await seedDemo(store, { ownerEmail: 'owner@example.com', corpusPath });

    // Assert
    expect(upgradedUrl).toBe('https://nodejs.org/docs/latest-v18.x/api/fs.html');
    await expect(store.getKnowledgeBase(DEMO_KB_ID)).resolves.toMatchObject({ baseUrl: 'https://mirror.example.com/node/', urlStyle: 'html' });
    await expect(store.getDocument(DEMO_KB_ID, 'fs.md')).resolves.toMatchObject({ url: 'https://mirror.example.com/node/fs.html' });
  });
});
