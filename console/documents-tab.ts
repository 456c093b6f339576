import { LitElement, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { ConsoleDocument } from '../protocol/console-protocol.ts';
import { consoleStyles } from './console-styles.ts';

/**
 * The Documents tab: the documents of a knowledge base the person can read,
 * with their visibility (`public`, `workspace`, `restricted`).
 *
 * @tagname kb-documents-tab
 * @summary Documents and their visibility.
 */
export class KbDocumentsTab extends LitElement {
  static override styles = consoleStyles;

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    _documents: { state: true },
    _error: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** Knowledge base whose documents are listed. */
  declare kbId: string;
  declare private _documents: ConsoleDocument[] | undefined;
  declare private _error: string | undefined;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('kbId') && this.kbId !== '') void this._loadDocuments();
  }

  private async _loadDocuments(): Promise<void> {
    this._documents = undefined;
    try {
      this._documents = await this.client.listDocuments(this.kbId);
      this._error = undefined;
    } catch (error) {
      this._error = `The documents could not be loaded: ${(error as Error).message}`;
    }
  }

  override render() {
    return html`
      <h2>Documents</h2>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      ${this._documents === undefined
        ? this._error
          ? nothing
          : html`<p>Loading documents…</p>`
        : this._documents.length === 0
          ? html`<p>No documents you can read.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Document id</th>
                  <th scope="col">Title</th>
                  <th scope="col">Visibility</th>
                </tr>
              </thead>
              <tbody>
                ${this._documents.map(
                  (document) => html`<tr>
                    <td><code>${document.doc_id}</code></td>
                    <td>${document.title}</td>
                    <td>${document.visibility}</td>
                  </tr>`,
                )}
              </tbody>
            </table>`}
    `;
  }
}
