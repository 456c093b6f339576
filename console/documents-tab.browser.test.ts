import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ConsoleDocument, ConsoleMember, UploadJob } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import type { KbDocumentsTab } from './documents-tab.ts';

/**
 * The Documents tab in Chromium against a scripted console API: editors
 * upload files (sent as base64 in one upload, indexed by a job on the
 * server whose progress the tab follows, each file stored or refused on its
 * own, with a result per file), change a document's access, and remove
 * one in two steps; readers see the list only; the table reflows in a
 * 360 px column; axe finds no violation.
 */
defineConsoleElements();

const NOT_A_PDF = 'The file is not a PDF that can be read (Invalid PDF structure.)';

/**
 * A console API holding documents. An upload starts a job that indexes one
 * more file each time it is asked for (refusing a "PDF" whose bytes are not
 * one, as the server does); readers who are not members refuse the upload.
 */
class ScriptedApi {
  documents: ConsoleDocument[] = [
    { doc_id: 'guides/setup.md', title: 'Setup', visibility: 'public', quotable: true, passages: 3, updated_at: '2026-11-01T10:00:00.000Z' },
    { doc_id: 'plans/q3.md', title: 'Q3 plan', visibility: 'restricted', readers: ['usr_alice'], quotable: true, passages: 1, updated_at: '2026-11-02T10:00:00.000Z' },
  ];
  members: ConsoleMember[] = [
    { user_id: 'usr_owner', email: 'owner@example.com', role: 'owner' },
    { user_id: 'usr_alice', email: 'alice@example.com', role: 'editor' },
  ];
  requests: { method: string; path: string; body?: Record<string, unknown> }[] = [];
  /** The upload job and the files it has still to index. */
  upload: { job: UploadJob; pending: { doc_id: string; content_base64: string }[]; visibility: ConsoleDocument['visibility'] } | undefined;

  readonly fetch: FetchFunction = async (url, init) => {
    const method = init?.method ?? 'GET';
    const path = url.replace('/console/api/knowledge-bases/docs', '');
    const body = init?.body === undefined ? undefined : (JSON.parse(String(init.body)) as Record<string, unknown>);
    this.requests.push({ method, path, ...(body === undefined ? {} : { body }) });
    if (method === 'GET' && path === '/documents') return Response.json({ documents: this.documents });
    if (method === 'GET' && path === '/members') return Response.json({ members: this.members });
    if (method === 'POST' && path === '/uploads') {
      const strangers = (body!['readers'] as string[]).filter((reader) => !this.members.some((member) => member.user_id === reader));
      if (strangers.length > 0) return Response.json({ status: 400, code: 'invalid_request', detail: `readers: not members of "docs": ${strangers.join(', ')}` }, { status: 400 });
      const files = body!['files'] as { doc_id: string; content_base64: string }[];
      const job: UploadJob = {
        id: 'upl_1',
        status: 'running',
        started_by: 'owner@example.com',
        started_at: '2026-11-27T10:00:00.000Z',
        files: files.map((file) => file.doc_id),
        progress: { done: 0, total: files.length },
        results: [],
      };
      this.upload = { job, pending: [...files], visibility: body!['visibility'] as ConsoleDocument['visibility'] };
      return Response.json(job, { status: 202, headers: { Location: '/console/api/knowledge-bases/docs/uploads/upl_1' } });
    }
    if (method === 'GET' && path === '/uploads/upl_1' && this.upload) {
      const { job, pending, visibility } = this.upload;
      const file = pending.shift();
      if (file) {
        const docId = file.doc_id;
        if (docId.endsWith('.pdf') && !atob(file.content_base64).startsWith('%PDF')) {
          job.results.push({ doc_id: docId, outcome: 'failed', reason: NOT_A_PDF });
        } else {
          const existing = this.documents.some((candidate) => candidate.doc_id === docId);
          this.documents = [
            ...this.documents.filter((candidate) => candidate.doc_id !== docId),
            { doc_id: docId, title: docId, visibility, quotable: true, passages: 2, updated_at: '2026-11-27T10:00:00.000Z' },
          ];
          job.results.push({ doc_id: docId, outcome: existing ? 'updated' : 'created', passages: 2 });
        }
      }
      job.progress = { done: job.results.length, total: job.files.length, ...(pending[0] ? { doc_id: pending[0].doc_id } : file ? { doc_id: file.doc_id } : {}) };
      if (pending.length === 0) Object.assign(job, { status: 'succeeded', finished_at: '2026-11-27T10:00:03.000Z' });
      return Response.json(job);
    }
    const document = /^\/documents\/(.+)$/.exec(path);
    if (document) {
      const docId = document[1]!.split('/').map(decodeURIComponent).join('/');
      const existing = this.documents.find((candidate) => candidate.doc_id === docId);
      if (method === 'PATCH' && existing) {
        Object.assign(existing, body);
        return Response.json(existing);
      }
      if (method === 'DELETE' && existing) {
        this.documents = this.documents.filter((candidate) => candidate !== existing);
        return new Response(null, { status: 204 });
      }
    }
    return Response.json({ status: 404, code: 'not_found', detail: `No route ${method} ${path}` }, { status: 404 });
  };
}

async function documentsTab(api: ScriptedApi, canEdit: boolean): Promise<KbDocumentsTab> {
  const element = await fixture<KbDocumentsTab>(
    html`<kb-documents-tab .client=${new ConsoleClient({ fetch: api.fetch })} kb-id="docs" ?can-edit=${canEdit}></kb-documents-tab>`,
  );
  await waitUntil(() => element.shadowRoot!.querySelector('tbody tr') !== null, 'the documents load');
  return element;
}

function buttonNamed(element: KbDocumentsTab, accessibleName: string): HTMLButtonElement | undefined {
  return [...element.shadowRoot!.querySelectorAll('button')].find(
    (candidate) => (candidate.getAttribute('aria-label') ?? candidate.textContent?.trim()) === accessibleName,
  );
}

function docIds(element: KbDocumentsTab): string[] {
  return [...element.shadowRoot!.querySelectorAll('tbody tr')].map((row) => row.getAttribute('data-doc-id') ?? '');
}

/** Opens the upload form with its button, as an editor does, and chooses `files` in it. */
function choose(element: KbDocumentsTab, files: File[]): void {
  const opener = buttonNamed(element, 'Upload files')!;
  if (opener.getAttribute('aria-expanded') !== 'true') opener.click();
  const transfer = new DataTransfer();
  for (const file of files) transfer.items.add(file);
  element.shadowRoot!.querySelector<HTMLInputElement>('#upload-files')!.files = transfer.files;
}

describe('kb-documents-tab', () => {
  it('an editor uploads three files into a folder: one upload of base64 files, indexed by a job whose progress is shown, the refused file named with its reason, the others listed', async () => {
    const api = new ScriptedApi();
    const element = await documentsTab(api, true);
    choose(element, [
      new File(['# Reset\n\nHold the button.\n'], 'reset.md', { type: 'text/markdown' }),
      new File(['# not a pdf'], 'scan.pdf', { type: 'application/pdf' }),
      new File(['%PDF-1.7 ...'], 'manual.pdf', { type: 'application/pdf' }),
    ]);
    element.shadowRoot!.querySelector<HTMLInputElement>('#upload-folder')!.value = 'help/';
    const progressLabel = () => element.shadowRoot!.querySelector('label[for="upload-progress"]')?.textContent?.replace(/\s+/g, ' ').trim();

    buttonNamed(element, 'Upload')!.click();
    await waitUntil(() => progressLabel() === 'Indexing scan.pdf (2 of 3)', 'the progress names the file being indexed', { timeout: 4000 });
    const midway = element.shadowRoot!.querySelector<HTMLProgressElement>('#upload-progress')!.value;
    await waitUntil(() => element.shadowRoot!.querySelector('ul.results') !== null, 'the upload ends', { timeout: 4000 });
    await waitUntil(() => docIds(element).includes('help/manual.pdf'), 'the list is reloaded');

    const posts = api.requests.filter((request) => request.method === 'POST');
    expect(posts.map((request) => request.path)).to.deep.equal(['/uploads']);
    const sent = posts[0]!.body!['files'] as { doc_id: string; content_base64: string }[];
    expect(sent.map((file) => file.doc_id)).to.deep.equal(['help/reset.md', 'help/scan.pdf', 'help/manual.pdf']);
    expect(atob(sent[0]!.content_base64)).to.equal('# Reset\n\nHold the button.\n');
    expect(posts[0]!.body).to.include({ visibility: 'public', quotable: true });
    expect(api.requests.filter((request) => request.method === 'PUT')).to.deep.equal([]);
    expect(midway).to.equal(1);
    const results = [...element.shadowRoot!.querySelectorAll('ul.results li')].map((item) => item.textContent!.replace(/\s+/g, ' ').trim());
    expect(results).to.deep.equal([
      'reset.md: created as help/reset.md, 2 passages',
      `scan.pdf: not stored (${NOT_A_PDF})`,
      'manual.pdf: created as help/manual.pdf, 2 passages',
    ]);
    expect(element.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Uploaded 2 of 3 files.');
    expect(element.shadowRoot!.querySelector('[role="alert"]')!.textContent).to.contain(`This file was not stored; the knowledge base keeps what it had: scan.pdf: ${NOT_A_PDF}`);
    expect(docIds(element)).to.deep.equal(['guides/setup.md', 'plans/q3.md', 'help/reset.md', 'help/manual.pdf']);
    expect(element.shadowRoot!.querySelector('#upload-progress')).to.equal(null);
  });

  it('a file of another format is named as not stored and never sent; an upload the server refuses names its sentence for each file', async () => {
    const api = new ScriptedApi();
    const element = await documentsTab(api, true);
    await waitUntil(() => api.requests.some((request) => request.path === '/members'), 'the members load');
    const visibility = element.shadowRoot!.querySelector<HTMLSelectElement>('#upload-visibility')!;
    visibility.value = 'restricted';
    visibility.dispatchEvent(new Event('change'));
    await element.updateComplete;
    element.shadowRoot!.querySelector<HTMLInputElement>('#upload-reader-usr_alice')!.checked = true;
    api.members = api.members.filter((member) => member.user_id !== 'usr_alice');
    choose(element, [new File(['x'], 'notes.docx'), new File(['# Plan'], 'plan.md')]);

    buttonNamed(element, 'Upload')!.click();
    await waitUntil(() => element.shadowRoot!.querySelector('ul.results') !== null, 'the upload ends');

    const sent = api.requests.find((request) => request.method === 'POST')!.body!['files'] as { doc_id: string }[];
    expect(sent.map((file) => file.doc_id)).to.deep.equal(['plan.md']);
    const results = [...element.shadowRoot!.querySelectorAll('ul.results li')].map((item) => item.textContent!.replace(/\s+/g, ' ').trim());
    expect(results).to.deep.equal([
      'notes.docx: not stored (Not a supported format; use .md, .markdown, .html, .htm, .txt, .text, .pdf)',
      'plan.md: not stored (readers: not members of "docs": usr_alice)',
    ]);
    expect(element.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Uploaded 0 of 2 files.');
    expect(docIds(element)).to.deep.equal(['guides/setup.md', 'plans/q3.md']);
  });

  it('Change access: the form starts from the document\'s access; Save sends the new one and says so', async () => {
    const api = new ScriptedApi();
    const element = await documentsTab(api, true);
    await waitUntil(() => api.requests.some((request) => request.path === '/members'), 'the members load');

    buttonNamed(element, 'Change access of plans/q3.md')!.click();
    await element.updateComplete;
    expect(element.shadowRoot!.querySelector<HTMLInputElement>('#readers-plans\\/q3\\.md-usr_alice')!.checked).to.equal(true);
    element.shadowRoot!.querySelector<HTMLSelectElement>('#visibility-plans\\/q3\\.md')!.value = 'workspace';
    element.shadowRoot!.querySelector<HTMLInputElement>('#quotable-plans\\/q3\\.md')!.checked = false;
    buttonNamed(element, 'Save access of plans/q3.md')!.click();
    await waitUntil(() => element.shadowRoot!.querySelector('[role="status"]')!.textContent !== '', 'the change is confirmed');

    expect(api.requests.find((request) => request.method === 'PATCH')).to.deep.equal({
      method: 'PATCH',
      path: '/documents/plans/q3.md',
      body: { visibility: 'workspace', readers: [], quotable: false },
    });
    expect(element.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('plans/q3.md is now workspace, not quotable.');
  });

  it('Remove asks to confirm; Confirm remove deletes the document and it leaves the list', async () => {
    const api = new ScriptedApi();
    const element = await documentsTab(api, true);

    buttonNamed(element, 'Remove guides/setup.md')!.click();
    await element.updateComplete;
    buttonNamed(element, 'Confirm remove guides/setup.md')!.click();
    await waitUntil(() => !docIds(element).includes('guides/setup.md'), 'the document leaves the list');

    expect(api.requests.find((request) => request.method === 'DELETE')?.path).to.equal('/documents/guides/setup.md');
    expect(element.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('guides/setup.md was removed; it is no longer cited.');
  });

  it('5,000 documents: 50 rows drawn, searched by id or title, filtered by visibility, paged; upload and import open from their buttons, one at a time', async () => {
    const api = new ScriptedApi();
    api.documents = Array.from({ length: 5000 }, (_, index) => ({
      doc_id: `docs/page-${String(index).padStart(4, '0')}.md`,
      title: `Page ${index}`,
      visibility: index % 3 === 0 ? 'restricted' : 'public',
      quotable: true,
      passages: 4,
      updated_at: '2026-11-01T10:00:00.000Z',
    }));
    const started = performance.now();
    const element = await documentsTab(api, true);
    const loaded = performance.now() - started;
    const root = element.shadowRoot!;
    const count = () => root.querySelector('#document-count')!.textContent!.replace(/\s+/g, ' ').trim();
    const visible = (selector: string) => root.querySelector<HTMLElement>(selector)!.getClientRects().length > 0;

    expect(docIds(element)).to.have.length(50);
    expect(count()).to.equal('Documents 1–50 of 5,000');
    expect([visible('#upload-form'), visible('#site-import')]).to.deep.equal([false, false]);
    expect(loaded).to.be.below(3000);

    const search = root.querySelector<HTMLInputElement>('#document-search')!;
    const typed = performance.now();
    search.value = 'PAGE 4321';
    search.dispatchEvent(new Event('input'));
    await element.updateComplete;
    expect(performance.now() - typed).to.be.below(250);
    expect(docIds(element)).to.deep.equal(['docs/page-4321.md']);
    search.value = 'page-1234.md';
    search.dispatchEvent(new Event('input'));
    await element.updateComplete;
    expect(docIds(element)).to.deep.equal(['docs/page-1234.md']);

    search.value = '';
    search.dispatchEvent(new Event('input'));
    const filter = root.querySelector<HTMLSelectElement>('#document-filter')!;
    filter.value = 'restricted';
    filter.dispatchEvent(new Event('change'));
    await element.updateComplete;
    expect(count()).to.equal('Documents 1–50 of 1,667 matching (5,000 in all)');
    expect(root.querySelector('nav')!.textContent!.replace(/\s+/g, ' ').trim()).to.equal('Previous page Page 1 of 34 Next page');
    buttonNamed(element, 'Next page')!.click();
    await element.updateComplete;
    expect(docIds(element)[0]).to.equal('docs/page-0150.md');
    expect(count()).to.equal('Documents 51–100 of 1,667 matching (5,000 in all)');
    expect(docIds(element)).to.have.length(50);

    buttonNamed(element, 'Upload files')!.click();
    await element.updateComplete;
    expect([visible('#upload-form'), visible('#site-import')]).to.deep.equal([true, false]);
    buttonNamed(element, 'Import a website')!.click();
    await element.updateComplete;
    expect([visible('#upload-form'), visible('#site-import')]).to.deep.equal([false, true]);
    expect(['Upload files', 'Import a website'].map((name) => buttonNamed(element, name)!.getAttribute('aria-expanded'))).to.deep.equal(['false', 'true']);
    await expect(element).to.be.accessible();
  });

  it('a reader: the list without upload form, actions or member lookup', async () => {
    const api = new ScriptedApi();
    const element = await documentsTab(api, false);

    expect(element.shadowRoot!.querySelector('form')).to.equal(null);
    expect(element.shadowRoot!.querySelectorAll('button').length).to.equal(0);
    expect(api.requests.map((request) => request.path)).to.deep.equal(['/documents']);
  });

  it('in a 360 px column the table reflows: every cell, the actions included, within the width', async () => {
    const api = new ScriptedApi();
    const wrapper = await fixture<HTMLDivElement>(
      html`<div style="width: 360px"><kb-documents-tab .client=${new ConsoleClient({ fetch: api.fetch })} kb-id="docs" can-edit></kb-documents-tab></div>`,
    );
    const element = wrapper.querySelector<KbDocumentsTab>('kb-documents-tab')!;
    await waitUntil(() => element.shadowRoot!.querySelector('tbody tr') !== null, 'the documents load');

    const right = wrapper.getBoundingClientRect().right;
    const cells = [...element.shadowRoot!.querySelectorAll('tbody td')];
    expect(cells.length).to.be.greaterThan(0);
    for (const cell of cells) expect(cell.getBoundingClientRect().right).to.be.at.most(right + 0.5);
    expect(buttonNamed(element, 'Remove plans/q3.md')!.getBoundingClientRect().right).to.be.at.most(right + 0.5);
  });

  it('no axe violations: editor view with upload results and an open access form, and the reader view', async () => {
    const api = new ScriptedApi();
    const editor = await documentsTab(api, true);
    await waitUntil(() => api.requests.some((request) => request.path === '/members'), 'the members load');
    choose(editor, [new File(['# not a pdf'], 'scan.pdf')]);
    buttonNamed(editor, 'Upload')!.click();
    await waitUntil(() => editor.shadowRoot!.querySelector('ul.results') !== null, 'the upload ends');
    buttonNamed(editor, 'Change access of plans/q3.md')!.click();
    await editor.updateComplete;
    await expect(editor).to.be.accessible();

    const reader = await documentsTab(new ScriptedApi(), false);
    await expect(reader).to.be.accessible();
  });
});
