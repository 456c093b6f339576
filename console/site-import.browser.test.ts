import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ImportJob, ImportRequest, ImportSource } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import type { KbSiteImport } from './site-import.ts';

/**
 * "Import from a website" in Chromium against a scripted console API whose
 * import runs through its phases as the server's does: the request sent,
 * fetching, the progress bar while pages are indexed, then what the import
 * did with the pages it skipped, and the document list told to reload; a
 * refusal shown in the server's words; axe finds no violation.
 */
defineConsoleElements();

const RUNNING: ImportJob = {
  id: 'imp_1',
  kind: 'sitemap',
  urls: ['https://help.example.com/sitemap.xml'],
  status: 'running',
  started_by: 'owner@example.com',
  started_at: '2026-11-27T10:00:00.000Z',
  progress: { phase: 'crawling', done: 0 },
};

/** A console API whose one import moves a phase each time it is asked about. */
class ScriptedApi {
  bodies: ImportRequest[] = [];
  steps: ImportJob[] = [
    { ...RUNNING, progress: { phase: 'indexing', done: 1, total: 3, url: 'https://help.example.com/billing' } },
    {
      ...RUNNING,
      status: 'succeeded',
      finished_at: '2026-11-27T10:00:05.000Z',
      progress: { phase: 'indexing', done: 3, total: 3 },
      result: {
        site: 'https://help.example.com',
        created: ['help.example.com/index.html', 'help.example.com/billing.html'],
        updated: [],
        unchanged: [],
        removed: [],
        skipped: [{ url: 'https://help.example.com/logo.png', reason: 'not a format the knowledge base indexes (image/png)' }],
        failed: [],
        truncated: false,
      },
    },
  ];
  refuse: string | undefined;
  sources: ImportSource[] = [];
  /** Requests about re-synced websites, `METHOD path`. */
  sourceCalls: string[] = [];

  readonly fetch: FetchFunction = async (url, init) => {
    const method = init?.method ?? 'GET';
    const path = url.replace('/console/api/knowledge-bases/docs', '');
    if (path === '/import-sources') return Response.json({ sources: this.sources });
    if (path.startsWith('/import-sources/')) {
      this.sourceCalls.push(`${method} ${path}`);
      if (method === 'DELETE') {
        this.sources = this.sources.filter((source) => !path.endsWith(source.id));
        return new Response(null, { status: 204 });
      }
      return Response.json({ ...RUNNING, source_id: 'src_1' }, { status: 202 });
    }
    if (method === 'POST' && path === '/imports') {
      if (this.refuse) return Response.json({ status: 400, code: 'invalid_request', detail: this.refuse }, { status: 400 });
      this.bodies.push(JSON.parse(String(init!.body)) as ImportRequest);
      return Response.json(RUNNING, { status: 202 });
    }
    if (method === 'GET' && path === '/imports/imp_1') return Response.json(this.steps.length > 1 ? this.steps.shift() : this.steps[0]);
    if (method === 'GET' && path === '/imports') return Response.json({ imports: this.bodies.length > 0 ? [this.steps[0]] : [] });
    return Response.json({ status: 404, code: 'not_found', detail: `No route ${method} ${path}` }, { status: 404 });
  };
}

async function importForm(api: ScriptedApi): Promise<KbSiteImport> {
  return fixture<KbSiteImport>(html`<kb-site-import .client=${new ConsoleClient({ fetch: api.fetch })} kb-id="docs"></kb-site-import>`);
}

function text(element: Element | null | undefined): string {
  return (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

async function submit(element: KbSiteImport, kind: 'pages' | 'sitemap', urls: string): Promise<void> {
  const root = element.shadowRoot!;
  root.querySelector<HTMLInputElement>(`#import-kind-${kind}`)!.click();
  await element.updateComplete;
  root.querySelector<HTMLTextAreaElement>('#import-urls')!.value = urls;
  root.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
}

describe('kb-site-import', () => {
  it('a sitemap import: fetching, a progress bar while indexing, then what it did; the documents reload', async () => {
    const api = new ScriptedApi();
    const element = await importForm(api);
    const root = element.shadowRoot!;
    const reloaded = oneEvent(element, 'documents-changed');

    await submit(element, 'sitemap', ' https://help.example.com/sitemap.xml \n');
    await waitUntil(() => text(root.querySelector('[role="status"]')).startsWith('Fetching'), 'the import is fetching');
    expect(text(root.querySelector('[role="status"]'))).to.equal('Fetching the pages of https://help.example.com/sitemap.xml…');
    expect(root.querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled).to.equal(true);
    await waitUntil(() => root.querySelector('progress') !== null, 'the pages are indexed', { timeout: 4000 });
    expect(text(root.querySelector('label[for="import-progress"]'))).to.equal('Indexing page 2 of 3: https://help.example.com/billing');
    await reloaded;
    await element.updateComplete;

    expect(api.bodies).to.deep.equal([{ kind: 'sitemap', urls: ['https://help.example.com/sitemap.xml'], visibility: 'public', quotable: true, max_pages: 500 }]);
    expect(text(root.querySelector('div[role="status"] p'))).to.equal(
      'Imported from https://help.example.com: 2 created, 0 updated, 0 unchanged, 0 removed, 1 skipped, 0 failed.',
    );
    expect(text(root.querySelector('ul.outcome'))).to.equal('https://help.example.com/logo.png: skipped (not a format the knowledge base indexes (image/png))');
    expect(root.querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled).to.equal(false);
  });

  it('pages and their links: the hops to follow are sent with the pages (a sitemap has none)', async () => {
    const api = new ScriptedApi();
    const element = await importForm(api);
    const root = element.shadowRoot!;
    root.querySelector<HTMLInputElement>('#import-kind-sitemap')!.click();
    await element.updateComplete;
    expect(root.querySelector('#import-max-depth')).to.equal(null, 'a sitemap import follows no links');

    root.querySelector<HTMLInputElement>('#import-kind-pages')!.click();
    await element.updateComplete;
    root.querySelector<HTMLInputElement>('#import-max-depth')!.value = '1';
    await submit(element, 'pages', 'https://help.example.com/guide/');
    await waitUntil(() => api.bodies.length === 1, 'the import is sent');

    expect(api.bodies[0]).to.deep.equal({ kind: 'pages', urls: ['https://help.example.com/guide/'], visibility: 'public', quotable: true, max_pages: 500, max_depth: 1 });
  });

  it("a refused import: the server's sentence, nothing followed", async () => {
    const api = new ScriptedApi();
    api.refuse = 'urls: one import reads one site; these are on https://a.example, https://b.example';
    const element = await importForm(api);

    await submit(element, 'pages', 'https://a.example/\nhttps://b.example/');
    await waitUntil(() => text(element.shadowRoot!.querySelector('[role="alert"]')) !== '', 'the refusal is shown');

    expect(text(element.shadowRoot!.querySelector('[role="alert"]'))).to.equal(`The import was not started: ${api.refuse}`);
    expect(element.shadowRoot!.querySelector('[role="status"]')).to.equal(null);
  });

  it('set to import again every week: the interval is sent; the re-synced website is listed with its next and last sync, synced now, then stopped', async () => {
    const api = new ScriptedApi();
    const element = await importForm(api);
    const root = element.shadowRoot!;
    const select = root.querySelector<HTMLSelectElement>('#import-resync')!;
    select.value = '168';
    api.sources = [
      {
        id: 'src_1',
        kind: 'sitemap',
        urls: ['https://help.example.com/sitemap.xml'],
        visibility: 'public',
        readers: [],
        quotable: true,
        max_pages: 500,
        max_depth: 3,
        resync_hours: 168,
        created_by: 'owner@example.com',
        created_at: '2026-11-27T10:00:00.000Z',
        next_sync_at: '2026-12-04T10:00:00.000Z',
        last_sync: { status: 'succeeded', finished_at: '2026-11-27T10:00:05.000Z', created: 2, updated: 0, unchanged: 0, removed: 0, failed: 0 },
      },
    ];

    await submit(element, 'sitemap', 'https://help.example.com/sitemap.xml');
    await waitUntil(() => root.querySelector('ul.sources li') !== null, 'the re-synced website is listed');
    expect(api.bodies[0]).to.include({ resync_hours: 168 });
    expect(text(root.querySelector('ul.sources li'))).to.equal(
      'https://help.example.com/sitemap.xml (sitemap), every week, set up by owner@example.com. Next sync 2026-12-04 10:00 UTC. Last sync 2026-11-27 10:00: 2 created, 0 updated, 0 unchanged, 0 removed, 0 failed. Sync now Stop re-syncing',
    );
    await waitUntil(() => !root.querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled, 'the import ended', { timeout: 5000 });

    root.querySelector<HTMLButtonElement>('button[aria-label="Sync now: https://help.example.com/sitemap.xml"]')!.click();
    await waitUntil(() => text(root.querySelector('form [role="status"]')).startsWith('Fetching'), 'the sync is followed');
    root.querySelector<HTMLButtonElement>('button[aria-label="Stop re-syncing https://help.example.com/sitemap.xml"]')!.click();
    await waitUntil(() => root.querySelector('ul.sources') === null, 'the website is no longer listed');

    expect(api.sourceCalls).to.deep.equal(['POST /import-sources/src_1/sync', 'DELETE /import-sources/src_1']);
    expect(text(root.querySelector('section [role="status"]'))).to.equal('https://help.example.com/sitemap.xml is no longer re-synced; its documents stay.');
    await expect(element).to.be.accessible();
  });

  it('no axe violations', async () => {
    const element = await importForm(new ScriptedApi());
    await expect(element).to.be.accessible();
  });
});
