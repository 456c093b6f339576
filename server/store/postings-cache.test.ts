import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { describe, expect, onTestFinished, test } from 'vitest';
import { PostingsCache } from './postings-cache.ts';
import { openSqliteStore } from './sqlite-store.ts';
import type { DocumentInput, Store } from './store.ts';

/** A store (the writer) and a raw connection on the same file (the cache's), removed after the test. */
async function openFixture(): Promise<{ store: Store; reader: Database }> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-postings-cache-test-'));
  const path = join(folder, 'kb.sqlite');
  const store = openSqliteStore({ path });
  const reader = new BetterSqlite3(path);
  onTestFinished(async () => {
    reader.close();
    await store.close();
    await rm(folder, { recursive: true, force: true });
  });
  return { store, reader };
}

/** A public document of `kbId` with one passage holding `terms` once each. */
function documentOf(kbId: string, docId: string, terms: string[], contentHash = docId): DocumentInput {
  return {
    kbId,
    docId,
    title: docId,
    visibility: 'public',
    readers: [],
    quotable: true,
    contentHash,
    chunks: [
      {
        headingPath: [docId],
        text: terms.join(' '),
        bodyTerms: new Map(terms.map((term) => [term, 1])),
        headingTerms: new Map(),
        bodyLength: terms.length,
        headingLength: 1,
      },
    ],
  };
}

function versionOf(reader: Database, kbId: string): number {
  return reader.prepare<[string], number>('SELECT version FROM index_stats WHERE kb_id = ?').pluck().get(kbId)!;
}

describe('index version (migration 7)', () => {
  test('a knowledge base: its version grows when a document is created, updated or removed, and not when one is put unchanged or its access changes', async () => {
    // Arrange
    const { store, reader } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.createKnowledgeBase({ id: 'other', name: 'other' });
    const versions: number[] = [versionOf(reader, 'kb')];
    const step = async (change: () => Promise<unknown>) => {
      await change();
      versions.push(versionOf(reader, 'kb'));
    };

    // Act
    await step(() => store.putDocument(documentOf('kb', 'a', ['alpha']))); // created
    await step(() => store.putDocument(documentOf('kb', 'a', ['alpha']))); // unchanged
    await step(() => store.putDocument(documentOf('kb', 'a', ['beta'], 'a-2'))); // updated
    await step(() => store.setDocumentAccess('kb', 'a', { visibility: 'workspace', readers: [], quotable: true }));
    await step(() => store.putDocument(documentOf('other', 'a', ['alpha']))); // another knowledge base
    await step(() => store.removeDocument('kb', 'a')); // removed

    // Assert
    const [initial, created, unchanged, updated, access, elsewhere, removed] = versions;
    expect(created).toBeGreaterThan(initial!);
    expect(unchanged).toBe(created);
    expect(updated).toBeGreaterThan(unchanged!);
    expect(access).toBe(updated);
    expect(elsewhere).toBe(access);
    expect(removed).toBeGreaterThan(elsewhere!);
  });
});

describe('PostingsCache', () => {
  test('a knowledge base with more postings than the cap: not cached, and not read again at the same version', async () => {
    // Arrange
    const { store, reader } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(documentOf('kb', 'a', ['alpha', 'beta', 'gamma']));
    const cache = new PostingsCache(reader, { maxPostings: 2, quietMilliseconds: 0 });

    // Act
    const first = cache.postingsAt('kb', versionOf(reader, 'kb'));
    const second = cache.postingsAt('kb', versionOf(reader, 'kb'));

    // Assert
    expect(first).toBeUndefined();
    expect(second).toBeUndefined();
    expect(cache.postingTotal).toBe(0);
  });

  test('two knowledge bases that do not fit together: the idle one is evicted, a recently used one is kept and the other left to SQL', async () => {
    // Arrange: a cap of 4 postings, two knowledge bases of 3
    const { store, reader } = await openFixture();
    for (const kbId of ['one', 'two']) {
      await store.createKnowledgeBase({ id: kbId, name: kbId });
      await store.putDocument(documentOf(kbId, 'a', ['alpha', 'beta', 'gamma']));
    }
    let now = 0;
    const cache = new PostingsCache(reader, { maxPostings: 4, quietMilliseconds: 1_000, now: () => now });
    const one = cache.postingsAt('one', versionOf(reader, 'one'));

    // Act: `two` while `one` was just used, then again once `one` has been idle for the quiet period
    now = 500;
    const twoWhileOneIsBusy = cache.postingsAt('two', versionOf(reader, 'two'));
    now = 1_500;
    const twoOnceOneIsIdle = cache.postingsAt('two', versionOf(reader, 'two'));

    // Assert
    expect(one?.postingCount).toBe(3);
    expect(twoWhileOneIsBusy).toBeUndefined();
    expect(twoOnceOneIsIdle?.postingCount).toBe(3);
    expect(cache.peek('one')).toBeUndefined();
    expect(cache.postingTotal).toBe(3);
  });

  test('a knowledge base read at its first search, then changed twice by another connection: left to SQL until its last version has been seen for the quiet period, then read again', async () => {
    // Arrange: cached at the first version
    const { store, reader } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(documentOf('kb', 'a', ['alpha']));
    let now = 0;
    const cache = new PostingsCache(reader, { quietMilliseconds: 1_000, now: () => now });
    const atFirstSearch = cache.postingsAt('kb', versionOf(reader, 'kb'));

    // Act: two changes in a row, then quiet
    await store.putDocument(documentOf('kb', 'b', ['beta']));
    now = 100;
    const afterFirstChange = cache.postingsAt('kb', versionOf(reader, 'kb'));
    await store.putDocument(documentOf('kb', 'c', ['gamma']));
    now = 1_050;
    const afterSecondChange = cache.postingsAt('kb', versionOf(reader, 'kb'));
    now = 2_100;
    const onceQuiet = cache.postingsAt('kb', versionOf(reader, 'kb'));

    // Assert: read at once at the first search, then only once quiet
    expect(atFirstSearch?.postingCount).toBe(1);
    expect(afterFirstChange).toBeUndefined();
    expect(afterSecondChange).toBeUndefined();
    expect(onceQuiet?.version).toBe(versionOf(reader, 'kb'));
    expect([...onceQuiet!.termIndex.keys()]).toEqual(['alpha', 'beta', 'gamma']);
    expect(onceQuiet?.postingCount).toBe(3);
  });
});
