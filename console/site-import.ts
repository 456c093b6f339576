import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { ConsoleMember, ImportJob, ImportSource } from '../protocol/console-protocol.ts';
import { VISIBILITIES, type Visibility } from '../protocol/workspace-terms.ts';
import { consoleStyles } from './console-styles.ts';

/** How often a running import is asked for its progress, milliseconds. */
const POLL_MS = 1000;

/** The re-sync intervals offered, hours (0: import once). */
const RESYNC_CHOICES: readonly { hours: number; label: string }[] = [
  { hours: 0, label: 'Never (import once)' },
  { hours: 24, label: 'Every day' },
  { hours: 168, label: 'Every week' },
];

/**
 * "Import from a website", in the Documents tab of editors and owners: pages
 * of one site (and the pages they link to below their folder) or a
 * sitemap, with the pages' visibility, readers and quotability and the
 * crawl's limits. The import runs on the server as a job; this form follows
 * it - fetching, then a progress bar while the pages are indexed - and says
 * what it did: pages created, updated, unchanged, removed, skipped and
 * failed, each skipped or failed page with its reason. The last imports of
 * the knowledge base are listed below, with who started them.
 *
 * An import may be set to run again every day or week: it becomes a
 * re-synced website, listed under the form with its next sync and how the
 * last one went, which can be synced now or stopped (its documents stay).
 *
 * @fires documents-changed - when an import has ended, so the document list reloads
 * @tagname kb-site-import
 * @summary Import a website into the knowledge base, as a server-side job.
 */
export class KbSiteImport extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      form {
        border: 1px solid #c4c8d0;
        border-radius: 6px;
        padding: 0 1rem 1rem;
        margin-block: 1rem;
      }
      textarea {
        inline-size: min(40rem, 100%);
      }
      progress {
        inline-size: min(24rem, 100%);
      }
      ul.outcome,
      ul.sources {
        padding-inline-start: 1.25rem;
      }
      ul.sources li {
        margin-block: 0.5rem;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    members: { attribute: false },
    _kind: { state: true },
    _visibility: { state: true },
    _jobs: { state: true },
    _sources: { state: true },
    _current: { state: true },
    _error: { state: true },
    _notice: { state: true },
    _busy: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** Knowledge base the pages are imported into. */
  declare kbId: string;
  /** Members, the possible readers of restricted pages. */
  declare members: ConsoleMember[];
  declare private _kind: 'pages' | 'sitemap';
  declare private _visibility: Visibility;
  /** The knowledge base's last imports, newest first. */
  declare private _jobs: ImportJob[];
  /** The knowledge base's re-synced websites, by next sync. */
  declare private _sources: ImportSource[];
  /** The import this form started and follows. */
  declare private _current: ImportJob | undefined;
  declare private _error: string | undefined;
  /** What the last action on a re-synced website did. */
  declare private _notice: string | undefined;
  declare private _busy: boolean;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
    this.members = [];
    this._kind = 'pages';
    this._visibility = 'public';
    this._jobs = [];
    this._sources = [];
    this._busy = false;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('kbId') && this.kbId !== '') void this._loadJobs();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#timer);
  }

  private async _loadJobs(): Promise<void> {
    try {
      [this._jobs, this._sources] = await Promise.all([this.client.listImports(this.kbId), this.client.listImportSources(this.kbId)]);
    } catch (error) {
      this._error = `The imports could not be loaded: ${(error as Error).message}`;
    }
  }

  /** Starts a re-synced website's sync now and follows it like an import started here. */
  private async _syncNow(source: ImportSource): Promise<void> {
    this._busy = true;
    this._error = undefined;
    try {
      this._current = await this.client.syncImportSource(this.kbId, source.id);
      this._follow();
    } catch (error) {
      this._error = `The sync was not started: ${(error as Error).message}`;
      this._busy = false;
    }
  }

  private async _stop(source: ImportSource): Promise<void> {
    this._error = undefined;
    try {
      await this.client.stopImportSource(this.kbId, source.id);
      this._sources = this._sources.filter((listed) => listed.id !== source.id);
      this._notice = `${source.urls[0]} is no longer re-synced; its documents stay.`;
    } catch (error) {
      this._error = `The re-sync was not stopped: ${(error as Error).message}`;
    }
  }

  private async _start(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const urls = (form.elements.namedItem('urls') as HTMLTextAreaElement).value
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (urls.length === 0) {
      this._error = this._kind === 'sitemap' ? 'Enter the sitemap’s URL.' : 'Enter at least one page URL.';
      return;
    }
    const readers = [...form.querySelectorAll<HTMLInputElement>('input[name="import-reader"]:checked')].map((input) => input.value);
    const maxPages = Number((form.elements.namedItem('max-pages') as HTMLInputElement).value);
    const maxDepthInput = form.elements.namedItem('max-depth') as HTMLInputElement | null;
    const maxDepth = maxDepthInput === null ? Number.NaN : Number(maxDepthInput.value);
    const resyncHours = Number((form.elements.namedItem('resync') as HTMLSelectElement).value);
    this._busy = true;
    this._notice = undefined;
    this._error = undefined;
    try {
      this._current = await this.client.startImport(this.kbId, {
        kind: this._kind,
        urls,
        visibility: this._visibility,
        ...(this._visibility === 'restricted' ? { readers } : {}),
        quotable: (form.elements.namedItem('import-quotable') as HTMLInputElement).checked,
        ...(Number.isInteger(maxPages) && maxPages > 0 ? { max_pages: maxPages } : {}),
        ...(this._kind === 'pages' && Number.isInteger(maxDepth) && maxDepth >= 0 ? { max_depth: maxDepth } : {}),
        ...(resyncHours > 0 ? { resync_hours: resyncHours } : {}),
      });
      if (resyncHours > 0) void this._loadJobs();
      this._follow();
    } catch (error) {
      this._error = `The import was not started: ${(error as Error).message}`;
      this._busy = false;
    }
  }

  /** Asks for the followed import's progress until it ends. */
  private _follow(): void {
    this.#timer = setTimeout(async () => {
      const current = this._current;
      if (!current) return;
      try {
        this._current = await this.client.getImport(this.kbId, current.id);
      } catch (error) {
        this._error = `The import's progress could not be read: ${(error as Error).message}`;
      }
      if (this._current?.status === 'running') return this._follow();
      this._busy = false;
      await this._loadJobs();
      this.dispatchEvent(new CustomEvent('documents-changed', { bubbles: true, composed: true }));
    }, POLL_MS);
  }

  private _renderProgress(job: ImportJob) {
    if (job.status === 'running') {
      const { progress } = job;
      return progress.phase === 'crawling' || progress.total === undefined
        ? html`<p role="status">Fetching the pages of ${job.urls[0]}…</p>`
        : html`<p>
            <label for="import-progress">Indexing page ${Math.min(progress.done + 1, progress.total)} of ${progress.total}${progress.url ? html`: ${progress.url}` : nothing}</label>
            <progress id="import-progress" max=${progress.total} value=${progress.done}></progress>
          </p>`;
    }
    if (job.status === 'failed') return html`<p role="status" class="error">The import failed: ${job.error}</p>`;
    const result = job.result!;
    const count = (ids: readonly unknown[], word: string) => `${ids.length} ${word}`;
    return html`<div role="status">
      <p>
        Imported from ${result.site}: ${count(result.created, 'created')}, ${count(result.updated, 'updated')}, ${count(result.unchanged, 'unchanged')},
        ${count(result.removed, 'removed')}, ${count(result.skipped, 'skipped')}, ${count(result.failed, 'failed')}.${result.truncated
          ? ' A limit stopped the import before every page was read.'
          : ''}
      </p>
      ${result.skipped.length + result.failed.length === 0
        ? nothing
        : html`<ul class="outcome" aria-label="Pages not imported">
            ${result.failed.map((failure) => html`<li class="error">${failure.url}: failed (${failure.reason})</li>`)}
            ${result.skipped.map((skip) => html`<li>${skip.url}: skipped (${skip.reason})</li>`)}
          </ul>`}
    </div>`;
  }

  override render() {
    return html`<form @submit=${this._start} aria-labelledby="import-heading">
      <h3 id="import-heading">Import from a website</h3>
      <fieldset>
        <legend>What to import</legend>
        <span
          ><input type="radio" id="import-kind-pages" name="import-kind" value="pages" ?checked=${this._kind === 'pages'} @change=${() => (this._kind = 'pages')} /><label
            for="import-kind-pages"
            >Pages and the pages they link to</label
          ></span
        >
        <span
          ><input type="radio" id="import-kind-sitemap" name="import-kind" value="sitemap" ?checked=${this._kind === 'sitemap'} @change=${() => (this._kind = 'sitemap')} /><label
            for="import-kind-sitemap"
            >A sitemap</label
          ></span
        >
      </fieldset>
      <label for="import-urls">${this._kind === 'sitemap' ? 'Sitemap URL' : 'Page URLs (one per line, one site)'}</label>
      <textarea id="import-urls" name="urls" rows=${this._kind === 'sitemap' ? 1 : 3} placeholder=${this._kind === 'sitemap' ? 'https://docs.example.com/sitemap.xml' : 'https://docs.example.com/guide/'}></textarea>
      <p class="hint">Pages are read as a crawler reads them, obeying the site's robots.txt; each becomes a document keeping its URL, and importing again updates what changed and removes pages that are gone.</p>
      <label for="import-max-pages">Most pages</label>
      <input id="import-max-pages" name="max-pages" type="number" min="1" max="500" value="500" />
      ${this._kind === 'pages'
        ? html`<label for="import-max-depth">Links followed (hops from the pages given; 0: only them)</label>
            <input id="import-max-depth" name="max-depth" type="number" min="0" max="10" value="3" />`
        : nothing}
      <label for="import-visibility">Visibility</label>
      <select id="import-visibility" @change=${(event: Event) => (this._visibility = (event.currentTarget as HTMLSelectElement).value as Visibility)}>
        ${VISIBILITIES.map((visibility) => html`<option value=${visibility} ?selected=${visibility === this._visibility}>${visibility}</option>`)}
      </select>
      ${this._visibility === 'restricted'
        ? html`<fieldset>
            <legend>Readers</legend>
            ${this.members.map(
              (member) => html`<span
                ><input type="checkbox" name="import-reader" id="import-reader-${member.user_id}" value=${member.user_id} /><label for="import-reader-${member.user_id}"
                  >${member.email}</label
                ></span
              >`,
            )}
          </fieldset>`
        : nothing}
      <p><input id="import-quotable" name="import-quotable" type="checkbox" checked /><label for="import-quotable" class="inline">Passages may be quoted</label></p>
      <label for="import-resync">Import again</label>
      <select id="import-resync" name="resync" aria-describedby="import-resync-hint">
        ${RESYNC_CHOICES.map((choice) => html`<option value=${choice.hours}>${choice.label}</option>`)}
      </select>
      <p class="hint" id="import-resync-hint">A re-sync asks the site only for what changed since the last one and removes pages that are gone.</p>
      <button type="submit" ?disabled=${this._busy}>Import</button>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      ${this._current ? this._renderProgress(this._current) : nothing}
      ${this._jobs.length === 0
        ? nothing
        : html`<details>
            <summary>Last imports</summary>
            <ul>
              ${this._jobs.map(
                (job) =>
                  html`<li>${job.started_at.slice(0, 16).replace('T', ' ')}: ${job.urls.join(', ')}${job.source_id === undefined ? '' : ' (re-sync)'} by ${job.started_by} - ${job.status === 'succeeded'
                      ? `${job.result!.created.length + job.result!.updated.length} pages new or updated, ${job.result!.removed.length} removed${job.result!.hidden
                          ? `, and ${job.result!.hidden} documents you cannot read`
                          : ''}`
                      : job.status === 'failed'
                        ? `failed (${job.error})`
                        : 'running'}</li>`,
              )}
            </ul>
          </details>`}
    </form>
    ${this._renderSources()}`;
  }

  private _renderSources() {
    if (this._sources.length === 0 && this._notice === undefined) return nothing;
    const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');
    const every = (hours: number) => (hours === 24 ? 'every day' : hours === 168 ? 'every week' : `every ${hours} hours`);
    return html`<section aria-labelledby="sources-heading">
      <h3 id="sources-heading">Re-synced websites</h3>
      <p role="status">${this._notice ?? nothing}</p>
      ${this._sources.length === 0
        ? nothing
        : html`<ul class="sources">
            ${this._sources.map((source) => {
              const last = source.last_sync;
              const site = source.urls.join(', ');
              return html`<li>
                <strong>${site}</strong> (${source.kind === 'sitemap' ? 'sitemap' : 'pages'}), ${every(source.resync_hours)}, set up by ${source.created_by}.
                Next sync ${when(source.next_sync_at)} UTC.
                ${last === undefined
                  ? 'Not synced yet.'
                  : last.status === 'failed'
                    ? html`<span class="error">Last sync ${when(last.finished_at)} failed: ${last.error}</span>`
                    : `Last sync ${when(last.finished_at)}: ${last.created ?? 0} created, ${last.updated ?? 0} updated, ${last.unchanged ?? 0} unchanged, ${last.removed ?? 0} removed, ${last.failed ?? 0} failed.`}
                <button type="button" ?disabled=${this._busy} aria-label="Sync now: ${site}" @click=${() => this._syncNow(source)}>Sync now</button>
                <button type="button" aria-label="Stop re-syncing ${site}" @click=${() => this._stop(source)}>Stop re-syncing</button>
              </li>`;
            })}
          </ul>`}
    </section>`;
  }
}
