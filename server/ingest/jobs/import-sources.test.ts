import { describe, expect, onTestFinished, test } from 'vitest';
import type { ImportSourceSettings, Store } from '../../store/store.ts';
import { docsPage, serveTestSite, type TestSite } from '../../testing/test-site.ts';
import { openTestStore } from '../../testing/test-store.ts';
import { ImportJobs } from './import-jobs.ts';
import { saveImportSource, syncDueImportSources, type SiteImportDeps } from './import-sources.ts';

/**
 * Scheduled re-syncs on the test run's backend against a site served by the
 * test on loopback: a due source is claimed and imported once, with the
 * access of who set it up, asking conditionally for what the last sync
 * stored; replicas sharing the database run it once.
 */

const HOUR = 3_600_000;
const SETTINGS: ImportSourceSettings = { visibility: 'public', readers: [], quotable: true, maxPages: 50, maxDepth: 2 };

interface Scheduled {
  store: Store;
  deps: SiteImportDeps;
  site: TestSite;
  editorId: string;
  clock: { now: number };
  reopen: () => Store;
}

async function openScheduled(): Promise<Scheduled> {
  const clock = { now: Date.parse('2026-11-27T08:00:00Z') };
  const { store, close, reopen } = await openTestStore();
  onTestFinished(close);
  await store.createKnowledgeBase({ id: 'kb', name: 'Wombat help' });
  const editor = await store.createUser({ email: 'ed@example.com', name: 'Ed' });
  await store.setRole('kb', editor.id, 'editor');
  const site = await serveTestSite({
    '/help/': { type: 'text/html', body: docsPage('Help', '<p>The wombat shop help centre.</p>', '<a href="/help/billing">Billing</a>'), etag: '"help-1"' },
    '/help/billing': { type: 'text/html', body: docsPage('Billing', '<p>Invoices are emailed monthly.</p>'), lastModified: 'Mon, 02 Nov 2026 10:00:00 GMT' },
  });
  onTestFinished(() => site.close());
  const deps: SiteImportDeps = { store, imports: new ImportJobs({ now: () => clock.now }), allowPrivateAddresses: true, now: () => clock.now };
  return { store, deps, site, editorId: editor.id, clock, reopen };
}

function setUp(scheduled: Scheduled) {
  return saveImportSource(scheduled.store, {
    kbId: 'kb',
    kind: 'pages',
    urls: [`${scheduled.site.origin}/help/`],
    settings: SETTINGS,
    createdBy: scheduled.editorId,
    resyncHours: 24,
    now: scheduled.clock.now,
  });
}

describe('syncDueImportSources', () => {
  test('nothing before the source is due; once due, one sync imports the site and records it; the next, a day later, asks conditionally and finds it unchanged', async () => {
    const scheduled = await openScheduled();
    const { deps, store, site, clock } = scheduled;
    const source = await setUp(scheduled);

    clock.now += 23 * HOUR;
    const early = await syncDueImportSources(deps);
    clock.now += HOUR;
    const first = await syncDueImportSources(deps);
    await deps.imports.idle();
    const afterFirst = await store.getImportSource('kb', source.id);
    const again = await syncDueImportSources(deps);
    clock.now += 24 * HOUR;
    const second = await syncDueImportSources(deps);
    await deps.imports.idle();

    expect(early).toEqual([]);
    expect(first.map((job) => [job.sourceId, job.status, job.report?.created.length])).toEqual([[source.id, 'succeeded', 2]]);
    expect(afterFirst).toMatchObject({ nextSyncAt: clock.now, lastSync: { status: 'succeeded', created: 2, finishedAt: clock.now - 24 * HOUR } });
    expect(again).toEqual([]);
    expect(second[0]!.report).toMatchObject({ created: [], updated: [], removed: [] });
    expect(second[0]!.report!.unchanged).toHaveLength(2);
    expect(site.notModified).toEqual(['/help/', '/help/billing']);
    await expect(store.getImportSource('kb', source.id)).resolves.toMatchObject({ lastSync: { status: 'succeeded', unchanged: 2 } });
  });

  test('who set it up is no longer an editor: the sync fails saying so, nothing is fetched, and the source stays listed', async () => {
    const scheduled = await openScheduled();
    const source = await setUp(scheduled);
    await scheduled.store.setRole('kb', scheduled.editorId, 'reader');
    scheduled.clock.now += 25 * HOUR;

    const started = await syncDueImportSources(scheduled.deps);

    expect(started).toEqual([]);
    expect(scheduled.site.requested).toEqual([]);
    const after = await scheduled.store.getImportSource('kb', source.id);
    expect(after?.lastSync).toMatchObject({ status: 'failed', error: expect.stringContaining('may no longer import into this knowledge base') });
  });

  test('the site refused or unreachable: the sync fails with the reason and runs again at its next time', async () => {
    const scheduled = await openScheduled();
    const source = await setUp(scheduled);
    scheduled.clock.now += 25 * HOUR;

    const [job] = await syncDueImportSources({ ...scheduled.deps, allowPrivateAddresses: false });
    await scheduled.deps.imports.idle();

    expect(job!.status).toBe('failed');
    await expect(scheduled.store.getImportSource('kb', source.id)).resolves.toMatchObject({
      nextSyncAt: scheduled.clock.now + 24 * HOUR,
      lastSync: { status: 'failed', error: expect.stringMatching(/127\.0\.0\.1.*refused/) },
    });
  });

  test('two processes sharing the database check at once: the due source is synced once', async () => {
    const scheduled = await openScheduled();
    await setUp(scheduled);
    scheduled.clock.now += 25 * HOUR;
    const replica: SiteImportDeps = { ...scheduled.deps, store: scheduled.reopen(), imports: new ImportJobs({ now: () => scheduled.clock.now }) };

    const started = await Promise.all([syncDueImportSources(scheduled.deps), syncDueImportSources(replica)]);
    await Promise.all([scheduled.deps.imports.idle(), replica.imports.idle()]);

    expect(started.flat()).toHaveLength(1);
    expect(scheduled.site.requested.filter((path) => path === '/help/')).toHaveLength(1);
  });
});
