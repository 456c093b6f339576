import { LitElement, html, nothing } from 'lit';
import { ConsoleClient, ConsoleApiError } from './console-client.ts';
import { ConsoleSignedInEvent } from './console-events.ts';
import { consoleStyles } from './console-styles.ts';

/**
 * The console's sign-in form: "Email", "Password", "Sign in". A refusal
 * (wrong email or password, too many attempts) is shown in an alert region
 * with the server's sentence; success fires `kb-console-signed-in`.
 *
 * @tagname kb-sign-in-page
 * @summary Email and password sign-in for the console.
 *
 * @fires kb-console-signed-in - The person is signed in ({@link ConsoleSignedInEvent}).
 */
export class KbSignInPage extends LitElement {
  static override styles = consoleStyles;

  static override properties = {
    client: { attribute: false },
    _error: { state: true },
    _busy: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  declare private _error: string | undefined;
  declare private _busy: boolean;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this._busy = false;
  }

  private async _signIn(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    this._busy = true;
    this._error = undefined;
    try {
      await this.client.signIn(String(data.get('email') ?? ''), String(data.get('password') ?? ''));
      this.dispatchEvent(new ConsoleSignedInEvent());
    } catch (error) {
      this._error =
        error instanceof ConsoleApiError && error.status === 401
          ? `Sign-in failed: ${error.message}`
          : `Sign-in failed: ${(error as Error).message}`;
    } finally {
      this._busy = false;
    }
  }

  override render() {
    return html`
      <main>
        <h1>Sign in to the console</h1>
        <form @submit=${this._signIn}>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
          <p><button type="submit" ?disabled=${this._busy}>Sign in</button></p>
        </form>
      </main>
    `;
  }
}
