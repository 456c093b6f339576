import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { ConsoleDocument, ConsoleMember, StoredDocument, UploadJob } from '../protocol/console-protocol.ts';
import { MAX_UPLOAD_FILE_BYTES } from '../protocol/console-terms.ts';
import { VISIBILITIES, type Visibility } from '../protocol/workspace-terms.ts';
import { confirmActions } from './confirm-actions.ts';
import { documentListPage, DOCUMENTS_PER_PAGE } from './document-list-view.ts';
import { consoleStyles } from './console-styles.ts';
import { planUploadBatches } from './upload-batches.ts';

/** File types the upload offers (the ingester's formats, ingest/parsing/source-formats.ts). */
const UPLOAD_ACCEPT = '.md,.markdown,.html,.htm,.txt,.text,.pdf';

/** How long after an upload starts its job is first asked for its progress, then how often, milliseconds. */
const FIRST_POLL_MS = 250;
const POLL_MS = 1000;

/** Progress reads that may fail in a row before the tab stops following an upload (the job goes on on the server). */
const MAX_POLL_FAILURES = 5;

/** What became of one uploaded file. */
type UploadResult = { name: string; docId: string; outcome: StoredDocument['outcome']; passages: number } | { name: string; docId: string; error: string };

/** A file chosen for upload, with the document id it becomes. */
interface ChosenFile {
  file: File;
  name: string;
  docId: string;
  size: number;
}

/**
 * The Documents tab: the documents of a knowledge base the person can read,
 * with their visibility (`public`, `workspace`, `restricted`), passages and
 * last update, {@link DOCUMENTS_PER_PAGE} to a page, searched by title or id
 * and filtered by visibility (in the browser: the list of thousands of
 * documents comes in one response, and only a page of it is drawn).
 *
 * Editors and owners also upload files (markdown, HTML, plain text, PDF):
 * each becomes the document named by its file name (under an optional
 * folder), replacing one of the same id, with the visibility and readers
 * chosen for the upload. The files are sent in one request (several for a
 * selection over an upload's 25 MiB, one after the other) and indexed on the
 * server as a job, each file in its own transaction: the tab follows the
 * job with a progress bar naming the file being indexed, and the upload
 * goes on if the page is closed once its files are sent. A file the server
 * refuses is listed by name with its reason and leaves the knowledge base
 * as it was, the others are stored. They import a website too (`<kb-site-import>`, a job
 * on the server). "Upload files" and "Import a website" open their forms,
 * which stay in the page (hidden) while closed, so a running upload or
 * import goes on and shows its progress when opened again. Per document
 * they change visibility, readers and
 * quotability, and remove it ("Remove", then "Confirm remove").
 *
 * @tagname kb-documents-tab
 * @summary Documents: upload, visibility, removal.
 */
export class KbDocumentsTab extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
      }
      .upload {
        border: 1px solid #c4c8d0;
        border-radius: 6px;
        padding: 0 1rem 1rem;
        margin-block: 1rem;
      }
      progress {
        inline-size: min(24rem, 100%);
      }
      ul.results {
        padding-inline-start: 1.25rem;
      }
      /* A closed form stays in the page; kb-site-import's own display: block would show it. */
      [hidden] {
        display: none !important;
      }
      .list-controls {
        display: flex;
        flex-wrap: wrap;
        align-items: end;
        gap: 0.5rem 1rem;
        margin-block: 1rem 0.5rem;
      }
      .list-controls label {
        display: block;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    canEdit: { attribute: 'can-edit', type: Boolean },
    _documents: { state: true },
    _members: { state: true },
    _error: { state: true },
    _status: { state: true },
    _visibility: { state: true },
    _progress: { state: true },
    _results: { state: true },
    _editing: { state: true },
    _confirming: { state: true },
    _busy: { state: true },
    _opened: { state: true },
    _search: { state: true },
    _filter: { state: true },
    _page: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** Knowledge base whose documents are listed. */
  declare kbId: string;
  /** Whether the person may add, change and remove documents (editors and owners). */
  declare canEdit: boolean;
  declare private _documents: ConsoleDocument[] | undefined;
  /** Members, the possible readers of a restricted document (loaded for editors). */
  declare private _members: ConsoleMember[];
  declare private _error: string | undefined;
  declare private _status: string | undefined;
  /** Visibility chosen for the next upload. */
  declare private _visibility: Visibility;
  /** While an upload runs: files with an outcome of all, and the file being sent or indexed (`current`: its name; `sending`: its bytes are on their way). */
  declare private _progress: { done: number; total: number; current: string; sending: boolean } | undefined;
  /** Outcome of each file of the last upload. */
  declare private _results: UploadResult[];
  /** Id of the document whose access form is open. */
  declare private _editing: string | undefined;
  /** Id of the document whose removal awaits confirmation. */
  declare private _confirming: string | undefined;
  declare private _busy: boolean;
  /** The form opened by its button: the upload's or the website import's. */
  declare private _opened: 'upload' | 'import' | undefined;
  /** The list's search (title or id), visibility filter and page (from 0). */
  declare private _search: string;
  declare private _filter: Visibility | 'all';
  declare private _page: number;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
    this.canEdit = false;
    this._members = [];
    this._visibility = 'public';
    this._results = [];
    this._busy = false;
    this._search = '';
    this._filter = 'all';
    this._page = 0;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if ((changed.has('kbId') || changed.has('canEdit')) && this.kbId !== '') {
      void this._loadDocuments();
      if (this.canEdit) void this._loadMembers();
    }
  }

  private async _loadDocuments(): Promise<void> {
    try {
      this._documents = await this.client.listDocuments(this.kbId);
      this._error = undefined;
    } catch (error) {
      this._error = `The documents could not be loaded: ${(error as Error).message}`;
    }
  }

  private async _loadMembers(): Promise<void> {
    try {
      this._members = await this.client.listMembers(this.kbId);
    } catch {
      // Without the member list a restricted upload has no reader to pick; the server still checks readers.
      this._members = [];
    }
  }

  /** Reader user ids checked in a form's reader list. */
  private _checkedReaders(form: HTMLFormElement): string[] {
    return [...form.querySelectorAll<HTMLInputElement>('input[name="reader"]:checked')].map((input) => input.value);
  }

  private async _upload(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const input = form.querySelector<HTMLInputElement>('input[type="file"]')!;
    const files = [...(input.files ?? [])];
    if (files.length === 0) {
      this._error = 'Choose one or more files to upload.';
      return;
    }
    const folder = normalizeFolder(form.querySelector<HTMLInputElement>('input[name="folder"]')!.value);
    const access = {
      visibility: this._visibility,
      readers: this._visibility === 'restricted' ? this._checkedReaders(form) : [],
      quotable: form.querySelector<HTMLInputElement>('input[name="quotable"]')!.checked,
    };
    this._error = undefined;
    this._status = undefined;
    this._results = [];
    this._busy = true;
    const chosen: ChosenFile[] = files.map((file) => ({ file, name: file.name, docId: `${folder}${file.name}`, size: file.size }));
    const results = new Map<string, UploadResult>();
    const sendable: ChosenFile[] = [];
    for (const file of chosen) {
      const refusal =
        file.size > MAX_UPLOAD_FILE_BYTES
          ? `The file is larger than ${formatMegabytes(MAX_UPLOAD_FILE_BYTES)}`
          : UPLOAD_ACCEPT.split(',').includes(extensionOf(file.name))
            ? undefined
            : `Not a supported format; use ${UPLOAD_ACCEPT.replaceAll(',', ', ')}`;
      if (refusal === undefined) sendable.push(file);
      else results.set(file.docId, { name: file.name, docId: file.docId, error: refusal });
    }
    const batches = planUploadBatches(sendable);
    for (const [index, batch] of batches.entries()) {
      const done = results.size;
      this._progress = { done, total: chosen.length, current: batch.length === 1 ? batch[0]!.name : `${batch.length} files`, sending: true };
      let job: UploadJob;
      try {
        job = await this.client.startUpload(this.kbId, {
          files: await Promise.all(batch.map(async (file) => ({ doc_id: file.docId, content_base64: await base64Of(file.file) }))),
          ...access,
        });
      } catch (error) {
        // Refused before it started (or not sent): none of these files was stored.
        for (const file of batch) results.set(file.docId, { name: file.name, docId: file.docId, error: (error as Error).message });
        continue;
      }
      if (index === batches.length - 1) this._status = 'The files are on the server; their indexing goes on even if you leave this page.';
      const ended = await this._follow(job, batch, done, chosen.length);
      for (const file of batch) {
        const result = ended.results.find((candidate) => candidate.doc_id === file.docId);
        results.set(
          file.docId,
          result === undefined
            ? { name: file.name, docId: file.docId, error: ended.status === 'failed' ? `The upload stopped: ${ended.error ?? 'no reason given'}` : 'Its outcome could not be read; reload the page to see the documents' }
            : result.outcome === 'failed'
              ? { name: file.name, docId: file.docId, error: result.reason ?? 'not stored' }
              : { name: file.name, docId: file.docId, outcome: result.outcome, passages: result.passages ?? 0 },
        );
      }
    }
    input.value = '';
    await this._loadDocuments();
    this._progress = undefined;
    this._busy = false;
    this._results = chosen.map((file) => results.get(file.docId)!);
    const failed = this._results.filter((result) => 'error' in result);
    this._status = `Uploaded ${this._results.length - failed.length} of ${this._results.length} ${this._results.length === 1 ? 'file' : 'files'}.`;
    if (failed.length > 0) {
      this._error = `${failed.length === 1 ? 'This file was' : 'These files were'} not stored; the knowledge base keeps what it had: ${failed.map((result) => `${result.name}: ${(result as { error: string }).error}`).join('; ')}`;
    }
  }

  /**
   * Asks the server for an upload's progress until it ends, showing it.
   *
   * @param doneBefore files of the selection with an outcome before this upload
   * @returns the job as last read: ended, or running when its progress could no longer be read (or the tab left the page)
   */
  private async _follow(job: UploadJob, batch: readonly ChosenFile[], doneBefore: number, total: number): Promise<UploadJob> {
    const nameOf = (docId: string | undefined) => batch.find((file) => file.docId === docId)?.name ?? docId ?? '';
    let current = job;
    let failures = 0;
    let wait = FIRST_POLL_MS;
    while (current.status === 'running' && this.isConnected) {
      this._progress = { done: doneBefore + current.progress.done, total, current: nameOf(current.progress.doc_id ?? current.files[current.progress.done]), sending: false };
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = POLL_MS;
      try {
        current = await this.client.getUpload(this.kbId, job.id);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (failures >= MAX_POLL_FAILURES) {
          this._error = `The upload's progress could not be read: ${(error as Error).message}. It goes on on the server; reload the page later to see the documents.`;
          break;
        }
      }
    }
    return current;
  }

  private async _saveAccess(document: ConsoleDocument, event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const visibility = form.querySelector<HTMLSelectElement>('select[name="visibility"]')!.value as Visibility;
    const quotable = form.querySelector<HTMLInputElement>('input[name="quotable"]')!.checked;
    const readers = visibility === 'restricted' ? this._checkedReaders(form) : [];
    this._status = undefined;
    this._busy = true;
    try {
      await this.client.setDocumentAccess(this.kbId, document.doc_id, { visibility, readers, quotable });
      this._error = undefined;
      this._status = `${document.doc_id} is now ${visibility}${quotable ? '' : ', not quotable'}.`;
      this._editing = undefined;
      await this._loadDocuments();
    } catch (error) {
      this._error = `The access of ${document.doc_id} was not changed: ${(error as Error).message}`;
    } finally {
      this._busy = false;
    }
  }

  private async _remove(document: ConsoleDocument): Promise<void> {
    this._status = undefined;
    this._busy = true;
    try {
      await this.client.removeDocument(this.kbId, document.doc_id);
      this._error = undefined;
      this._status = `${document.doc_id} was removed; it is no longer cited.`;
      await this._loadDocuments();
    } catch (error) {
      this._error = `${document.doc_id} was not removed: ${(error as Error).message}`;
    } finally {
      this._confirming = undefined;
      this._busy = false;
    }
  }

  private _renderReaders(idPrefix: string, checked: readonly string[]) {
    if (this._members.length === 0) return html`<p class="hint">No members to choose as readers.</p>`;
    return html`<fieldset>
      <legend>Readers</legend>
      ${this._members.map(
        (member) => html`<span
          ><input type="checkbox" name="reader" id="${idPrefix}-${member.user_id}" value=${member.user_id} ?checked=${checked.includes(member.user_id)} /><label
            for="${idPrefix}-${member.user_id}"
            >${member.email}</label
          ></span
        >`,
      )}
    </fieldset>`;
  }

  /** A button that opens (or closes) the form `name`, which `controls` names. */
  private _renderOpener(name: 'upload' | 'import', label: string, controls: string) {
    return html`<button type="button" class="secondary" aria-expanded=${String(this._opened === name)} aria-controls=${controls} @click=${() => (this._opened = this._opened === name ? undefined : name)}>
      ${label}
    </button>`;
  }

  private _renderUpload() {
    return html`<form id="upload-form" class="upload" ?hidden=${this._opened !== 'upload'} @submit=${this._upload}>
      <h3>Upload files</h3>
      <p class="hint">
        Markdown, HTML, plain text or PDF, up to ${formatMegabytes(MAX_UPLOAD_FILE_BYTES)} each. A file replaces the document of the same
        name.
      </p>
      <label for="upload-files">Files</label>
      <input id="upload-files" type="file" multiple accept=${UPLOAD_ACCEPT} ?disabled=${this._busy} />
      <label for="upload-folder">Folder (optional)</label>
      <input id="upload-folder" name="folder" type="text" placeholder="guides/" ?disabled=${this._busy} />
      <label for="upload-visibility">Visibility</label>
      <select id="upload-visibility" ?disabled=${this._busy} @change=${(event: Event) => (this._visibility = (event.currentTarget as HTMLSelectElement).value as Visibility)}>
        ${VISIBILITIES.map((visibility) => html`<option value=${visibility} ?selected=${visibility === this._visibility}>${visibility}</option>`)}
      </select>
      ${this._visibility === 'restricted' ? this._renderReaders('upload-reader', []) : nothing}
      <p><input id="upload-quotable" name="quotable" type="checkbox" checked /><label for="upload-quotable" class="inline">Passages may be quoted</label></p>
      <button type="submit" ?disabled=${this._busy}>Upload</button>
      ${this._progress === undefined
        ? nothing
        : html`<p>
            <label for="upload-progress"
              >${this._progress.sending
                ? `Sending ${this._progress.current} to the server`
                : `Indexing ${this._progress.current} (${Math.min(this._progress.done + 1, this._progress.total)} of ${this._progress.total})`}</label
            >
            <progress id="upload-progress" max=${this._progress.total} value=${this._progress.done}></progress>
          </p>`}
      ${this._results.length === 0
        ? nothing
        : html`<ul class="results" aria-label="Uploaded files">
            ${this._results.map((result) =>
              'error' in result
                ? html`<li class="error">${result.name}: not stored (${result.error})</li>`
                : html`<li>${result.name}: ${result.outcome} as <code>${result.docId}</code>, ${result.passages} ${result.passages === 1 ? 'passage' : 'passages'}</li>`,
            )}
          </ul>`}
    </form>`;
  }

  private _renderActions(document: ConsoleDocument) {
    if (this._editing === document.doc_id) {
      return html`<form @submit=${(event: SubmitEvent) => this._saveAccess(document, event)}>
        <label for="visibility-${document.doc_id}">Visibility of ${document.doc_id}</label>
        <select id="visibility-${document.doc_id}" name="visibility">
          ${VISIBILITIES.map((visibility) => html`<option value=${visibility} ?selected=${visibility === document.visibility}>${visibility}</option>`)}
        </select>
        ${this._renderReaders(`readers-${document.doc_id}`, document.readers ?? [])}
        <p>
          <input id="quotable-${document.doc_id}" name="quotable" type="checkbox" ?checked=${document.quotable !== false} /><label
            for="quotable-${document.doc_id}"
            class="inline"
            >Passages may be quoted</label
          >
        </p>
        <span class="actions">
          <button type="submit" ?disabled=${this._busy} aria-label="Save access of ${document.doc_id}">Save</button>
          <button type="button" class="secondary" @click=${() => (this._editing = undefined)}>Cancel</button>
        </span>
      </form>`;
    }
    if (this._confirming === document.doc_id) {
      return confirmActions({
        verb: 'remove',
        doing: 'removing',
        target: document.doc_id,
        busy: this._busy,
        confirm: () => void this._remove(document),
        cancel: () => (this._confirming = undefined),
      });
    }
    return html`<span class="actions">
      <button type="button" class="secondary" aria-label="Change access of ${document.doc_id}" @click=${() => ((this._editing = document.doc_id), (this._status = undefined))}>
        Change access
      </button>
      <button type="button" class="secondary" aria-label="Remove ${document.doc_id}" @click=${() => ((this._confirming = document.doc_id), (this._status = undefined))}>
        Remove
      </button>
    </span>`;
  }

  override render() {
    return html`
      <h2>Documents</h2>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      <p role="status">${this._status ?? nothing}</p>
      ${this.canEdit
        ? html`<p class="actions">${this._renderOpener('upload', 'Upload files', 'upload-form')}${this._renderOpener('import', 'Import a website', 'site-import')}</p>
            ${this._renderUpload()}
            <kb-site-import
              id="site-import"
              ?hidden=${this._opened !== 'import'}
              .client=${this.client}
              kb-id=${this.kbId}
              .members=${this._members}
              @documents-changed=${() => this._loadDocuments()}
            ></kb-site-import>`
        : nothing}
      ${this._documents === undefined
        ? this._error
          ? nothing
          : html`<p>Loading documents…</p>`
        : this._documents.length === 0
          ? html`<p>No documents you can read.</p>`
          : this._renderList(this._documents)}
    `;
  }

  /** The search, the visibility filter, one page of the matching documents as a table, and the pager. */
  private _renderList(documents: ConsoleDocument[]) {
    const { rows, matching, page, pages } = documentListPage(documents, { search: this._search, visibility: this._filter, page: this._page });
    const first = page * DOCUMENTS_PER_PAGE;
    return html`<div class="list-controls">
        <span>
          <label for="document-search">Search by title or id</label>
          <input id="document-search" type="search" .value=${this._search} @input=${(event: Event) => ((this._search = (event.currentTarget as HTMLInputElement).value), (this._page = 0))} />
        </span>
        <span>
          <label for="document-filter">Filter by visibility</label>
          <select id="document-filter" @change=${(event: Event) => ((this._filter = (event.currentTarget as HTMLSelectElement).value as Visibility | 'all'), (this._page = 0))}>
            ${['all', ...VISIBILITIES].map((visibility) => html`<option value=${visibility} ?selected=${visibility === this._filter}>${visibility === 'all' ? 'Any' : visibility}</option>`)}
          </select>
        </span>
      </div>
      <p class="hint" aria-live="polite" id="document-count">
        ${matching === 0
          ? 'No document matches.'
          : `Documents ${(first + 1).toLocaleString('en')}–${(first + rows.length).toLocaleString('en')} of ${matching.toLocaleString('en')}${matching < documents.length ? ` matching (${documents.length.toLocaleString('en')} in all)` : ''}`}
      </p>
      ${rows.length === 0
        ? nothing
        : html`<table class="reflow" aria-describedby="document-count">
          <thead>
            <tr>
              <th scope="col">Document id</th>
              <th scope="col">Title</th>
              <th scope="col">Visibility</th>
              <th scope="col">Passages</th>
              <th scope="col">Updated</th>
              ${this.canEdit ? html`<th scope="col">Actions</th>` : nothing}
            </tr>
          </thead>
          <tbody>
            ${rows.map(
              (document) => html`<tr data-doc-id=${document.doc_id}>
                <td data-label="Document id"><code>${document.doc_id}</code></td>
                <td data-label="Title">${document.title}</td>
                <td data-label="Visibility">${document.visibility}${document.quotable === false ? ' (not quotable)' : ''}</td>
                <td data-label="Passages">${document.passages ?? ''}</td>
                <td data-label="Updated">${document.updated_at ? new Date(document.updated_at).toLocaleString() : ''}</td>
                ${this.canEdit ? html`<td data-label="Actions">${this._renderActions(document)}</td>` : nothing}
              </tr>`,
            )}
          </tbody>
        </table>`}
      ${pages > 1
        ? html`<nav class="actions" aria-label="Pages of documents">
            <button type="button" class="secondary" ?disabled=${page === 0} @click=${() => (this._page = page - 1)}>Previous page</button>
            <span>Page ${page + 1} of ${pages}</span>
            <button type="button" class="secondary" ?disabled=${page === pages - 1} @click=${() => (this._page = page + 1)}>Next page</button>
          </nav>`
        : nothing}`;
  }
}

/** A folder typed for uploads as a document id prefix: `guides` and `/guides/` give `guides/`; blank gives none. */
export function normalizeFolder(text: string): string {
  const segments = text
    .trim()
    .split('/')
    .map((segment) => segment.trim())
    .filter((segment) => segment !== '' && segment !== '.');
  return segments.length === 0 ? '' : `${segments.join('/')}/`;
}

/** A file name's extension, lower case, with its dot (`.pdf`); empty without one. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

function formatMegabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** A file's bytes in base64, read by the browser (a data: URL without its prefix). */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(new Error(`${file.name} could not be read`));
    reader.readAsDataURL(file);
  });
}
