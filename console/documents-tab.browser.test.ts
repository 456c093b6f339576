import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { ConsoleClient, type FetchFunction } from './console-client.ts';
import type { ConsoleDocument, ConsoleMember } from '../protocol/console-protocol.ts';
import { defineConsoleElements } from './define.ts';
import type { KbDocumentsTab } from './documents-tab.ts';

/**
 * The Documents tab in Chromium against a scripted console API: editors
 * upload files (each sent as base64 and stored or refused on its own, with
 * progress and a result per file), change a document's access, and remove
 * one in two steps; readers see the list only; the table reflows in a
 * 360 px column; axe finds no violation.
 */
defineConsoleElements();

const NOT_A_PDF = 'The file is not a PDF that can be read (Invalid PDF structure.)';

/** A console API holding documents; refuses a "PDF" whose bytes are not one, as the server does. */
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

  readonly fetch: FetchFunction = async (url, init) => {
    const method = init?.method ?? 'GET';
    const path = url.replace('/console/api/knowledge-bases/docs', '');
    const body = init?.body === undefined ? undefined : (JSON.parse(String(init.body)) as Record<string, unknown>);
    this.requests.push({ method, path, ...(body === undefined ? {} : { body }) });
    if (method === 'GET' && path === '/documents') return Response.json({ documents: this.documents });
    if (method === 'GET' && path === '/members') return Response.json({ members: this.members });
    const document = /^\/documents\/(.+)$/.exec(path);
    if (document) {
      const docId = document[1]!.split('/').map(decodeURIComponent).join('/');
      const existing = this.documents.find((candidate) => candidate.doc_id === docId);
      if (method === 'PUT') {
        if (docId.endsWith('.pdf') && !atob(String(body!['content_base64'])).startsWith('%PDF')) {
          return Response.json({ status: 400, code: 'invalid_request', detail: `${docId}: ${NOT_A_PDF}` }, { status: 400 });
        }
        const stored = { doc_id: docId, title: docId, visibility: body!['visibility'] as ConsoleDocument['visibility'], quotable: true, passages: 2 };
        this.documents = [...this.documents.filter((candidate) => candidate.doc_id !== docId), { ...stored, updated_at: '2026-11-27T10:00:00.000Z' }];
        return Response.json({ ...stored, outcome: existing ? 'updated' : 'created', updated_at: '2026-11-27T10:00:00.000Z' }, { status: existing ? 200 : 201 });
      }
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

function choose(element: KbDocumentsTab, files: File[]): void {
  const transfer = new DataTransfer();
  for (const file of files) transfer.items.add(file);
  element.shadowRoot!.querySelector<HTMLInputElement>('#upload-files')!.files = transfer.files;
}

describe('kb-documents-tab', () => {
  it('an editor uploads three files into a folder: each sent as base64, the refused one named with its reason, the others listed', async () => {
    const api = new ScriptedApi();
    const element = await documentsTab(api, true);
    choose(element, [
      new File(['# Reset\n\nHold the button.\n'], 'reset.md', { type: 'text/markdown' }),
      new File(['# not a pdf'], 'scan.pdf', { type: 'application/pdf' }),
      new File(['%PDF-1.7 ...'], 'manual.pdf', { type: 'application/pdf' }),
    ]);
    element.shadowRoot!.querySelector<HTMLInputElement>('#upload-folder')!.value = 'help/';

    buttonNamed(element, 'Upload')!.click();
    await waitUntil(() => element.shadowRoot!.querySelector('ul.results') !== null, 'the upload ends');
    await waitUntil(() => docIds(element).includes('help/manual.pdf'), 'the list is reloaded');

    const puts = api.requests.filter((request) => request.method === 'PUT');
    expect(puts.map((request) => request.path)).to.deep.equal(['/documents/help/reset.md', '/documents/help/scan.pdf', '/documents/help/manual.pdf']);
    expect(atob(String(puts[0]!.body!['content_base64']))).to.equal('# Reset\n\nHold the button.\n');
    expect(puts[0]!.body).to.include({ visibility: 'public', quotable: true });
    const results = [...element.shadowRoot!.querySelectorAll('ul.results li')].map((item) => item.textContent!.replace(/\s+/g, ' ').trim());
    expect(results).to.deep.equal([
      'reset.md: created as help/reset.md, 2 passages',
      `scan.pdf: not stored (${NOT_A_PDF})`,
      'manual.pdf: created as help/manual.pdf, 2 passages',
    ]);
    expect(element.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Uploaded 2 of 3 files.');
    expect(element.shadowRoot!.querySelector('[role="alert"]')!.textContent).to.contain(`This file was not stored; the knowledge base keeps what it had: scan.pdf: ${NOT_A_PDF}`);
    expect(docIds(element)).to.deep.equal(['guides/setup.md', 'plans/q3.md', 'help/reset.md', 'help/manual.pdf']);
  });

  it('a restricted upload sends the readers checked among the members', async () => {
    const api = new ScriptedApi();
    const element = await documentsTab(api, true);
    await waitUntil(() => api.requests.some((request) => request.path === '/members'), 'the members load');
    const visibility = element.shadowRoot!.querySelector<HTMLSelectElement>('#upload-visibility')!;
    visibility.value = 'restricted';
    visibility.dispatchEvent(new Event('change'));
    await element.updateComplete;
    element.shadowRoot!.querySelector<HTMLInputElement>('#upload-reader-usr_alice')!.checked = true;
    choose(element, [new File(['# Plan'], 'plan.md')]);

    buttonNamed(element, 'Upload')!.click();
    await waitUntil(() => element.shadowRoot!.querySelector('ul.results') !== null, 'the upload ends');

    expect(api.requests.find((request) => request.method === 'PUT')!.body).to.include({ visibility: 'restricted' });
    expect(api.requests.find((request) => request.method === 'PUT')!.body!['readers']).to.deep.equal(['usr_alice']);
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
