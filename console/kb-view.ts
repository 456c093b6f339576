import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { KnowledgeBaseDetail } from '../protocol/console-protocol.ts';
import { consoleStyles } from './console-styles.ts';

/** The tabs of a knowledge base, as they appear in the URL (`#/kb/{id}/{tab}`). */
export type KbTab = 'documents' | 'insights' | 'answers' | 'members' | 'developers';

/** Every tab, in display order, with its visible name. */
export const KB_TABS: ReadonlyArray<{ tab: KbTab; label: string }> = [
  { tab: 'documents', label: 'Documents' },
  { tab: 'insights', label: 'Insights' },
  { tab: 'answers', label: 'Curated answers' },
  { tab: 'members', label: 'Members' },
  { tab: 'developers', label: 'Developers' },
];

/**
 * One knowledge base: its name, the person's role, and its tabs (Documents,
 * Insights, Curated answers, Members, Developers) as links (the current one marked with
 * `aria-current="page"`), so each tab has its own address and the browser's
 * back button works.
 *
 * @tagname kb-knowledge-base-view
 * @summary A knowledge base with its tabs.
 */
export class KbKnowledgeBaseView extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      /* The tabs wrap onto a second row where they do not fit (a 360 px phone). */
      nav ul {
        display: flex;
        flex-wrap: wrap;
        gap: 0 1.25rem;
        list-style: none;
        padding: 0;
        border-bottom: 1px solid #c4c8d0;
      }
      nav a {
        display: inline-block;
        padding: 0.4rem 0.1rem;
        text-decoration: none;
      }
      nav a[aria-current='page'] {
        border-bottom: 3px solid #1a5fb4;
        font-weight: 600;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    tab: {},
    question: {},
    _knowledgeBase: { state: true },
    _error: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** Knowledge base shown. */
  declare kbId: string;
  /** Tab shown. */
  declare tab: KbTab;
  /** A question to answer, for the Curated answers tab (`#/kb/{id}/answers?question=…`). */
  declare question: string | undefined;
  declare private _knowledgeBase: KnowledgeBaseDetail | undefined;
  declare private _error: string | undefined;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
    this.tab = 'documents';
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('kbId') && this.kbId !== '') void this._loadKnowledgeBase();
  }

  private async _loadKnowledgeBase(): Promise<void> {
    this._knowledgeBase = undefined;
    try {
      this._knowledgeBase = await this.client.getKnowledgeBase(this.kbId);
      this._error = undefined;
    } catch (error) {
      this._error = `The knowledge base could not be loaded: ${(error as Error).message}`;
    }
  }

  private _renderTab(knowledgeBase: KnowledgeBaseDetail) {
    switch (this.tab) {
      case 'documents':
        return html`<kb-documents-tab .client=${this.client} kb-id=${knowledgeBase.id} ?can-edit=${knowledgeBase.can_edit_documents}></kb-documents-tab>`;
      case 'insights':
        return knowledgeBase.can_edit_documents
          ? html`<kb-insights-tab .client=${this.client} kb-id=${knowledgeBase.id}></kb-insights-tab>`
          : html`<h2>Insights</h2>
              <p>Visitors' questions are shown to editors and owners.</p>`;
      case 'answers':
        return html`<kb-curated-answers-tab
          .client=${this.client}
          kb-id=${knowledgeBase.id}
          ?can-edit=${knowledgeBase.can_edit_documents}
          .question=${this.question}
        ></kb-curated-answers-tab>`;
      case 'members':
        return html`<kb-members-tab .client=${this.client} kb-id=${knowledgeBase.id} ?can-manage=${knowledgeBase.can_manage_members}></kb-members-tab>`;
      case 'developers':
        return html`<kb-developers-tab .client=${this.client} .knowledgeBase=${knowledgeBase}></kb-developers-tab>`;
    }
  }

  override render() {
    const knowledgeBase = this._knowledgeBase;
    return html`
      <p><a href="#/">All knowledge bases</a></p>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      ${knowledgeBase
        ? html`
            <h1>${knowledgeBase.name}</h1>
            <p>Your role: ${knowledgeBase.role}</p>
            <nav aria-label="Knowledge base sections">
              <ul>
                ${KB_TABS.map(
                  ({ tab, label }) => html`<li>
                    <a href="#/kb/${encodeURIComponent(knowledgeBase.id)}/${tab}" aria-current=${tab === this.tab ? 'page' : 'false'}>${label}</a>
                  </li>`,
                )}
              </ul>
            </nav>
            ${this._renderTab(knowledgeBase)}
          `
        : this._error
          ? nothing
          : html`<p>Loading…</p>`}
    `;
  }
}
