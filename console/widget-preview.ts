import { LitElement, css, html, nothing } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { ConsoleClient } from './console-client.ts';
import type { Visibility } from '../protocol/workspace-terms.ts';
import { ConsolePreviewTokenIssuedEvent } from './console-events.ts';
import { consoleStyles } from './console-styles.ts';

/** Where the API server serves the widget's script (server/api/widget-asset.ts). */
export const WIDGET_SCRIPT_PATH = '/widget/kb-widget.js';

/** Lifetime of a preview token, as the server issues it (server/console-api/console-routes.ts). */
export const PREVIEW_TOKEN_MINUTES = 10;

const scriptLoads = new Map<string, Promise<void>>();

/**
 * Loads the widget's script (a classic script, as customers load it) once
 * per URL, unless `<kb-widget>` is already defined on the page. The
 * console's Content-Security-Policy (`script-src 'self'`) allows it because
 * the API server that serves the console serves the script too.
 *
 * @param url the script's URL, by default {@link WIDGET_SCRIPT_PATH}
 * @returns a promise settled once `<kb-widget>` is defined
 * @throws Error (rejection) when the script cannot be loaded or defines no `<kb-widget>`;
 *   a later call tries again
 */
export function loadWidgetScript(url: string = WIDGET_SCRIPT_PATH): Promise<void> {
  if (customElements.get('kb-widget')) return Promise.resolve();
  let load = scriptLoads.get(url);
  if (load === undefined) {
    const script = document.createElement('script');
    script.src = url;
    load = new Promise<void>((resolve, reject) => {
      script.addEventListener('load', () =>
        customElements.get('kb-widget') ? resolve() : reject(new Error(`${url} loaded but did not define <kb-widget>`)),
      );
      script.addEventListener('error', () => reject(new Error(`${url} could not be loaded`)));
    });
    load.catch(() => {
      scriptLoads.delete(url);
      script.remove();
    });
    scriptLoads.set(url, load);
    document.head.append(script);
  }
  return load;
}

/**
 * The live preview on the Developers tab (docs/console.md "Developers"): the real `<kb-widget>`,
 * loaded from the API server as customers load it, answering from this
 * knowledge base as visitors of a site would see it.
 *
 * It cannot use a token issued for customers' sites: the console's origin is
 * not among their allowed origins. Its widget's `tokenProvider` therefore
 * asks the console API for a **preview token** at the first question (and
 * again when one runs out): a token of the signed-in person with the scope
 * chosen in the form, allowed only on the console's own origin, for
 * {@link PREVIEW_TOKEN_MINUTES} minutes, listed as "Preview" and revocable.
 * The client reuses it while it has a few minutes left
 * (`ConsoleClient.previewToken`), so a preview shown again, a tab switch or
 * a scope chosen again asks for no new one. A change of scope starts a fresh
 * conversation; "Restart preview" starts one with a fresh token (the way out
 * after revoking the preview's token).
 *
 * @tagname kb-widget-preview
 * @summary The widget as visitors see it, with a preview token.
 * @fires kb-console-preview-token-issued - A preview token was issued; the token list changed.
 */
export class KbWidgetPreview extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      .frame {
        border: 1px solid #c4c8d0;
        border-radius: 6px;
        padding: 0.75rem;
        max-width: 40rem;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    scope: { attribute: false },
    baseUrl: { attribute: 'base-url' },
    widgetScriptUrl: { attribute: 'widget-script-url' },
    _state: { state: true },
    _error: { state: true },
    _generation: { state: true },
  };

  /** The console API, which issues the preview tokens. */
  declare client: ConsoleClient;
  /** Knowledge base previewed. */
  declare kbId: string;
  /** Scope of the preview tokens: the one chosen in the issue form. */
  declare scope: readonly Visibility[];
  /** Base URL of the widget API; default: the console page's own origin. */
  declare baseUrl: string;
  /** URL of the widget's script; default {@link WIDGET_SCRIPT_PATH}. */
  declare widgetScriptUrl: string;
  declare private _state: 'loading' | 'ready' | 'failed';
  declare private _error: string | undefined;
  /** Bumped by "Restart preview": a new widget element, so a new conversation and token. */
  declare private _generation: number;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
    this.scope = ['public'];
    this.baseUrl = location.origin;
    this.widgetScriptUrl = WIDGET_SCRIPT_PATH;
    this._state = 'loading';
    this._generation = 0;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this._loadWidget();
  }

  private async _loadWidget(): Promise<void> {
    try {
      await loadWidgetScript(this.widgetScriptUrl);
      this._state = 'ready';
    } catch (error) {
      this._state = 'failed';
      this._error = `The preview could not start: ${(error as Error).message}. The server serves the widget after \`npm run build\`.`;
    }
  }

  /** The next preview token is a new one, not the one held for reuse ("Restart preview"). */
  private _freshTokenNext = false;

  /** The preview widget's `tokenProvider`: a preview token for the current scope, reused while it has a useful life left. */
  private _issuePreviewToken = async (): Promise<string> => {
    try {
      const fresh = this._freshTokenNext;
      this._freshTokenNext = false;
      const { token, issued } = await this.client.previewToken(this.kbId, this.scope, { fresh });
      this._error = undefined;
      if (issued) this.dispatchEvent(new ConsolePreviewTokenIssuedEvent());
      return token.token;
    } catch (error) {
      this._error = `The preview token was not issued: ${(error as Error).message}`;
      throw error;
    }
  };

  private _restartPreview(): void {
    this._error = undefined;
    this._freshTokenNext = true;
    this._generation += 1;
  }

  private _renderWidget() {
    if (this._state === 'loading') return html`<p>Loading the widget…</p>`;
    if (this._state === 'failed') return nothing;
    if (this.scope.length === 0) return html`<p>Choose at least one scope above to preview the widget.</p>`;
    const key = `${this.kbId}|${this.scope.join(',')}|${this._generation}`;
    return html`
      <div class="frame">
        ${keyed(
          key,
          html`<kb-widget
            mode="inline"
            base-url=${this.baseUrl}
            kb-id=${this.kbId}
            .tokenProvider=${this._issuePreviewToken}
          ></kb-widget>`,
        )}
      </div>
      <p><button type="button" class="secondary" @click=${this._restartPreview}>Restart preview</button></p>
    `;
  }

  override render() {
    const scope = this.scope.length === 0 ? 'none chosen' : this.scope.join(', ');
    return html`
      <section aria-labelledby="preview-heading">
        <h3 id="preview-heading">Preview</h3>
        <p class="hint" id="preview-note">
          Ask a question and see it answered as your visitors will. The preview uses a ${PREVIEW_TOKEN_MINUTES}-minute preview token limited
          to this page, issued in your name with the scope chosen above (${scope}) and reused while it has a few minutes left; it appears
          in the token list as Preview and can be revoked there (then restart the preview).
        </p>
        <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
        ${this._renderWidget()}
      </section>
    `;
  }
}
