import { LitElement, css, html, nothing } from 'lit';
import { ConsoleClient } from './console-client.ts';
import type { ConsoleDocument, CuratedAnswer, CuratedSource } from '../protocol/console-protocol.ts';
import { confirmActions } from './confirm-actions.ts';
import { consoleStyles } from './console-styles.ts';

/** The add or edit form's content: `id` when it edits a stored curated answer. */
interface CuratedAnswerDraft {
  id?: number;
  question: string;
  answer: string;
  /** Sources as chosen; a blank `doc_id` is a row not filled in yet, a blank heading the whole document. */
  sources: { doc_id: string; heading: string }[];
}

/**
 * The Curated answers tab: question and answer pairs given as the answer
 * (`provenance: qa_shortcut`) to visitors' questions worded like them, each
 * with the documents (and headings) it cites. Every member sees those they
 * can read; editors and owners add one, edit one, and remove one
 * ("Remove", then "Confirm remove"). A source is chosen from the knowledge
 * base's documents and, optionally, one of its headings, so a curated answer
 * cites what exists; `[1]`, `[2]` in the answer name the sources, and
 * without markers every source is cited at the end.
 *
 * Opened with a `question` (Insights' "Answer this" on a coverage gap), an
 * editor finds the add form filled with it.
 *
 * @tagname kb-curated-answers-tab
 * @summary Curated answers: list, add, edit, remove.
 */
export class KbCuratedAnswersTab extends LitElement {
  static override styles = [
    consoleStyles,
    css`
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
      }
      form.curated {
        border: 1px solid #c4c8d0;
        border-radius: 6px;
        padding: 0 1rem 1rem;
        margin-block: 1rem;
      }
      textarea {
        inline-size: min(40rem, 100%);
      }
      .source {
        border-bottom: 1px solid #e3e5e9;
        padding-block-end: 0.5rem;
      }
      .answer-text {
        white-space: pre-wrap;
      }
    `,
  ];

  static override properties = {
    client: { attribute: false },
    kbId: { attribute: 'kb-id' },
    canEdit: { attribute: 'can-edit', type: Boolean },
    question: {},
    _answers: { state: true },
    _hidden: { state: true },
    _documents: { state: true },
    _headings: { state: true },
    _draft: { state: true },
    _error: { state: true },
    _formError: { state: true },
    _status: { state: true },
    _confirming: { state: true },
    _busy: { state: true },
  };

  /** The console API. */
  declare client: ConsoleClient;
  /** Knowledge base whose curated answers are listed. */
  declare kbId: string;
  /** Whether the person may add, edit and remove curated answers (editors and owners). */
  declare canEdit: boolean;
  /** A question to answer: opens the add form with it (Insights' "Answer this"). */
  declare question: string | undefined;
  declare private _answers: CuratedAnswer[] | undefined;
  /** Curated answers citing a document the person cannot read, left out of the list. */
  declare private _hidden: number;
  /** The documents a source may be chosen from (loaded for editors). */
  declare private _documents: ConsoleDocument[];
  /** Headings of each document chosen so far, by document id. */
  declare private _headings: ReadonlyMap<string, string[]>;
  /** The open add or edit form. */
  declare private _draft: CuratedAnswerDraft | undefined;
  declare private _error: string | undefined;
  /** Why the server refused the form, shown beside it. */
  declare private _formError: string | undefined;
  declare private _status: string | undefined;
  /** Id of the curated answer whose removal awaits confirmation. */
  declare private _confirming: number | undefined;
  declare private _busy: boolean;

  constructor() {
    super();
    this.client = new ConsoleClient();
    this.kbId = '';
    this.canEdit = false;
    this._hidden = 0;
    this._documents = [];
    this._headings = new Map();
    this._busy = false;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('kbId') && this.kbId !== '') void this._load();
    if ((changed.has('question') || changed.has('canEdit')) && this.canEdit && this.question) {
      this._draft = { question: this.question, answer: '', sources: [] };
      this._formError = undefined;
    }
  }

  private async _load(): Promise<void> {
    try {
      const [list, documents] = await Promise.all([this.client.listCuratedAnswers(this.kbId), this.client.listDocuments(this.kbId)]);
      this._answers = list.curated_answers;
      this._hidden = list.hidden;
      this._documents = documents;
      this._error = undefined;
    } catch (error) {
      this._error = `The curated answers could not be loaded: ${(error as Error).message}`;
    }
  }

  private async _loadHeadings(docId: string): Promise<void> {
    if (docId === '' || this._headings.has(docId)) return;
    try {
      const headings = await this.client.listHeadings(this.kbId, docId);
      this._headings = new Map([...this._headings, [docId, headings]]);
    } catch (error) {
      this._formError = `The headings of ${docId} could not be loaded: ${(error as Error).message}`;
    }
  }

  private _open(answer?: CuratedAnswer): void {
    this._status = undefined;
    this._formError = undefined;
    this._draft = answer
      ? { id: answer.id, question: answer.question, answer: answer.answer, sources: answer.sources.map((source) => ({ doc_id: source.doc_id, heading: source.heading ?? '' })) }
      : { question: '', answer: '', sources: [] };
    for (const source of this._draft.sources) void this._loadHeadings(source.doc_id);
  }

  private _edit(change: Partial<CuratedAnswerDraft>): void {
    if (this._draft) this._draft = { ...this._draft, ...change };
  }

  private _editSource(position: number, change: Partial<CuratedAnswerDraft['sources'][number]>): void {
    const draft = this._draft;
    if (!draft) return;
    this._edit({ sources: draft.sources.map((source, index) => (index === position ? { ...source, ...change } : source)) });
    if (change.doc_id !== undefined) void this._loadHeadings(change.doc_id);
  }

  private async _save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const draft = this._draft;
    if (!draft) return;
    const unchosen = draft.sources.findIndex((source) => source.doc_id === '');
    if (unchosen >= 0) {
      this._formError = `Choose the document of source ${unchosen + 1}, or remove that source.`;
      return;
    }
    const request = {
      question: draft.question,
      answer: draft.answer,
      sources: draft.sources.map((source): CuratedSource => (source.heading === '' ? { doc_id: source.doc_id } : { doc_id: source.doc_id, heading: source.heading })),
    };
    this._busy = true;
    try {
      const saved = draft.id === undefined ? await this.client.addCuratedAnswer(this.kbId, request) : await this.client.updateCuratedAnswer(this.kbId, draft.id, request);
      this._draft = undefined;
      this._formError = undefined;
      this._status = `Saved. Visitors asking “${saved.question}” or something worded like it now get this answer.`;
      await this._load();
    } catch (error) {
      this._formError = `Not saved: ${(error as Error).message}`;
    } finally {
      this._busy = false;
    }
  }

  private async _remove(answer: CuratedAnswer): Promise<void> {
    this._status = undefined;
    this._busy = true;
    try {
      await this.client.removeCuratedAnswer(this.kbId, answer.id);
      this._error = undefined;
      this._status = `The curated answer to “${answer.question}” was removed.`;
      await this._load();
    } catch (error) {
      this._error = `The curated answer to “${answer.question}” was not removed: ${(error as Error).message}`;
    } finally {
      this._confirming = undefined;
      this._busy = false;
    }
  }

  private _renderSource(source: CuratedAnswerDraft['sources'][number], position: number) {
    const number = position + 1;
    const headings = this._headings.get(source.doc_id) ?? [];
    return html`<div class="source">
      <label for="source-doc-${number}">Source ${number}: document</label>
      <select id="source-doc-${number}" @change=${(event: Event) => this._editSource(position, { doc_id: (event.currentTarget as HTMLSelectElement).value, heading: '' })}>
        <option value="" ?selected=${source.doc_id === ''}>Choose a document…</option>
        ${this._documents.map((document) => html`<option value=${document.doc_id} ?selected=${document.doc_id === source.doc_id}>${document.title} (${document.doc_id})</option>`)}
      </select>
      <label for="source-heading-${number}">Source ${number}: section</label>
      <select
        id="source-heading-${number}"
        ?disabled=${source.doc_id === ''}
        @change=${(event: Event) => this._editSource(position, { heading: (event.currentTarget as HTMLSelectElement).value })}
      >
        <option value="" ?selected=${source.heading === ''}>The whole document (its first passage)</option>
        ${[...new Set([...headings, ...(source.heading === '' ? [] : [source.heading])])].map(
          (heading) => html`<option value=${heading} ?selected=${heading === source.heading}>${heading}</option>`,
        )}
      </select>
      <p>
        <button
          type="button"
          class="secondary"
          aria-label="Remove source ${number}"
          @click=${() => this._edit({ sources: this._draft!.sources.filter((_, index) => index !== position) })}
        >
          Remove source
        </button>
      </p>
    </div>`;
  }

  private _renderForm(draft: CuratedAnswerDraft) {
    const title = draft.id === undefined ? 'Add a curated answer' : 'Edit the curated answer';
    return html`<form class="curated" aria-label=${title} @submit=${this._save}>
      <h3>${title}</h3>
      <label for="curated-question">Question</label>
      <input
        id="curated-question"
        type="text"
        required
        maxlength="2000"
        .value=${draft.question}
        @input=${(event: Event) => this._edit({ question: (event.currentTarget as HTMLInputElement).value })}
      />
      <label for="curated-answer">Answer</label>
      <textarea
        id="curated-answer"
        rows="5"
        required
        maxlength="8000"
        aria-describedby="curated-answer-hint"
        .value=${draft.answer}
        @input=${(event: Event) => this._edit({ answer: (event.currentTarget as HTMLTextAreaElement).value })}
      ></textarea>
      <p id="curated-answer-hint" class="hint">Write [1], [2] where the answer rests on source 1, 2; without them, every source is cited at the end.</p>
      <fieldset>
        <legend>Sources</legend>
        ${draft.sources.length === 0 ? html`<p class="hint">No sources: the answer is given without citations.</p>` : nothing}
        ${draft.sources.map((source, position) => this._renderSource(source, position))}
        <button type="button" class="secondary" @click=${() => this._edit({ sources: [...draft.sources, { doc_id: '', heading: '' }] })}>Add a source</button>
      </fieldset>
      <div role="alert" class="error">${this._formError ? html`<p>${this._formError}</p>` : nothing}</div>
      <span class="actions">
        <button type="submit" ?disabled=${this._busy}>Save curated answer</button>
        <button type="button" class="secondary" @click=${() => ((this._draft = undefined), (this._formError = undefined))}>Cancel</button>
      </span>
    </form>`;
  }

  private _renderActions(answer: CuratedAnswer) {
    if (this._confirming === answer.id) {
      return confirmActions({
        verb: 'remove',
        doing: 'removing',
        target: `the curated answer to ${answer.question}`,
        busy: this._busy,
        confirm: () => void this._remove(answer),
        cancel: () => (this._confirming = undefined),
      });
    }
    return html`<span class="actions">
      <button type="button" class="secondary" aria-label="Edit the curated answer to ${answer.question}" @click=${() => this._open(answer)}>Edit</button>
      <button
        type="button"
        class="secondary"
        aria-label="Remove the curated answer to ${answer.question}"
        @click=${() => ((this._confirming = answer.id), (this._status = undefined))}
      >
        Remove
      </button>
    </span>`;
  }

  override render() {
    const answers = this._answers;
    return html`
      <h2>Curated answers</h2>
      <p class="hint">A curated answer is given, with its citations, to every question worded like its own, before any search.</p>
      <div role="alert" class="error">${this._error ? html`<p>${this._error}</p>` : nothing}</div>
      <p role="status">${this._status ?? nothing}</p>
      ${this.canEdit
        ? this._draft
          ? this._renderForm(this._draft)
          : html`<p><button type="button" @click=${() => this._open()}>Add a curated answer</button></p>`
        : nothing}
      ${answers === undefined
        ? this._error
          ? nothing
          : html`<p>Loading curated answers…</p>`
        : answers.length === 0
          ? html`<p>No curated answers yet.</p>`
          : html`<table class="reflow">
              <thead>
                <tr>
                  <th scope="col">Question</th>
                  <th scope="col">Answer</th>
                  <th scope="col">Sources</th>
                  ${this.canEdit ? html`<th scope="col">Actions</th>` : nothing}
                </tr>
              </thead>
              <tbody>
                ${answers.map(
                  (answer) => html`<tr>
                    <td data-label="Question">${answer.question}</td>
                    <td data-label="Answer" class="answer-text">${answer.answer}</td>
                    <td data-label="Sources">
                      ${answer.sources.length === 0
                        ? 'none'
                        : html`<ol>
                            ${answer.sources.map((source) => html`<li>${source.title}${source.heading ? html` › ${source.heading}` : nothing} (<code>${source.doc_id}</code>)</li>`)}
                          </ol>`}
                    </td>
                    ${this.canEdit ? html`<td data-label="Actions">${this._renderActions(answer)}</td>` : nothing}
                  </tr>`,
                )}
              </tbody>
            </table>`}
      ${this._hidden > 0
        ? html`<p class="hint">${this._hidden} more ${this._hidden === 1 ? 'curated answer cites' : 'curated answers cite'} documents you cannot read.</p>`
        : nothing}
    `;
  }
}
