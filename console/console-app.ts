import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { ConsoleUser, KnowledgeBaseSummary } from '../protocol/console-protocol.ts';
import { consoleStyles } from './console-styles.ts';
import { KB_TABS, type KbTab } from './kb-view.ts';

/** Where the console is, read from the URL fragment. */
export type ConsoleRoute =
  | { page: 'knowledge-bases' }
  | { page: 'knowledge-base'; kbId: string; tab: KbTab; question?: string }
  | { page: 'set-password'; token: string };

/**
 * Reads a console address: `#/` (or nothing) is the list of knowledge bases,
 * `#/kb/{kbId}` and `#/kb/{kbId}/{tab}` one knowledge base (tab Documents
 * when missing or unknown); `?question=…` after the tab carries a question
 * to the Curated answers tab (`#/kb/docs/answers?question=…`);
 * `#/set-password/{token}` the page of a set-password link (the secret stays
 * in the fragment, which no request carries).
 */
export function parseConsoleRoute(hash: string): ConsoleRoute {
  const setPassword = /^#\/set-password\/([A-Za-z0-9_-]+)$/.exec(hash);
  if (setPassword) return { page: 'set-password', token: setPassword[1]! };
  const match = /^#\/kb\/([^/?]+)(?:\/([a-z]+))?\/?(?:\?(.*))?$/.exec(hash);
  if (!match) return { page: 'knowledge-bases' };
  const tab = KB_TABS.find((candidate) => candidate.tab === match[2])?.tab ?? 'documents';
  let kbId: string;
  try {
    kbId = decodeURIComponent(match[1] ?? '');
  } catch {
    return { page: 'knowledge-bases' };
  }
  const question = new URLSearchParams(match[3] ?? '').get('question')?.trim();
  return { page: 'knowledge-base', kbId, tab, ...(question ? { question } : {}) };
}

/**
 * The console page served at `/console`: sign-in when nobody is signed in,
 * then the knowledge bases the person can see, and one knowledge base with
 * its tabs. Addresses live in the URL fragment (`#/kb/docs/developers`), so
 * the server serves one page and the back button works. A set-password
 * link's page (`#/set-password/…`) is shown whoever is signed in; once the
 * password is set, the link leaves the address (and the history) and the
 * new person's knowledge bases are shown.
 *
 * @tagname kb-console-app
 * @summary The console: sign-in, knowledge bases, a knowledge base's tabs.
 */
export class KbConsoleApp extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      :host {
        max-width: 72rem;
        margin: 0 auto;
        padding: 1rem 1.5rem;
      }
      header {
        display: flex;
        justify-content: space-between;
        align-items: center;
        gap: 1rem;
        border-bottom: 1px solid #c4c8d0;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    _user: { state: true },
    _signedIn: { state: true },
    _knowledgeBases: { state: true },
    _route: { state: true },
    _error: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  declare private _user: ConsoleUser | undefined;
  /** `unknown` until the session has been asked for. */
  declare private _signedIn: 'unknown' | 'yes' | 'no';
  declare private _knowledgeBases: KnowledgeBaseSummary[] | undefined;
  declare private _route: ConsoleRoute;
  declare private _error: string | undefined;

  #onHashChange = (): void => {
    this._route = parseConsoleRoute(location.hash);
  };

  constructor() {
    super();
    this.client = new ConsoleClient();
    this._signedIn = 'unknown';
    this._route = { page: 'knowledge-bases' };
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this._route = parseConsoleRoute(location.hash);
    window.addEventListener('hashchange', this.#onHashChange);
    void this._loadSession();
  }

  override disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.#onHashChange);
    super.disconnectedCallback();
  }

  private async _loadSession(): Promise<void> {
    try {
      this._user = await this.client.currentUser();
      this._signedIn = this._user ? 'yes' : 'no';
      this._error = undefined;
      if (this._user) this._knowledgeBases = await this.client.listKnowledgeBases();
    } catch (error) {
      this._error = `The console could not load: ${(error as Error).message}`;
    }
  }

  private async _passwordSet(): Promise<void> {
    history.replaceState(null, '', '#/');
    this._route = { page: 'knowledge-bases' };
    await this._loadSession();
  }

  private async _signOut(): Promise<void> {
    try {
      await this.client.signOut();
    } finally {
      this._user = undefined;
      this._knowledgeBases = undefined;
      this._signedIn = 'no';
    }
  }

  private _renderKnowledgeBases() {
    if (this._knowledgeBases === undefined) return html`<p>Loading…</p>`;
    return html`
      <h1>Knowledge bases</h1>
      ${this._knowledgeBases.length === 0
        ? html`<p>You are not a member of any knowledge base yet.</p>`
        : html`<ul>
            ${this._knowledgeBases.map(
              (knowledgeBase) => html`<li>
                <a href="#/kb/${encodeURIComponent(knowledgeBase.id)}">${knowledgeBase.name}</a> (${knowledgeBase.role})
              </li>`,
            )}
          </ul>`}
    `;
  }

  override render() {
    const error = html`<div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>`;
    if (this._route.page === 'set-password') {
      return html`<kb-set-password-page .client=${this.client} token=${this._route.token} @kb-console-signed-in=${this._passwordSet}></kb-set-password-page>`;
    }
    if (this._signedIn === 'unknown') return html`${error}${this._error ? nothing : html`<p>Loading…</p>`}`;
    if (this._signedIn === 'no') {
      return html`${error}<kb-sign-in-page .client=${this.client} @kb-console-signed-in=${this._loadSession}></kb-sign-in-page>`;
    }
    const route = this._route;
    return html`
      <header>
        <p><a href="#/">kb-widget console</a></p>
        <p>${this._user?.email} <button type="button" class="secondary" @click=${this._signOut}>Sign out</button></p>
      </header>
      ${error}
      <main>
        ${route.page === 'knowledge-base'
          ? html`<kb-knowledge-base-view .client=${this.client} kb-id=${route.kbId} tab=${route.tab} .question=${route.question}></kb-knowledge-base-view>`
          : this._renderKnowledgeBases()}
      </main>
    `;
  }
}
