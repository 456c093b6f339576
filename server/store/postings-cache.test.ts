import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { describe, expect, onTestFinished, test } from 'vitest';
import { PostingsCache, type AsyncPostingsReader, type PostingRow, type TermCount } from './postings-cache.ts';
import { indexVersionMoves } from '../testing/search-test-fixtures.ts';
import { sqlitePostingsReader } from './sqlite-search.ts';
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

    // Act
    const moves = await indexVersionMoves(store, () => versionOf(reader, 'kb'));

    // Assert
    expect(moves).toEqual({ created: 'grew', putUnchanged: 'same', updated: 'grew', accessChanged: 'same', otherKnowledgeBaseChanged: 'same', removed: 'grew' });
  });
});

describe('PostingsCache', () => {
  test('a knowledge base with more postings than the cap: not cached, and not read again at the same version', async () => {
    // Arrange
    const { store, reader } = await openFixture();
    await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
    await store.putDocument(documentOf('kb', 'a', ['alpha', 'beta', 'gamma']));
    const postings = sqlitePostingsReader(reader);
    const cache = new PostingsCache({ maxPostings: 2, quietMilliseconds: 0 });

    // Act
    const first = cache.postingsAt('kb', versionOf(reader, 'kb'), postings);
    const second = cache.postingsAt('kb', versionOf(reader, 'kb'), postings);

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
    const postings = sqlitePostingsReader(reader);
    const cache = new PostingsCache({ maxPostings: 4, quietMilliseconds: 1_000, now: () => now });
    const one = cache.postingsAt('one', versionOf(reader, 'one'), postings);

    // Act: `two` while `one` was just used, then again once `one` has been idle for the quiet period
    now = 500;
    const twoWhileOneIsBusy = cache.postingsAt('two', versionOf(reader, 'two'), postings);
    now = 1_500;
    const twoOnceOneIsIdle = cache.postingsAt('two', versionOf(reader, 'two'), postings);

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
    const postings = sqlitePostingsReader(reader);
    const cache = new PostingsCache({ quietMilliseconds: 1_000, now: () => now });
    const atFirstSearch = cache.postingsAt('kb', versionOf(reader, 'kb'), postings);

    // Act: two changes in a row, then quiet
    await store.putDocument(documentOf('kb', 'b', ['beta']));
    now = 100;
    const afterFirstChange = cache.postingsAt('kb', versionOf(reader, 'kb'), postings);
    await store.putDocument(documentOf('kb', 'c', ['gamma']));
    now = 1_050;
    const afterSecondChange = cache.postingsAt('kb', versionOf(reader, 'kb'), postings);
    now = 2_100;
    const onceQuiet = cache.postingsAt('kb', versionOf(reader, 'kb'), postings);

    // Assert: read at once at the first search, then only once quiet
    expect(atFirstSearch?.postingCount).toBe(1);
    expect(afterFirstChange).toBeUndefined();
    expect(afterSecondChange).toBeUndefined();
    expect(onceQuiet?.version).toBe(versionOf(reader, 'kb'));
    expect([...onceQuiet!.termIndex.keys()]).toEqual(['alpha', 'beta', 'gamma']);
    expect(onceQuiet?.postingCount).toBe(3);
  });
});

describe('PostingsCache read asynchronously', () => {
  /** A reader of two postings of `alpha` whose term counts resolve when `open` is called; `reads` counts its reads. */
  function gatedReader(): { reader: AsyncPostingsReader; open(): void; reads: { count: number } } {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const reads = { count: 0 };
    const reader: AsyncPostingsReader = {
      async termCounts(): Promise<TermCount[]> {
        reads.count++;
        await gate;
        return [{ term: 'alpha', count: 2 }];
      },
      async postings(): Promise<PostingRow[]> {
        return [
          [11, 1, 1, 4],
          [12, 2, 3, 6],
        ];
      },
    };
    return { reader, open, reads };
  }

  test('a second search while the first is still reading the knowledge base: declined (left to SQL) without reading again; the read postings are cached for the next', async () => {
    // Arrange
    const { reader, open, reads } = gatedReader();
    const cache = new PostingsCache({ quietMilliseconds: 0 });

    // Act
    const first = cache.postingsAtAsync('kb', 1, reader);
    const whileReading = await cache.postingsAtAsync('kb', 1, reader);
    open();
    const read = await first;
    const next = await cache.postingsAtAsync('kb', 1, reader);

    // Assert
    expect(whileReading).toBeUndefined();
    expect(read?.postingCount).toBe(2);
    expect(Array.from(read!.chunkIds)).toEqual([11, 12]);
    expect(next).toBe(read);
    expect(reads.count).toBe(1);
    expect(cache.postingTotal).toBe(2);
  });

  test('a read whose postings disagree with its term counts (not one snapshot), then a failing read: both reject, nothing is cached, and the next search reads again', async () => {
    // Arrange
    const cache = new PostingsCache({ quietMilliseconds: 0 });
    const counts = async (): Promise<TermCount[]> => [{ term: 'alpha', count: 2 }];
    const disagreeing: AsyncPostingsReader = { termCounts: counts, postings: async () => [[11, 1, 1, 4]] };
    const failing: AsyncPostingsReader = {
      termCounts: async () => {
        throw new Error('Connection terminated unexpectedly');
      },
      postings: async () => [],
    };
    const { reader, open } = gatedReader();
    open();

    // Act
    const disagreement = cache.postingsAtAsync('kb', 1, disagreeing);
    await expect(disagreement).rejects.toThrow(/changed while being read/);
    await expect(cache.postingsAtAsync('kb', 1, failing)).rejects.toThrow(/terminated/);
    const afterwards = await cache.postingsAtAsync('kb', 1, reader);

    // Assert
    expect(afterwards?.postingCount).toBe(2);
    expect(cache.postingTotal).toBe(2);
  });
});
