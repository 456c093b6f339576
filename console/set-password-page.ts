import { LitElement, html, nothing } from 'lit';
import type { PasswordLink } from '../protocol/console-protocol.ts';
import { ConsoleApiError, ConsoleClient } from './console-client.ts';
import { ConsoleSignedInEvent } from './console-events.ts';
import { consoleStyles } from './console-styles.ts';
import { MIN_PASSWORD_LENGTH } from '../protocol/workspace-terms.ts';

/**
 * The page a set-password link opens (`/console#/set-password/{token}`): an
 * invited person chooses their first password and is signed in. The link is
 * checked first, so the page names the account ("for dana@example.com") or
 * says at once why the link cannot be used (used, replaced by a newer one,
 * expired, unknown) with the server's sentence and a way to sign in instead.
 * The form asks for the password twice ("New password", "Repeat the
 * password"); a mismatch or a password under 12 characters is refused before
 * anything is sent; the server's refusal is shown in an alert region. On
 * success it fires `kb-console-signed-in`.
 *
 * @tagname kb-set-password-page
 * @summary Choose a first password through a one-time link.
 *
 * @fires kb-console-signed-in - The password is set and the person signed in ({@link ConsoleSignedInEvent}).
 */
export class KbSetPasswordPage extends LitElement {
  static override styles = consoleStyles;

  static override properties = {
    client: { attribute: false },
    token: {},
    _link: { state: true },
    _linkError: { state: true },
    _error: { state: true },
    _busy: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** The link's secret, the part of the address after `#/set-password/`. */
  declare token: string;
  /** The usable link's account and expiry, once checked. */
  declare private _link: PasswordLink | undefined;
  /** Why the link cannot be used, once checked. */
  declare private _linkError: string | undefined;
  declare private _error: string | undefined;
  declare private _busy: boolean;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.token = '';
    this._busy = false;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('token')) void this._checkLink();
  }

  private async _checkLink(): Promise<void> {
    this._link = undefined;
    this._linkError = undefined;
    this._error = undefined;
    try {
      this._link = await this.client.checkPasswordLink(this.token);
    } catch (error) {
      this._linkError = (error as Error).message;
    }
  }

  private async _setPassword(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const password = String(data.get('password') ?? '');
    if ([...password].length < MIN_PASSWORD_LENGTH) {
      this._error = `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters; this one has ${[...password].length}.`;
      return;
    }
    if (password !== String(data.get('repeated') ?? '')) {
      this._error = 'The two passwords differ: type the same password in both fields.';
      return;
    }
    this._busy = true;
    this._error = undefined;
    try {
      await this.client.setPasswordWithLink(this.token, password);
      this.dispatchEvent(new ConsoleSignedInEvent());
    } catch (error) {
      if (error instanceof ConsoleApiError && error.code === 'invalid_link') {
        this._link = undefined;
        this._linkError = error.message;
      } else {
        this._error = `The password was not set: ${(error as Error).message}`;
      }
    } finally {
      this._busy = false;
    }
  }

  private _renderForm(link: PasswordLink) {
    return html`
      <h1>Choose your password</h1>
      <p>For ${link.email}. This link works once, until ${link.expires_at.slice(0, 16).replace('T', ' ')} UTC; you are signed in as soon as the password is set.</p>
      <form @submit=${this._setPassword}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" readonly .value=${link.email} />
        <label for="password">New password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          aria-describedby="password-hint"
          required
        />
        <p id="password-hint" class="hint">At least ${MIN_PASSWORD_LENGTH} characters; a few words you will remember make a good one.</p>
        <label for="repeated">Repeat the password</label>
        <input id="repeated" name="repeated" type="password" autocomplete="new-password" required />
        <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
        <p><button type="submit" ?disabled=${this._busy}>Set password and sign in</button></p>
      </form>
    `;
  }

  override render() {
    if (this._link) return html`<main>${this._renderForm(this._link)}</main>`;
    if (this._linkError !== undefined) {
      return html`<main>
        <h1>This link cannot be used</h1>
        <div role="alert" class="error"><p>${this._linkError}</p></div>
        <p><a href="#/">Go to sign-in</a></p>
      </main>`;
    }
    return html`<main><p>Checking the link…</p></main>`;
  }
}
