import { describe, expect, test } from 'vitest';
import { IndexCache, type IndexLoader } from './index-cache.ts';
import { FIELD_COUNT, PAGE_FIELD_COUNT, type IndexColumns, type KnowledgeBaseIndex } from '../store/index/index-data.ts';

/** Columns of `postings` passages of document 1, each with one posting of "alpha" in its text (length 1). */
function oneTermColumns(version: number, fieldCount: number, postings: number): IndexColumns {
  return {
    version,
    fieldCount,
    terms: postings === 0 ? [] : ['alpha'],
    termStarts: Uint32Array.from(postings === 0 ? [0] : [0, postings]),
    postingChunks: Uint32Array.from({ length: postings }, (_, slot) => slot),
    postingFrequencies: Uint16Array.from({ length: postings * fieldCount }, (_, index) => (index % fieldCount === fieldCount - 1 ? 1 : 0)),
    chunkIds: Float64Array.from({ length: postings }, (_, slot) => slot + 1),
    chunkDocuments: new Float64Array(postings).fill(1),
    chunkLengths: Uint32Array.from({ length: postings * fieldCount }, (_, index) => (index % fieldCount === fieldCount - 1 ? 1 : 0)),
  };
}

/** An index of `postings` one-term passage postings (and no pages) at `version`. */
function columnsOf(version: number, postings: number): KnowledgeBaseIndex {
  return { passages: oneTermColumns(version, FIELD_COUNT, postings), pages: oneTermColumns(version, PAGE_FIELD_COUNT, 0) };
}

/** A loader serving the given knowledge bases at their current versions, counting its reads. */
function loaderOf(knowledgeBases: Map<string, { version: number; postings: number }>): IndexLoader & { reads: string[] } {
  const reads: string[] = [];
  const loader = async (kbId: string, maxPostings: number) => {
    reads.push(kbId);
    const current = knowledgeBases.get(kbId)!;
    return current.postings > maxPostings ? undefined : columnsOf(current.version, current.postings);
  };
  return Object.assign(loader, { reads });
}

describe('IndexCache', () => {
  test('first search of a knowledge base: read and held; same version again: served without reading', async () => {
    const cache = new IndexCache({ quietMilliseconds: 1_000, now: () => 0 });
    const loader = loaderOf(new Map([['kb', { version: 1, postings: 3 }]]));

    const first = await cache.indexAt('kb', 1, loader);
    const second = await cache.indexAt('kb', 1, loader);

    expect(first?.passages.version).toBe(1);
    expect(second).toBe(first);
    expect(loader.reads).toEqual(['kb']);
    expect(cache.postingTotal).toBe(3);
  });

  test('a knowledge base changed after it was held: not held (terms read instead) until its new version stayed unchanged for the quiet period', async () => {
    let now = 0;
    const knowledgeBases = new Map([['kb', { version: 1, postings: 3 }]]);
    const cache = new IndexCache({ quietMilliseconds: 1_000, now: () => now });
    const loader = loaderOf(knowledgeBases);
    await cache.indexAt('kb', 1, loader);

    knowledgeBases.set('kb', { version: 2, postings: 4 });
    now = 10;
    const justChanged = await cache.indexAt('kb', 2, loader);
    now = 500;
    const stillQuiet = await cache.indexAt('kb', 2, loader);
    now = 1_100;
    const settled = await cache.indexAt('kb', 2, loader);

    expect(justChanged).toBeUndefined();
    expect(stillQuiet).toBeUndefined();
    expect(settled?.passages.version).toBe(2);
    expect(loader.reads).toEqual(['kb', 'kb']);
  });

  test('a knowledge base over the cap: not held, and not read again at the same version', async () => {
    const cache = new IndexCache({ maxPostings: 2, quietMilliseconds: 0, now: () => 0 });
    const loader = loaderOf(new Map([['big', { version: 1, postings: 5 }]]));

    const first = await cache.indexAt('big', 1, loader);
    const second = await cache.indexAt('big', 1, loader);

    expect([first, second]).toEqual([undefined, undefined]);
    expect(loader.reads).toEqual(['big']);
    expect(cache.postingTotal).toBe(0);
  });

  test('two knowledge bases that do not fit together: the idle one is evicted for the other, which is then kept while in use', async () => {
    let now = 0;
    const cache = new IndexCache({ maxPostings: 5, quietMilliseconds: 100, now: () => now });
    const loader = loaderOf(new Map([['a', { version: 1, postings: 3 }], ['b', { version: 1, postings: 3 }]]));
    await cache.indexAt('a', 1, loader);

    now = 1_000;
    const b = await cache.indexAt('b', 1, loader);
    const aOnce = await cache.indexAt('a', 1, loader);
    const aAgain = await cache.indexAt('a', 1, loader);

    expect(b?.passages.version).toBe(1);
    // No room while b is in use: a is read for that search, not held, and not read again within the quiet period.
    expect(aOnce?.passages.version).toBe(1);
    expect(aAgain).toBeUndefined();
    expect(loader.reads).toEqual(['a', 'b', 'a']);
    expect(cache.postingTotal).toBe(3);
  });

  test('a slow read: the search that starts it and those meanwhile read their terms, the store is read once; then the index is served', async () => {
    const cache = new IndexCache({ quietMilliseconds: 0, now: () => 0 });
    let release: (() => void) | undefined;
    const reads: string[] = [];
    const slow: IndexLoader = async (kbId) => {
      reads.push(kbId);
      await new Promise<void>((resolve) => (release = resolve));
      return columnsOf(1, 2);
    };

    const first = await cache.indexAt('kb', 1, slow);
    const second = await cache.indexAt('kb', 1, slow);
    release!();
    await cache.settled();
    const third = await cache.indexAt('kb', 1, slow);

    expect([first, second]).toEqual([undefined, undefined]);
    expect(third?.passages.version).toBe(1);
    expect(reads).toEqual(['kb']);
  });

  test('a read that fails (a statement timeout): no search sees the error; read again only after the quiet period, then held', async () => {
    let now = 0;
    const cache = new IndexCache({ quietMilliseconds: 1_000, now: () => now });
    let fail = true;
    const reads: number[] = [];
    const flaky: IndexLoader = async () => {
      reads.push(now);
      if (fail) throw new Error('canceling statement due to statement timeout');
      return columnsOf(1, 2);
    };

    const failed = await cache.indexAt('kb', 1, flaky);
    now = 500;
    const backingOff = await cache.indexAt('kb', 1, flaky);
    fail = false;
    now = 1_100;
    const retried = await cache.indexAt('kb', 1, flaky);

    expect([failed, backingOff]).toEqual([undefined, undefined]);
    expect(retried?.passages.version).toBe(1);
    expect(reads).toEqual([0, 1_100]);
    expect(cache.postingTotal).toBe(2);
  });
});
