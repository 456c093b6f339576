import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { verifyPassword } from './auth/password-hash.ts';
import { updateSiteSettings } from './ingest/site-settings.ts';
import { DEMO_KB_ID, DEMO_SITE, ensureOwner, ensureOwnerPassword, seedDemo } from './seed.ts';
import { openStore } from './store/open-store.ts';
import { consoleCall, signIn, startServerProcess, stopServerProcess, storeEnvironment, type ServerProcess } from './testing/server-process.ts';
import { createTestStoreLocation } from './testing/test-store.ts';
import type { Store, User } from './store/store.ts';

/** A fresh, empty store, removed after the test. */
async function emptyStore(): Promise<Store> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-seed-test-'));
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location);
  onTestFinished(async () => {
    await store.close();
    await dispose();
    await rm(folder, { recursive: true, force: true });
  });
  return store;
}

/** A fresh store with an owner who has no password, as a first run (or an older release) leaves it. */
async function storeWithOwner(): Promise<{ store: Store; owner: User }> {
  const store = await emptyStore();
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

describe('ensureOwner', () => {
  test('empty store: the owner is created; a second call finds them', async () => {
    const store = await emptyStore();

    const first = await ensureOwner(store, 'owner@example.com');
    const second = await ensureOwner(store, 'owner@example.com');

    expect(first).toMatchObject({ owner: { email: 'owner@example.com' }, ownerCreated: true });
    expect(second).toEqual({ owner: first.owner, ownerCreated: false });
    await expect(store.listKnowledgeBases()).resolves.toEqual([]);
  });
});

describe('npm start with KB_DEMO_SEED=off', () => {
  test('an empty store: the owner is seeded and signs in, no demo knowledge base is created and no demo page served; the banner says so', async () => {
    // Arrange
    const folder = await mkdtemp(join(tmpdir(), 'kb-seed-off-'));
    const { location, dispose } = await createTestStoreLocation(folder);
    const store = openStore(location);
    const demoPort = await freePort();
    let server: ServerProcess | undefined;
    onTestFinished(async () => {
      await stopServerProcess(server);
      await store.close();
      await dispose();
      await rm(folder, { recursive: true, force: true });
    });

    // Act
    server = await startServerProcess({
      ...storeEnvironment(location),
      KB_DEMO_SEED: 'off',
      KB_DEMO_PORT: String(demoPort),
      KB_OWNER_PASSWORD: 'seed-off owner password',
    });
    const cookie = await signIn(server, 'owner@example.com', 'seed-off owner password');
    const listed = await consoleCall(server, cookie, 'GET', '/knowledge-bases');
    const demoPage = await fetch(`http://localhost:${demoPort}/`).then(
      (response) => response.status,
      () => 'refused',
    );

    // Assert
    expect(server.output).toContain('demo: off (KB_DEMO_SEED=off)');
    expect(server.output).not.toContain(DEMO_KB_ID);
    expect(await listed.json()).toEqual({ knowledge_bases: [] });
    expect(demoPage).toBe('refused');
    await expect(store.getKnowledgeBase(DEMO_KB_ID)).resolves.toBeUndefined();
  }, 60_000);
});

/** A port free right now on the loopback (for a demo page that must not be served). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
