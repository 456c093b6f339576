import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient, parseOriginLines } from './console-client.ts';
import type { ConsoleToken, IssuedToken, KnowledgeBaseDetail } from '../protocol/console-protocol.ts';
import { VISIBILITIES, type Visibility } from '../protocol/workspace-terms.ts';
import { consoleStyles } from './console-styles.ts';

/**
 * The Developers tab of a knowledge base (issue 4, SPEC.md 5): issue a
 * widget token, see it once with the ready-to-paste snippet, list the
 * knowledge base's tokens and revoke them.
 *
 * Editors and owners get the form "Allowed origins" (one per line, checked
 * here with the server's parser and again by the server, whose 400 detail is
 * shown), "Lifetime (minutes)" (60 preselected, at most the platform cap,
 * also checked here),
 * scope checkboxes (public checked) and "Issue token". Readers see the tab
 * and the token list, but a sentence replaces the form. "Revoke" asks for a
 * second click ("Confirm revoke" / "Cancel") and refreshes the list.
 *
 * Below the form, editors and owners get a live preview of the widget
 * (`<kb-widget-preview>`) with the scope checked in the form: it runs on a
 * 10-minute preview token limited to the console's own origin, which the
 * list shows with the purpose "Preview" (customers' tokens: "Embed").
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
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    knowledgeBase: { attribute: false },
    _tokens: { state: true },
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

  declare private _tokens: ConsoleToken[] | undefined;
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
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('knowledgeBase') && this.knowledgeBase) {
      this._issued = undefined;
      this._tokens = undefined;
      void this.refreshTokens();
    }
  }

  /** Loads the token list again. */
  async refreshTokens(): Promise<void> {
    const knowledgeBase = this.knowledgeBase;
    if (!knowledgeBase) return;
    try {
      this._tokens = await this.client.listTokens(knowledgeBase.id);
      this._listError = undefined;
    } catch (error) {
      this._listError = `The tokens could not be loaded: ${(error as Error).message}`;
    }
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
        <p>Paste this snippet into a page served from an allowed origin:</p>
        <pre class="snippet">${issued.snippet}</pre>
      </section>
    `;
  }

  private _renderTokens(canRevoke: boolean) {
    if (this._tokens === undefined) return html`<p>Loading tokens…</p>`;
    if (this._tokens.length === 0) return html`<p>No tokens yet.</p>`;
    return html`
      <table>
        <thead>
          <tr>
            <th scope="col">Purpose</th>
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
          ${this._tokens.map(
            (token) => html`
              <tr data-token-id=${token.id}>
                <td>${token.purpose === 'preview' ? 'Preview' : 'Embed'}</td>
                <td>${token.allowed_origins.join(', ')}</td>
                <td>${token.scope.join(', ')}</td>
                <td>${token.issuer}</td>
                <td>${formatTime(token.expires_at)}</td>
                <td>${token.last_used_at ? formatTime(token.last_used_at) : 'never'}</td>
                <td>${token.status}</td>
                ${canRevoke ? html`<td>${token.status === 'active' ? this._renderRevoke(token) : nothing}</td>` : nothing}
              </tr>
            `,
          )}
        </tbody>
      </table>
    `;
  }

  private _renderRevoke(token: ConsoleToken) {
    const what = `${token.purpose === 'preview' ? 'preview token' : 'token'} for ${token.allowed_origins.join(', ')}`;
    if (this._confirming !== token.id) {
      return html`<button type="button" class="secondary" aria-label="Revoke ${what}" @click=${() => (this._confirming = token.id)}>
        Revoke
      </button>`;
    }
    return html`<span class="actions">
      <button type="button" ?disabled=${this._busy} aria-label="Confirm revoke ${what}" @click=${() => this._revokeToken(token.id)}>
        Confirm revoke
      </button>
      <button type="button" class="secondary" @click=${() => (this._confirming = undefined)}>Cancel</button>
    </span>`;
  }

  override render() {
    const knowledgeBase = this.knowledgeBase;
    if (!knowledgeBase) return nothing;
    return html`
      <h2>Developers</h2>
      <p>Widget tokens let a page on an allowed origin embed <code>&lt;kb-widget&gt;</code> for this knowledge base.</p>
      ${this._renderForm(knowledgeBase)} ${this._issued ? this._renderIssued(this._issued) : nothing}
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

function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
