import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { ImportJobSchema, ImportSourceListSchema, type ImportJob, type ImportJobList, type ImportSourceList } from '../../protocol/console-protocol.ts';
import type { QueryResponse } from '../../protocol/query-protocol.ts';
import { consoleCall } from '../testing/console-call.ts';
import { docsPage, serveTestSite, type TestSite } from '../testing/test-site.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * Website imports from the console API over real HTTP on the test run's
 * backend, against a three-page site and its sitemap served by the test on
 * loopback: the import runs as a job that reports its progress and result
 * (and counts in /metrics), the widget then answers from the pages, and the address rules hold with
 * the setting off.
 */

const PASSWORD = 'correct horse battery staple';
let fixture: WidgetFixture;
let owner: string;
let reader: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ importAllowPrivateAddresses: true, consolePasswords: { owner: PASSWORD, alice: PASSWORD, bob: PASSWORD, reader: PASSWORD } });
  owner = await fixture.signIn('owner@example.com', PASSWORD);
  reader = await fixture.signIn('reader@example.com', PASSWORD);
});
afterAll(async () => {
  await fixture.close();
});

async function openSite(): Promise<TestSite> {
  const navigation = '<a href="/help/">Help</a> <a href="/help/billing">Billing</a> <a href="/help/wombat">Wombat</a>';
  const site = await serveTestSite({
    '/help/': { type: 'text/html', body: docsPage('Help', '<p>Welcome to the help centre of the wombat shop.</p>', navigation) },
    '/help/billing': { type: 'text/html', body: docsPage('Billing', '<p>Invoices are emailed on the first day of each month as PDF files.</p>', navigation) },
    '/help/wombat': { type: 'text/html', body: docsPage('Wombat care', '<p>Feed the wombat fresh grass and roots every evening.</p>', navigation) },
  });
  site.resources.set('/sitemap.xml', {
    type: 'application/xml',
    body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/help/', '/help/billing', '/help/wombat'].map((path) => `<url><loc>${site.origin}${path}</loc></url>`).join('')}</urlset>`,
  });
  onTestFinished(() => site.close());
  return site;
}

function call(method: string, path: string, cookie: string, body?: unknown) {
  return consoleCall(fixture, method, path, cookie, body);
}

/** Polls the job, as the console does, until it ends (as a reader unless `viewer` is given). */
async function finished(id: string, viewer = reader): Promise<ImportJob> {
  for (;;) {
    const job = (await (await call('GET', `imports/${id}`, viewer)).json()) as ImportJob;
    if (job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('website imports', () => {
  test('a sitemap: 202 with a running job; it ends with the three pages created, listed newest first, and the widget answers from them', async () => {
    const site = await openSite();
    const succeededImports = async () => Number(/^kb_ingest_jobs_total\{kind="import",outcome="succeeded"\} (\d+)$/m.exec(await (await fetch(`${fixture.baseUrl}/metrics`)).text())?.[1] ?? 0);
    const succeededBefore = await succeededImports();

    const started = await call('POST', 'imports', owner, { kind: 'sitemap', urls: [`${site.origin}/sitemap.xml`], visibility: 'public' });
    const job = (await started.json()) as ImportJob;
    const done = await finished(job.id);

    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`/console/api/knowledge-bases/docs/imports/${job.id}`);
    expect([job.status, job.started_by, job.kind]).toEqual(['running', 'owner@example.com', 'sitemap']);
    expect(ImportJobSchema.parse(done)).toEqual(done);
    expect(done).toMatchObject({ status: 'succeeded', progress: { phase: 'indexing', done: 3, total: 3 } });
    const host = new URL(site.origin).host;
    expect(done.result!.created.sort()).toEqual([`${host}/help/billing.html`, `${host}/help/index.html`, `${host}/help/wombat.html`]);
    const list = (await (await call('GET', 'imports', reader)).json()) as ImportJobList;
    expect(list.imports[0]!.id).toBe(job.id);
    const { token } = await fixture.issue();
    const answer = (await (await fixture.post('query', { question: 'When are invoices emailed?' }, { token })).json()) as QueryResponse;
    expect([answer.abstained, answer.citations[0]?.url]).toEqual([false, `${site.origin}/help/billing`]);
    expect(await succeededImports()).toBe(succeededBefore + 1);
  });

  test('pages: the links below the first page are followed; imported again, nothing changes', async () => {
    const site = await openSite();
    const request = { kind: 'pages', urls: [`${site.origin}/help/`], visibility: 'public', max_depth: 1 };

    await finished(((await (await call('POST', 'imports', owner, request)).json()) as ImportJob).id);
    const again = await finished(((await (await call('POST', 'imports', owner, request)).json()) as ImportJob).id);

    expect(again.result).toMatchObject({ created: [], updated: [], removed: [], failed: [] });
    expect(again.result!.unchanged).toHaveLength(3);
  });

  test('the same import twice at once: the second is refused with 409, the first runs to its end', async () => {
    const site = await openSite();
    const request = { kind: 'sitemap', urls: [`${site.origin}/sitemap.xml`], visibility: 'public' };

    const [first, second] = await Promise.all([call('POST', 'imports', owner, request), call('POST', 'imports', owner, request)]);
    const statuses = [first.status, second.status].sort();
    const refused = first.status === 409 ? first : second;
    const accepted = first.status === 409 ? second : first;

    expect(statuses).toEqual([202, 409]);
    expect(((await refused.json()) as { detail: string }).detail).toBe(`An import of ${site.origin}/sitemap.xml is already running in this knowledge base`);
    expect((await finished(((await accepted.json()) as ImportJob).id)).status).toBe('succeeded');
  });

  test("an editor's import leaves a page whose document they cannot read as it is, reported failed", async () => {
    const site = await openSite();
    const alice = await fixture.signIn('alice@example.com', PASSWORD);
    const bob = await fixture.signIn('bob@example.com', PASSWORD);
    const request = { kind: 'sitemap', urls: [`${site.origin}/sitemap.xml`] };
    const restrictedId = ((await (await call('POST', 'imports', alice, { ...request, visibility: 'restricted', readers: [fixture.users.alice.id] })).json()) as ImportJob).id;
    const restricted = await finished(restrictedId, alice);
    const seenByReader = await finished(restrictedId);
    site.resources.set('/help/wombat', { type: 'text/html', body: docsPage('Wombat care', '<p>Feed the wombat carrots on Sundays.</p>') });

    const byBob = await finished(((await (await call('POST', 'imports', bob, { ...request, visibility: 'public' })).json()) as ImportJob).id, bob);

    const wombat = `${new URL(site.origin).host}/help/wombat.html`;
    expect(restricted.result!.created).toContain(wombat);
    // Someone else's import shows only the documents one can read: none of these three is the reader's.
    expect([seenByReader.result!.created, seenByReader.result!.hidden]).toEqual([[], 3]);
    expect(byBob.result!.failed.map((failure) => [failure.doc_id, failure.reason])).toContainEqual([wombat, 'a document of this id exists that you cannot read; it is left as it is']);
    expect(byBob.result!.updated).toEqual([]);
    const stored = await fixture.store.getDocument('docs', wombat);
    expect([stored?.visibility, stored?.readers]).toEqual(['restricted', [fixture.users.alice.id]]);
  });

  test('refused with the field named, no job started: a non-http URL, two sites, a sitemap with two URLs; a reader may not import', async () => {
    const detail = async (response: Response) => [response.status, ((await response.json()) as { detail: string }).detail];
    const before = ((await (await call('GET', 'imports', owner)).json()) as ImportJobList).imports.length;

    expect(await detail(await call('POST', 'imports', owner, { kind: 'pages', urls: ['ftp://example.com/'], visibility: 'public' }))).toEqual([400, 'urls.0: must be an http or https URL']);
    expect(await detail(await call('POST', 'imports', owner, { kind: 'pages', urls: ['https://a.example/', 'https://b.example/'], visibility: 'public' }))).toEqual([
      400,
      'urls: one import reads one site; these are on https://a.example, https://b.example',
    ]);
    expect(await detail(await call('POST', 'imports', owner, { kind: 'sitemap', urls: ['https://a.example/1.xml', 'https://a.example/2.xml'], visibility: 'public' }))).toEqual([
      400,
      'urls: a sitemap import takes exactly one URL, the sitemap',
    ]);
    expect((await call('POST', 'imports', reader, { kind: 'pages', urls: ['https://a.example/'], visibility: 'public' })).status).toBe(403);
    expect(((await (await call('GET', 'imports', owner)).json()) as ImportJobList).imports).toHaveLength(before);
  });
});

describe('re-synced websites', () => {
  test('an import with resync_hours becomes a source: listed with its next sync and how its last sync went; synced now, unchanged pages answer 304; stopped, it is gone and its documents stay', async () => {
    const site = await openSite();
    const billing = site.resources.get('/help/billing') as { type: string; body: string };
    site.resources.set('/help/billing', { ...billing, etag: '"billing-1"' });
    const host = new URL(site.origin).host;

    const started = (await (await call('POST', 'imports', owner, { kind: 'sitemap', urls: [`${site.origin}/sitemap.xml`], visibility: 'public', resync_hours: 24 })).json()) as ImportJob;
    await finished(started.id);
    const listed = (await (await call('GET', 'import-sources', reader)).json()) as ImportSourceList;
    const source = listed.sources.find((candidate) => candidate.urls[0] === `${site.origin}/sitemap.xml`)!;
    site.resources.set('/help/wombat', { type: 'text/html', body: docsPage('Wombat care', '<p>Feed the wombat fresh grass, roots and bark every evening.</p>') });
    const synced = await call('POST', `import-sources/${source.id}/sync`, owner, {});
    const resync = await finished(((await synced.json()) as ImportJob).id);
    const afterSync = ((await (await call('GET', 'import-sources', reader)).json()) as ImportSourceList).sources.find((candidate) => candidate.id === source.id)!;

    expect(ImportSourceListSchema.parse(listed)).toEqual(listed);
    expect(started.source_id).toBe(source.id);
    expect(source).toMatchObject({
      kind: 'sitemap',
      resync_hours: 24,
      created_by: 'owner@example.com',
      next_sync_at: new Date(fixture.now() + 24 * 3_600_000).toISOString(),
      last_sync: { status: 'succeeded', created: 3 },
    });
    expect(synced.status).toBe(202);
    expect(site.notModified).toEqual(['/help/billing']);
    expect(resync.result).toMatchObject({ created: [], updated: [`${host}/help/wombat.html`], removed: [] });
    expect(resync.result!.unchanged.sort()).toEqual([`${host}/help/billing.html`, `${host}/help/index.html`]);
    expect(afterSync).toMatchObject({ next_sync_at: source.next_sync_at, last_sync: { status: 'succeeded', updated: 1, unchanged: 2 } });

    expect((await call('DELETE', `import-sources/${source.id}`, reader)).status).toBe(403);
    expect((await call('POST', `import-sources/${source.id}/sync`, reader, {})).status).toBe(403);
    expect((await call('DELETE', `import-sources/${source.id}`, owner)).status).toBe(204);
    expect((await call('DELETE', `import-sources/${source.id}`, owner)).status).toBe(404);
    expect(((await (await call('GET', 'import-sources', reader)).json()) as ImportSourceList).sources.map((candidate) => candidate.id)).not.toContain(source.id);
    expect((await fixture.store.listDocuments('docs')).map((document) => document.docId)).toEqual(expect.arrayContaining([`${host}/help/wombat.html`, `${host}/help/billing.html`]));
  });

  test('set up to re-sync while the same pages are importing: 409, and no source is saved', async () => {
    const site = await openSite();
    const body = { kind: 'pages', urls: [`${site.origin}/help/billing`], visibility: 'public', max_depth: 0 };
    const release = site.hold();

    const running = await call('POST', 'imports', owner, body);
    const refused = await call('POST', 'imports', owner, { ...body, resync_hours: 24 });
    release();
    await finished(((await running.json()) as ImportJob).id);

    expect([running.status, refused.status]).toEqual([202, 409]);
    const sources = ((await (await call('GET', 'import-sources', owner)).json()) as ImportSourceList).sources;
    expect(sources.map((source) => source.urls[0])).not.toContain(`${site.origin}/help/billing`);
  });

  test('resync_hours out of range is refused naming it; the same import set up again is one source with the new interval', async () => {
    const site = await openSite();
    const body = { kind: 'pages', urls: [`${site.origin}/help/`], visibility: 'public', max_depth: 0 };

    const refused = await call('POST', 'imports', owner, { ...body, resync_hours: 24 * 365 });
    await finished(((await (await call('POST', 'imports', owner, { ...body, resync_hours: 24 })).json()) as ImportJob).id);
    await finished(((await (await call('POST', 'imports', owner, { ...body, resync_hours: 168 })).json()) as ImportJob).id);
    const sources = ((await (await call('GET', 'import-sources', owner)).json()) as ImportSourceList).sources.filter((source) => source.urls[0] === `${site.origin}/help/`);

    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('resync_hours');
    expect(sources.map((source) => source.resync_hours)).toEqual([168]);
  });
});

describe('with private addresses refused (the default)', () => {
  test('a site on loopback: the job fails saying why, and nothing is stored', async () => {
    const strict = await createWidgetFixture({ consolePasswords: { owner: PASSWORD } });
    onTestFinished(() => strict.close());
    const site = await openSite();
    const cookie = await strict.signIn('owner@example.com', PASSWORD);
    const headers = { Cookie: cookie, Origin: strict.baseUrl, 'Content-Type': 'application/json' };
    const documentsBefore = await strict.store.listDocuments('docs');

    const started = (await (
      await fetch(`${strict.baseUrl}/console/api/knowledge-bases/docs/imports`, { method: 'POST', headers, body: JSON.stringify({ kind: 'pages', urls: [`${site.origin}/help/`], visibility: 'public' }) })
    ).json()) as ImportJob;
    let job = started;
    while (job.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 20));
      job = (await (await fetch(`${strict.baseUrl}/console/api/knowledge-bases/docs/imports/${started.id}`, { headers })).json()) as ImportJob;
    }

    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/127\.0\.0\.1.*refused/);
    expect(site.requested).toEqual([]);
    expect(await strict.store.listDocuments('docs')).toEqual(documentsBefore);
  });
});
