import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient, parseOriginLines } from './console-client.ts';
import type { ConsoleToken, IssuedToken, KnowledgeBaseDetail, TokenList } from '../protocol/console-protocol.ts';
import { TOKEN_PURPOSES, TOKEN_STATUSES, VISIBILITIES, type TokenPurpose, type TokenStatus, type Visibility } from '../protocol/workspace-terms.ts';
import { confirmActions } from './confirm-actions.ts';
import { consoleStyles } from './console-styles.ts';
import { expressTokenEndpoint, serverlessTokenEndpoint, type TokenEndpointTarget } from './token-endpoint-code.ts';

/**
 * The Developers tab of a knowledge base (docs/console.md "Developers"): issue a
 * widget token, see it once with the ready-to-paste snippet, list the
 * knowledge base's tokens and revoke them.
 *
 * Editors and owners get the form "Allowed origins" (one per line, checked
 * here with the server's parser and again by the server, whose 400 detail is
 * shown), "Lifetime (minutes)" (60 preselected, at most the platform cap,
 * also checked here),
 * scope checkboxes (public checked) and "Issue token". The issued token is
 * shown once with its snippet (with a Copy button) and when it expires, and
 * the snippet's `tokenProvider` is explained. Under them, "Your site's token
 * endpoint" says plainly how long a token lasts at most (the knowledge
 * base's cap), hence that a site needs an endpoint handing out fresh ones,
 * and gives it ready to paste (token-endpoint-code.ts: Express, and a
 * serverless function for a static site), each with a Copy button.
 * Readers see the tab and the token list, but a sentence replaces the form.
 *
 * The token list is newest first, {@link TOKEN_PAGE_SIZE}
 * a page ("Previous page" / "Next page"), filtered by status, purpose and
 * origin (text within an allowed origin), each row naming its token by id
 * suffix, creation time and origins, which every control of the row
 * repeats in its accessible name ("Revoke embed token …a1b2, created
 * 2026-11-27 10:02, for https://docs.example.com"). "Revoke" asks for a
 * second click ("Confirm revoke" / "Cancel") and refreshes the page. In a
 * narrow column (a 360 px phone) the table reflows, one block per token.
 *
 * Below the form, editors and owners get a live preview of the widget
 * (`<kb-widget-preview>`) with the scope checked in the form: it runs on a
 * 10-minute preview token limited to the console's own origin, which the
 * list shows with the purpose "Preview" (customers' tokens: "Embed", the
 * demo page's: "Demo").
 *
 * @tagname kb-developers-tab
 * @summary Issue, preview, list and revoke widget tokens.
 */
export class KbDevelopersTab extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      .issued {
        border: 2px solid #26a269;
        border-radius: 6px;
        padding: 0.75rem 1rem;
        margin-block: 1rem;
      }
      .token-value {
        display: flex;
        gap: 0.5rem;
        align-items: center;
        flex-wrap: wrap;
      }
      .actions {
        display: flex;
        gap: 0.5rem;
        flex-wrap: wrap;
      }
      .filters {
        display: flex;
        flex-wrap: wrap;
        gap: 0 1rem;
        align-items: end;
      }
      .filters input[type='text'] {
        min-width: min(16rem, 100%);
      }
      .pages {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    knowledgeBase: { attribute: false },
    _tokens: { state: true },
    _filters: { state: true },
    _cursors: { state: true },
    _originsError: { state: true },
    _issueError: { state: true },
    _listError: { state: true },
    _issued: { state: true },
    _copied: { state: true },
    _confirming: { state: true },
    _busy: { state: true },
    _scope: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** The knowledge base, with the person's permissions and the lifetime cap. */
  declare knowledgeBase: KnowledgeBaseDetail | undefined;

  /** The page of tokens shown, newest first. */
  declare private _tokens: TokenList | undefined;
  /** Filters of the list, as chosen; empty = any. */
  declare private _filters: { status: TokenStatus | ''; purpose: TokenPurpose | ''; origin: string };
  /** Cursor of each page up to the one shown (undefined: the first): "Previous page" pops one. */
  declare private _cursors: (string | undefined)[];
  /** Serial of the latest list request: an answer to an older one is dropped. */
  private _listRequest = 0;
  declare private _originsError: string | undefined;
  declare private _issueError: string | undefined;
  declare private _listError: string | undefined;
  declare private _issued: IssuedToken | undefined;
  declare private _copied: 'copied' | 'failed' | undefined;
  /** Id of the token whose revocation awaits confirmation. */
  declare private _confirming: string | undefined;
  declare private _busy: boolean;
  /** Scope checked in the form, which the preview uses too. */
  declare private _scope: Visibility[];

  constructor() {
    super();
    this.client = new ConsoleClient();
    this._busy = false;
    this._scope = ['public'];
    this._filters = { status: '', purpose: '', origin: '' };
    this._cursors = [undefined];
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('knowledgeBase') && this.knowledgeBase) {
      this._issued = undefined;
      this._tokens = undefined;
      this._cursors = [undefined];
      void this.refreshTokens();
    }
  }

  /** Loads the page of tokens shown again, with the filters chosen. */
  async refreshTokens(): Promise<void> {
    const knowledgeBase = this.knowledgeBase;
    if (!knowledgeBase) return;
    const serial = ++this._listRequest;
    const { status, purpose, origin } = this._filters;
    const cursor = this._cursors.at(-1);
    try {
      const page = await this.client.listTokens(knowledgeBase.id, {
        limit: TOKEN_PAGE_SIZE,
        ...(status === '' ? {} : { status }),
        ...(purpose === '' ? {} : { purpose }),
        ...(origin === '' ? {} : { origin }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      if (serial !== this._listRequest) return;
      if (page.tokens.length === 0 && this._cursors.length > 1) {
        // The page emptied (its tokens revoked away by a filter, or purged): show the one before.
        this._cursors = this._cursors.slice(0, -1);
        await this.refreshTokens();
        return;
      }
      this._tokens = page;
      this._listError = undefined;
    } catch (error) {
      if (serial === this._listRequest) this._listError = `The tokens could not be loaded: ${(error as Error).message}`;
    }
  }

  /** Reads the filter controls and shows the first page of what matches. */
  private _applyFilters(event: Event): void {
    event.preventDefault();
    const form = (event.currentTarget as HTMLElement).closest('form')!;
    const data = new FormData(form);
    this._filters = {
      status: String(data.get('status') ?? '') as TokenStatus | '',
      purpose: String(data.get('purpose') ?? '') as TokenPurpose | '',
      origin: String(data.get('origin') ?? '').trim(),
    };
    this._cursors = [undefined];
    this._confirming = undefined;
    void this.refreshTokens();
  }

  private _showNextPage(): void {
    const next = this._tokens?.next_cursor;
    if (next === undefined) return;
    this._cursors = [...this._cursors, next];
    this._confirming = undefined;
    void this.refreshTokens();
  }

  private _showPreviousPage(): void {
    if (this._cursors.length <= 1) return;
    this._cursors = this._cursors.slice(0, -1);
    this._confirming = undefined;
    void this.refreshTokens();
  }

  private _checkOrigins(event: Event): void {
    const text = (event.currentTarget as HTMLTextAreaElement).value;
    const parsed = parseOriginLines(text);
    this._originsError = parsed.ok || text.trim() === '' ? undefined : parsed.message;
  }

  private _readScope(event: Event): void {
    const fieldset = event.currentTarget as HTMLFieldSetElement;
    this._scope = [...fieldset.querySelectorAll<HTMLInputElement>('input[name="scope"]:checked')].map((input) => input.value as Visibility);
  }

  private async _issueToken(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const knowledgeBase = this.knowledgeBase;
    if (!knowledgeBase) return;
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    this._issueError = undefined;
    const origins = parseOriginLines(String(data.get('allowed_origins') ?? ''));
    if (!origins.ok) {
      this._originsError = origins.message;
      form.querySelector<HTMLTextAreaElement>('#allowed-origins')?.focus();
      return;
    }
    this._originsError = undefined;
    const ttlMinutes = Number(data.get('ttl_minutes'));
    const cap = knowledgeBase.token_ttl_cap_minutes;
    if (!Number.isInteger(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > cap) {
      this._issueError = `Lifetime must be a whole number of minutes from 1 to ${cap}; "${String(data.get('ttl_minutes') ?? '')}" is not.`;
      return;
    }
    const scope = data.getAll('scope').map(String) as Visibility[];
    if (scope.length === 0) {
      this._issueError = 'Choose at least one scope.';
      return;
    }
    this._busy = true;
    try {
      this._issued = await this.client.issueToken(knowledgeBase.id, {
        allowed_origins: origins.origins,
        ttl_minutes: ttlMinutes,
        scope,
      });
      this._copied = undefined;
      // The new token is the newest: show the first page.
      this._cursors = [undefined];
      await this.refreshTokens();
    } catch (error) {
      this._issueError = `The token was not issued: ${(error as Error).message}`;
    } finally {
      this._busy = false;
    }
  }

  private async _copyToken(): Promise<void> {
    if (!this._issued) return;
    try {
      await navigator.clipboard.writeText(this._issued.token);
      this._copied = 'copied';
    } catch {
      this._copied = 'failed';
    }
  }

  private async _revokeToken(tokenId: string): Promise<void> {
    const knowledgeBase = this.knowledgeBase;
    if (!knowledgeBase) return;
    this._busy = true;
    try {
      await this.client.revokeToken(knowledgeBase.id, tokenId);
      this._confirming = undefined;
      if (this._issued?.id === tokenId) this._issued = undefined;
      await this.refreshTokens();
    } catch (error) {
      this._listError = `The token was not revoked: ${(error as Error).message}`;
    } finally {
      this._busy = false;
    }
  }

  private _renderForm(knowledgeBase: KnowledgeBaseDetail) {
    if (!knowledgeBase.can_issue_tokens) {
      return html`<p class="readers-note">
        Issuing and revoking tokens needs the editor or owner role; your role on this knowledge base is ${knowledgeBase.role}.
      </p>`;
    }
    const cap = knowledgeBase.token_ttl_cap_minutes;
    const preset = Math.min(60, cap);
    return html`
      <form @submit=${this._issueToken} novalidate>
        <h3>Issue a token</h3>
        <label for="allowed-origins">Allowed origins</label>
        <p class="hint" id="origins-hint">One origin per line, such as https://shop.example.com or https://*.example.com.</p>
        <textarea
          id="allowed-origins"
          name="allowed_origins"
          rows="3"
          aria-describedby="origins-hint origins-error"
          aria-invalid=${this._originsError ? 'true' : 'false'}
          @change=${this._checkOrigins}
        ></textarea>
        <p id="origins-error" class="error">${this._originsError ?? nothing}</p>
        <label for="ttl-minutes">Lifetime (minutes)</label>
        <input id="ttl-minutes" name="ttl_minutes" type="number" min="1" max=${cap} step="1" .value=${String(preset)} required aria-describedby="ttl-hint" />
        <p class="hint" id="ttl-hint">At most ${cap} minutes.</p>
        <fieldset @change=${this._readScope}>
          <legend>Scope</legend>
          ${VISIBILITIES.map(
            (visibility) => html`<span
              ><input type="checkbox" id="scope-${visibility}" name="scope" value=${visibility} ?checked=${this._scope.includes(visibility)} /><label
                for="scope-${visibility}"
                >${visibility}</label
              ></span
            >`,
          )}
        </fieldset>
        <div role="alert" class="error">${this._issueError ? html`<p>${this._issueError}</p>` : nothing}</div>
        <p><button type="submit" ?disabled=${this._busy}>Issue token</button></p>
      </form>
    `;
  }

  private _renderIssued(issued: IssuedToken) {
    return html`
      <section class="issued" aria-labelledby="issued-heading">
        <h3 id="issued-heading">Your new token</h3>
        <p>Copy it now: it is shown only once.</p>
        <div class="token-value">
          <code class="token">${issued.token}</code>
          <button type="button" class="secondary" @click=${this._copyToken}>Copy</button>
          <span role="status">${this._copied === 'copied' ? 'Copied' : this._copied === 'failed' ? 'Copy failed: select the token and copy it by hand' : ''}</span>
        </div>
        <p id="expiry-note">
          This token expires at ${formatTime(issued.expires_at)}, ${lifetimeMinutes(issued)} minutes after it was issued; then the widget
          stops answering unless it gets a fresh one. The snippet therefore sets the widget's <code>tokenProvider</code>, which the widget
          calls when its token has expired: have your back end issue a token for each page view (the <code>kb token issue</code> command or
          the console API) and serve it at <code>/kb-widget-token</code> on your site, or change that URL in the snippet.
        </p>
        <p>Paste this snippet into a page served from an allowed origin:</p>
        <kb-copyable-text label="Copy snippet"><pre class="snippet" aria-describedby="expiry-note">${issued.snippet}</pre></kb-copyable-text>
      </section>
    `;
  }

  private _renderTokenEndpoint(knowledgeBase: KnowledgeBaseDetail) {
    const cap = knowledgeBase.token_ttl_cap_minutes;
    const target: TokenEndpointTarget = {
      serviceOrigin: location.origin,
      kbId: knowledgeBase.id,
      siteOrigin: this._issued?.allowed_origins[0] ?? 'https://www.example.com',
      ttlMinutes: Math.min(60, cap),
    };
    return html`
      <section aria-labelledby="endpoint-heading">
        <h3 id="endpoint-heading">Your site's token endpoint</h3>
        <p id="token-lifetime">
          A widget token lasts at most ${cap} minutes (${target.ttlMinutes} unless you choose another lifetime), so a token pasted into a page
          stops working. Your site needs a small token endpoint: <code>GET /kb-widget-token</code>, which the snippet's
          <code>tokenProvider</code> asks for a fresh token. Paste one of these into your site, with the email and password of
          an editor of this knowledge base (a member kept for it) in the site's environment as <code>KB_EMAIL</code> and
          <code>KB_PASSWORD</code>, never in a page. It reuses each token until 10 minutes before it expires.
        </p>
        <h4>Express</h4>
        <kb-copyable-text label="Copy Express endpoint"><pre class="endpoint">${expressTokenEndpoint(target)}</pre></kb-copyable-text>
        <h4>Serverless function, for a static site (Netlify)</h4>
        <kb-copyable-text label="Copy serverless function"><pre class="endpoint">${serverlessTokenEndpoint(target)}</pre></kb-copyable-text>
      </section>
    `;
  }

  private _renderFilters() {
    const { status, purpose, origin } = this._filters;
    return html`
      <form class="filters" role="search" aria-label="Filter tokens" @submit=${this._applyFilters}>
        <span>
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status" @change=${this._applyFilters}>
            <option value="" ?selected=${status === ''}>Any</option>
            ${TOKEN_STATUSES.map((value) => html`<option value=${value} ?selected=${status === value}>${value}</option>`)}
          </select>
        </span>
        <span>
          <label for="filter-purpose">Purpose</label>
          <select id="filter-purpose" name="purpose" @change=${this._applyFilters}>
            <option value="" ?selected=${purpose === ''}>Any</option>
            ${TOKEN_PURPOSES.map((value) => html`<option value=${value} ?selected=${purpose === value}>${PURPOSE_LABELS[value]}</option>`)}
          </select>
        </span>
        <span>
          <label for="filter-origin">Origin contains</label>
          <input id="filter-origin" name="origin" type="text" .value=${origin} placeholder="docs.example.com" @change=${this._applyFilters} />
        </span>
        <span><button type="submit" class="secondary">Filter</button></span>
      </form>
    `;
  }

  private _renderPages(page: TokenList) {
    const first = (this._cursors.length - 1) * TOKEN_PAGE_SIZE + 1;
    const last = first + page.tokens.length - 1;
    const hasPrevious = this._cursors.length > 1;
    const hasNext = page.next_cursor !== undefined;
    return html`<nav class="pages" aria-label="Token pages">
      <span>Tokens ${first}–${last} of ${page.total}, newest first</span>
      ${hasPrevious || hasNext
        ? html`<button type="button" class="secondary" ?disabled=${!hasPrevious} @click=${this._showPreviousPage}>Previous page</button>
            <button type="button" class="secondary" ?disabled=${!hasNext} @click=${this._showNextPage}>Next page</button>`
        : nothing}
    </nav>`;
  }

  private _renderTokens(canRevoke: boolean) {
    const page = this._tokens;
    if (page === undefined) return html`<p>Loading tokens…</p>`;
    const { status, purpose, origin } = this._filters;
    const filtered = status !== '' || purpose !== '' || origin !== '';
    if (page.tokens.length === 0) return html`${this._renderFilters()}<p>${filtered ? 'No tokens match these filters.' : 'No tokens yet.'}</p>`;
    return html`
      ${this._renderFilters()}
      <table class="reflow">
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col">Purpose</th>
            <th scope="col">Created</th>
            <th scope="col">Allowed origins</th>
            <th scope="col">Scope</th>
            <th scope="col">Issuer</th>
            <th scope="col">Expires</th>
            <th scope="col">Last use</th>
            <th scope="col">Status</th>
            ${canRevoke ? html`<th scope="col">Actions</th>` : nothing}
          </tr>
        </thead>
        <tbody>
          ${page.tokens.map(
            (token) => html`
              <tr data-token-id=${token.id}>
                <td data-label="Token"><code>${idSuffix(token)}</code></td>
                <td data-label="Purpose">${PURPOSE_LABELS[token.purpose]}</td>
                <td data-label="Created">${formatTime(token.created_at)}</td>
                <td data-label="Allowed origins">${originsText(token)}</td>
                <td data-label="Scope">${token.scope.join(', ')}</td>
                <td data-label="Issuer">${token.issuer}</td>
                <td data-label="Expires">${formatTime(token.expires_at)}</td>
                <td data-label="Last use">${token.last_used_at ? formatTime(token.last_used_at) : 'never'}</td>
                <td data-label="Status">${token.status}</td>
                ${canRevoke ? html`<td data-label="Actions">${token.status === 'active' ? this._renderRevoke(token) : nothing}</td>` : nothing}
              </tr>
            `,
          )}
        </tbody>
      </table>
      ${this._renderPages(page)}
    `;
  }

  private _renderRevoke(token: ConsoleToken) {
    const what = tokenName(token);
    if (this._confirming !== token.id) {
      return html`<button type="button" class="secondary" aria-label="Revoke ${what}" @click=${() => (this._confirming = token.id)}>
        Revoke
      </button>`;
    }
    return confirmActions({
      verb: 'revoke',
      doing: 'revoking',
      target: what,
      busy: this._busy,
      confirm: () => void this._revokeToken(token.id),
      cancel: () => (this._confirming = undefined),
    });
  }

  override render() {
    const knowledgeBase = this.knowledgeBase;
    if (!knowledgeBase) return nothing;
    return html`
      <h2>Developers</h2>
      <p>Widget tokens let a page on an allowed origin embed <code>&lt;kb-widget&gt;</code> for this knowledge base.</p>
      ${this._renderForm(knowledgeBase)} ${this._issued ? this._renderIssued(this._issued) : nothing}
      ${knowledgeBase.can_issue_tokens ? this._renderTokenEndpoint(knowledgeBase) : nothing}
      ${knowledgeBase.can_issue_tokens
        ? html`<kb-widget-preview
            .client=${this.client}
            kb-id=${knowledgeBase.id}
            .scope=${this._scope}
            @kb-console-preview-token-issued=${this.refreshTokens}
          ></kb-widget-preview>`
        : nothing}
      <h3>Tokens</h3>
      <div role="alert" class="error">${this._listError ? html`<p>${this._listError}</p>` : nothing}</div>
      ${this._renderTokens(knowledgeBase.can_issue_tokens)}
    `;
  }
}

/** Tokens a page of the list holds. */
export const TOKEN_PAGE_SIZE = 20;

/** How the list names each purpose. */
const PURPOSE_LABELS: Readonly<Record<TokenPurpose, string>> = { embed: 'Embed', preview: 'Preview', demo: 'Demo' };

/**
 * A time as the list shows it, in the person's time zone to the minute:
 * `2026-11-27 10:02` (short enough for a narrow column, unambiguous in any
 * locale).
 */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** The last 4 characters of a token's id, after an ellipsis (`…a1b2`): enough to tell a page's tokens apart. */
function idSuffix(token: ConsoleToken): string {
  return `…${token.id.slice(-4)}`;
}

function originsText(token: ConsoleToken): string {
  return token.allowed_origins.length === 0 ? 'none (server calls only)' : token.allowed_origins.join(', ');
}

/**
 * What a row's controls call its token: purpose, id suffix, creation time
 * and origins (`embed token …a1b2, created 2026-11-27 10:02, for
 * https://docs.example.com`), so two tokens for the same site differ.
 */
export function tokenName(token: ConsoleToken): string {
  const origins = token.allowed_origins.length === 0 ? 'server calls only' : token.allowed_origins.join(', ');
  return `${token.purpose} token ${idSuffix(token)}, created ${formatTime(token.created_at)}, for ${origins}`;
}

/** The lifetime of an issued token, in whole minutes. */
function lifetimeMinutes(token: ConsoleToken): number {
  return Math.round((Date.parse(token.expires_at) - Date.parse(token.created_at)) / 60_000);
}
