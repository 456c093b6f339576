import { describe, expect, onTestFinished, test } from 'vitest';
import { openTestStore } from '../../testing/test-store.ts';
import type { ImportSourceRecord, Store } from '../store.ts';

/** Re-synced website imports' storage on the test run's backend. */

const HOUR = 3_600_000;

async function openSourceStore(): Promise<{ store: Store; userId: string; reopen: () => Store }> {
  const { store, close, reopen } = await openTestStore();
  onTestFinished(close);
  const user = await store.createUser({ email: 'ed@example.com', name: 'Ed' });
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  return { store, userId: user.id, reopen };
}

function source(userId: string, overrides: Partial<ImportSourceRecord> = {}): Omit<ImportSourceRecord, 'lastSync'> {
  return {
    id: 'src_1',
    kbId: 'docs',
    kind: 'sitemap',
    urls: ['https://docs.example.com/sitemap.xml'],
    settings: { visibility: 'public', readers: [], quotable: true, maxPages: 500, maxDepth: 3 },
    resyncHours: 24,
    createdBy: userId,
    createdAt: 1000,
    nextSyncAt: 1000 + 24 * HOUR,
    ...overrides,
  };
}

describe('import sources', () => {
  test('saved and listed as given; the same kind and URLs again update the source, keeping its id', async () => {
    const { store, userId } = await openSourceStore();

    const first = await store.saveImportSource(source(userId));
    const again = await store.saveImportSource(source(userId, { id: 'src_2', resyncHours: 168, nextSyncAt: 5000 }));
    const other = await store.saveImportSource(source(userId, { id: 'src_3', kind: 'pages', urls: ['https://docs.example.com/guide/'] }));

    expect(first).toEqual(source(userId));
    expect(again).toEqual(source(userId, { resyncHours: 168, nextSyncAt: 5000 }));
    expect(other.id).toBe('src_3');
    expect((await store.listImportSources('docs')).map((listed) => listed.id)).toEqual(['src_1', 'src_3']);
    await expect(store.listImportSources('other')).resolves.toEqual([]);
  });

  test('a due source is claimed once: its next sync moves by its interval; one not due is not claimed', async () => {
    const { store, userId } = await openSourceStore();
    await store.saveImportSource(source(userId, { nextSyncAt: 10_000 }));
    await store.saveImportSource(source(userId, { id: 'src_later', kind: 'pages', urls: ['https://docs.example.com/a'], nextSyncAt: 50_000 }));

    const claimed = await store.claimDueImportSource(20_000);
    const second = await store.claimDueImportSource(20_000);

    expect(claimed?.id).toBe('src_1');
    expect(second).toBeUndefined();
    await expect(store.getImportSource('docs', 'src_1')).resolves.toMatchObject({ nextSyncAt: 20_000 + 24 * HOUR });
    await expect(store.getImportSource('docs', 'src_later')).resolves.toMatchObject({ nextSyncAt: 50_000 });
  });

  test('two stores on one database claiming at once: each due source is claimed by exactly one', async () => {
    const { store, userId, reopen } = await openSourceStore();
    for (let index = 0; index < 6; index += 1) {
      await store.saveImportSource(source(userId, { id: `src_${index}`, kind: 'pages', urls: [`https://docs.example.com/${index}`], nextSyncAt: 1000 + index }));
    }
    const stores = [store, reopen()];

    const claims = await Promise.all(
      stores.map(async (claimer) => {
        const ids: string[] = [];
        for (let claimed = await claimer.claimDueImportSource(10_000); claimed; claimed = await claimer.claimDueImportSource(10_000)) ids.push(claimed.id);
        return ids;
      }),
    );

    expect(claims.flat().sort()).toEqual(['src_0', 'src_1', 'src_2', 'src_3', 'src_4', 'src_5']);
  });

  test('a finished sync is recorded with the pages it learned, which replace the previous ones; a deleted source records nothing', async () => {
    const { store, userId } = await openSourceStore();
    await store.saveImportSource(source(userId));
    const page = { url: 'https://docs.example.com/a', docId: 'docs.example.com/a.html', etag: '"v1"', lastModified: 'Wed, 21 Oct 2026 07:28:00 GMT', links: ['https://docs.example.com/b'] };

    await store.finishImportSourceSync('src_1', { status: 'succeeded', finishedAt: 2000, created: 2 }, [page, { url: 'https://docs.example.com/b', docId: 'docs.example.com/b.html', links: [] }]);
    await store.finishImportSourceSync('src_1', { status: 'succeeded', finishedAt: 3000, unchanged: 1 }, [page]);
    await store.finishImportSourceSync('src_1', { status: 'failed', finishedAt: 4000, error: 'the site is unreachable' });

    await expect(store.getImportSource('docs', 'src_1')).resolves.toMatchObject({ lastSync: { status: 'failed', finishedAt: 4000, error: 'the site is unreachable' } });
    await expect(store.listImportPages('src_1')).resolves.toEqual([page]);
    await expect(store.deleteImportSource('docs', 'src_1')).resolves.toBe(true);
    await expect(store.deleteImportSource('docs', 'src_1')).resolves.toBe(false);
    await store.finishImportSourceSync('src_1', { status: 'succeeded', finishedAt: 5000 }, [page]);
    await expect(store.listImportPages('src_1')).resolves.toEqual([]);
    await expect(store.getImportSource('docs', 'src_1')).resolves.toBeUndefined();
  });

});
