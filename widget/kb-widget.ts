import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { Citation, FeedbackRequest, ProblemReason, RatingReason } from '../protocol/query-protocol.ts';
import { MAX_COMMENT_CHARACTERS, PROBLEM_REASONS, RATING_REASONS } from '../protocol/query-terms.ts';
import { askQuestion, type AskOutcome } from './answer-stream.ts';
import { parseAnswerMarkdown } from './answer-markdown.ts';
import { NO_CITATION_LINKS, renderAnswer } from './answer-markdown-render.ts';
import { followableUrl, groupSources, readableDocumentName } from './citation-sources.ts';
import { applyFrame, failTurn, provenanceOf, refusalReason, startTurn, stopTurn, type FailureReason, type Turn } from './conversation.ts';
import { loadTurns, saveTurns } from './conversation-storage.ts';
import { sendFeedback } from './feedback-client.ts';
import { kbWidgetStyles } from './kb-widget-styles.ts';
import { KbWidgetAnswerEvent, KbWidgetErrorEvent, KbWidgetQuestionEvent, KbWidgetToggleEvent } from './kb-widget-events.ts';
import { answerSentences, markSentences } from './quote-marks.ts';
import { icon, type IconName } from './widget-icons.ts';
import { DEFAULT_STRINGS, type WidgetStrings } from './widget-strings.ts';

/**
 * A kebab- or snake-case name in camel case: failure reason `not-allowed` has
 * its words in string `notAllowed`, feedback reason `out_of_date` in `outOfDate`.
 */
type CamelCase<Text extends string> = Text extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Text extends `${infer Head}_${infer Tail}`
    ? `${Head}${Capitalize<CamelCase<Tail>>}`
    : Text;

/** The string that names a failure or feedback reason (the type check fails for a reason without words). */
function wordsOf<Reason extends FailureReason | RatingReason | ProblemReason>(reason: Reason) {
  return reason.replace(/[-_](\w)/g, (_, letter: string) => letter.toUpperCase()) as CamelCase<Reason> satisfies keyof WidgetStrings;
}

/**
 * Where one feedback control stands: the rating chosen (answers), the
 * form `open`, the request `sending`, `sent` or `failed`, and how many
 * characters the comment holds.
 */
interface FeedbackState {
  rating?: 'up' | 'down';
  status: 'open' | 'sending' | 'sent' | 'failed';
  length?: number;
}

/** How far from the end of the transcript (px) still counts as reading the latest. */
const NEAR_END_PIXELS = 24;

/** Milliseconds a copy button shows "Copied". */
const COPIED_MILLISECONDS = 2000;

/** The id of the source a turn's citation `index` points at. */
function sourceId(turnId: number, index: number): string {
  return `kb-source-${turnId}-${index}`;
}

/** Question or suggestion text with its code spans (`` `x` ``) as code: no literal backticks. */
function withInlineCode(text: string): unknown[] {
  return text.split(/`([^`]+)`/).map((part, index) => (index % 2 ? html`<code>${part}</code>` : part));
}

/**
 * An embeddable assistant that answers questions from a knowledge base,
 * streaming grounded answers with their sources and follow-up suggestions.
 *
 * @tagname kb-widget
 * @summary Ask a knowledge base; answers stream in with citations.
 *
 * @fires kb-widget-question - The visitor asked a question ({@link KbWidgetQuestionEvent}).
 * @fires kb-widget-answer - An answer finished, answered or abstained ({@link KbWidgetAnswerEvent}).
 * @fires kb-widget-error - An answer failed or was refused ({@link KbWidgetErrorEvent}).
 * @fires kb-widget-toggle - The launcher panel opened or closed ({@link KbWidgetToggleEvent}).
 *
 * A question asked rises to the top of the transcript and its answer reads
 * downward from there; the view follows an answer to its end only once the
 * visitor scrolled there. When words arrive below while the visitor reads
 * further up, "Jump to latest" appears under the transcript, covering
 * nothing. The conversation shown is kept for the tab in `sessionStorage`
 * until "New conversation".
 *
 * @csspart launcher - The floating button of `mode="launcher"`.
 * @csspart panel - The panel holding the conversation.
 * @csspart header - The panel's heading bar.
 * @csspart transcript - The conversation log.
 * @csspart message - One question or answer.
 * @csspart citation - One document of a sources list.
 * @csspart greeting - The greeting shown before the first question.
 * @csspart citation-marker - A `[n]` marker inside an answer.
 * @csspart suggestion - A follow-up or starter question button.
 * @csspart input - The question field.
 * @csspart submit - The Ask / Stop button.
 * @csspart actions - The row of controls under a finished answer (copy, contact support, 👍/👎).
 * @csspart feedback - The reasons and comment form of a 👎 or a problem report.
 *
 * @cssprop --kb-widget-accent - Buttons, links and the launcher.
 * @cssprop --kb-widget-accent-text - Text on the accent colour.
 * @cssprop --kb-widget-background - Panel background.
 * @cssprop --kb-widget-text - Body text.
 * @cssprop --kb-widget-muted - Secondary text and borders.
 * @cssprop --kb-widget-font - Font family.
 * @cssprop --kb-widget-radius - Corner radius.
 * @cssprop --kb-widget-width - Panel width in launcher mode.
 * @cssprop --kb-widget-height - Panel height in launcher mode.
 * @cssprop --kb-widget-z-index - Stacking order of the launcher and panel.
 */
export class KbWidget extends LitElement {
  static override styles = kbWidgetStyles;

  static override properties = {
    baseUrl: { attribute: 'base-url' },
    kbId: { attribute: 'kb-id' },
    token: {},
    mode: { reflect: true },
    heading: {},
    placeholder: {},
    greeting: {},
    starterQuestions: { attribute: 'starter-questions', type: Array },
    supportUrl: { attribute: 'support-url' },
    hotkey: { type: Boolean },
    theme: { reflect: true },
    strings: { attribute: false },
    tokenProvider: { attribute: false },
    stallTimeout: { attribute: 'stall-timeout', type: Number },
    _open: { state: true },
    _turns: { state: true },
    _copied: { state: true },
    _behind: { state: true },
    _feedback: { state: true },
  };

  /** Origin (and path prefix) of the kb-widget API, e.g. `https://kb.example.com`. */
  declare baseUrl: string;
  /** Knowledge base the token is bound to. */
  declare kbId: string;
  /** Widget token (`kbw_…`); optional when `tokenProvider` is set. */
  declare token: string | undefined;
  /** `launcher`: a floating button opening a panel; `inline`: the panel in the page flow. */
  declare mode: 'launcher' | 'inline';
  /** Panel heading; defaults to the `heading` string. */
  declare heading: string | undefined;
  /** Placeholder of the question field; defaults to the `placeholder` string. */
  declare placeholder: string | undefined;
  /** Words shown before the first question, above the starter questions. */
  declare greeting: string | undefined;
  /** Questions offered before the first question (attribute: a JSON array of strings). */
  declare starterQuestions: string[];
  /** Where "Contact support" leads when the assistant abstains (https, mailto, or this site); none when unset. */
  declare supportUrl: string | undefined;
  /** Whether Ctrl+K (⌘K) opens the launcher's panel. */
  declare hotkey: boolean;
  /** `light`, `dark`, or `auto` (follows `prefers-color-scheme`). */
  declare theme: 'light' | 'dark' | 'auto';
  /** Texts to replace (translation); missing keys keep the English defaults. */
  declare strings: Partial<WidgetStrings>;
  /**
   * Returns a fresh token; called when no token is set, and once after a
   * question is refused because the token expired.
   */
  declare tokenProvider: (() => Promise<string>) | undefined;
  /**
   * Milliseconds a question waits for the next sign of life from the service
   * (a frame, or the heartbeat it sends every 15 s) before it ends as "The
   * assistant isn't answering", with Try again; default 30,000.
   */
  declare stallTimeout: number;

  declare private _open: boolean;
  declare private _turns: Turn[];
  /** The text last copied, while its button says "Copied". */
  declare private _copied: string | undefined;
  /** Whether words arrived below the view while the visitor read further up ("Jump to latest" is offered). */
  declare private _behind: boolean;
  /** Feedback controls by key: `<turn id>` for an answer's rating, `<turn id>-<citation index>` for a problem report. */
  declare private _feedback: Record<string, FeedbackState | undefined>;
  #controller: AbortController | undefined;
  #nextTurnId = 1;
  /** The `sessionStorage` key the turns were loaded from and are saved to. */
  #storageKey: string | undefined;
  /**
   * How the transcript follows the conversation: `question` keeps the latest
   * question and as much of its answer as fits in view (after a question is
   * asked), `end` keeps the end in view (after the visitor scrolled or jumped
   * there), `none` stays where the visitor scrolled up to.
   */
  #follow: 'question' | 'end' | 'none' = 'question';
  /** Where the widget last scrolled the transcript to, and where it last was, in px. */
  #autoScrollTop = 0;
  #lastScrollTop = 0;
  #copiedTimer: ReturnType<typeof setTimeout> | undefined;
  #countdownTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.baseUrl = '';
    this.kbId = '';
    this.mode = 'launcher';
    this.starterQuestions = [];
    this.hotkey = false;
    this.theme = 'light';
    this.strings = {};
    this.stallTimeout = 30_000;
    this._open = false;
    this._turns = [];
    this._behind = false;
    this._feedback = {};
  }

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('keydown', this.#openOnHotkey);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('keydown', this.#openOnHotkey);
    this.#controller?.abort();
    clearTimeout(this.#countdownTimer);
    this.#countdownTimer = undefined;
  }

  /** Whether an answer is streaming now. */
  get busy(): boolean {
    return this._turns.at(-1)?.status === 'streaming';
  }

  /** Opens the panel (launcher mode) and moves focus to the question field. */
  async show(): Promise<void> {
    if (this.mode === 'inline' || this._open) return;
    this._open = true;
    this.dispatchEvent(new KbWidgetToggleEvent(true));
    await this.#focusInput();
  }

  /** Closes the panel (launcher mode) and returns focus to the launcher. */
  async hide(): Promise<void> {
    if (this.mode === 'inline' || !this._open) return;
    this._open = false;
    this.dispatchEvent(new KbWidgetToggleEvent(false));
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLButtonElement>('.launcher')?.focus();
  }

  /**
   * Asks a question: stops any answer in progress and streams the new one.
   * The transcript scrolls to it.
   *
   * @param question the question; blank questions are ignored
   */
  async ask(question: string): Promise<void> {
    const trimmed = question.trim();
    if (!trimmed) return;
    this.#controller?.abort();
    const controller = new AbortController();
    this.#controller = controller;
    const turn = startTurn(this.#nextTurnId++, trimmed);
    this._turns = [...this._turns.map(stopTurn), turn];
    this.#follow = 'question';
    this.dispatchEvent(new KbWidgetQuestionEvent(trimmed));
    const outcome = await this.#withToken((token) =>
      askQuestion({
        baseUrl: this.baseUrl,
        kbId: this.kbId,
        token,
        question: trimmed,
        signal: controller.signal,
        idleMilliseconds: this.stallTimeout,
        onFrame: (frame) => this.#updateTurn(turn.id, (current) => applyFrame(current, frame)),
      }),
    );
    if (this.#controller === controller) this.#controller = undefined;
    this.#finish(turn.id, outcome);
  }

  /** Stops the answer in progress, keeping what arrived. */
  stop(): void {
    this.#controller?.abort();
    this.#controller = undefined;
    this.#updateTurn(this._turns.at(-1)?.id ?? -1, stopTurn);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('starterQuestions') && !Array.isArray(this.starterQuestions)) this.starterQuestions = [];
    // One conversation per element kind, id, service and knowledge base: a launcher and an inline element do not mix.
    const key = ['kb-widget', this.mode, this.id, this.baseUrl.replace(/\/+$/, ''), this.kbId].join('|');
    if (key !== this.#storageKey && !this.busy) {
      this.#storageKey = key;
      this._turns = loadTurns(key);
      this._feedback = {};
      this.#nextTurnId = this._turns.length + 1;
    }
  }

  protected override updated(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('_turns') && !this.busy && this.#storageKey) saveTurns(this.#storageKey, this._turns);
    const transcript = this.renderRoot.querySelector<HTMLElement>('.transcript');
    if (transcript) {
      const end = transcript.scrollHeight - transcript.clientHeight;
      const question = [...transcript.querySelectorAll<HTMLElement>('.question')].at(-1);
      const target = this.#follow === 'end' || !question ? end : Math.min(end, question.offsetTop - 12);
      // Only ever forward: the visitor may have scrolled on, past the question. Read back: a zoomed page scrolls in device pixels.
      if (this.#follow !== 'none' && target > transcript.scrollTop) {
        transcript.scrollTop = target;
        this.#autoScrollTop = transcript.scrollTop;
      }
      // "Jump to latest" only for words that arrived below while the visitor reads further up.
      if (this.#follow !== 'none') this._behind = false;
      else if (this.busy && changed.has('_turns') && end - transcript.scrollTop >= NEAR_END_PIXELS) this._behind = true;
    }
    const retryAt = this._turns.at(-1)?.failure?.retryAt ?? 0;
    if (retryAt > Date.now() && !this.#countdownTimer) {
      this.#countdownTimer = setTimeout(() => {
        this.#countdownTimer = undefined;
        this.requestUpdate();
      }, (retryAt - Date.now()) % 1000 || 1000);
    }
  }

  /**
   * Runs a request with the page's token (asking `tokenProvider` first when
   * there is none), and once more with a fresh one from `tokenProvider`
   * when the service refused it as `token_expired`.
   */
  async #withToken<Outcome extends AskOutcome | { kind: 'sent' }>(request: (token: string) => Promise<Outcome>, mayRenew = true): Promise<Outcome> {
    let token = this.token;
    if (!token && this.tokenProvider) token = await this.#renewToken();
    const outcome = await request(token ?? '');
    if (mayRenew && outcome.kind === 'refused' && outcome.code === 'token_expired' && this.tokenProvider) {
      const renewed = await this.#renewToken();
      if (renewed && renewed !== token) return this.#withToken(request, false);
    }
    return outcome;
  }

  async #renewToken(): Promise<string | undefined> {
    try {
      const token = await this.tokenProvider?.();
      if (token) this.token = token;
      return token || undefined;
    } catch {
      return undefined;
    }
  }

  /** Ends a turn as its outcome says: a failure has words for the visitor; an answer or failure fires its event. */
  #finish(turnId: number, outcome: AskOutcome): void {
    const refused = outcome.kind === 'refused' ? outcome : undefined;
    const reason = refused ? refusalReason(refused.code, refused.status) : outcome.kind === 'interrupted' || outcome.kind === 'offline' || outcome.kind === 'stalled'
        ? outcome.kind
        : undefined;
    if (reason) this.#updateTurn(turnId, (turn) => failTurn(turn, reason, refused?.retryAfterSeconds));
    const turn = this._turns.find((candidate) => candidate.id === turnId);
    if (!turn) return;
    if (turn.status === 'answered' || turn.status === 'abstained') {
      this.dispatchEvent(
        new KbWidgetAnswerEvent({
          question: turn.question,
          answer: turn.text,
          citations: turn.citations,
          abstained: turn.status === 'abstained',
        }),
      );
    } else if (turn.status === 'failed') {
      this.dispatchEvent(new KbWidgetErrorEvent(turn.failure!.reason, outcome.kind === 'error' ? outcome.code : refused?.code));
    }
  }

  #updateTurn(turnId: number, change: (turn: Turn) => Turn): void {
    this._turns = this._turns.map((turn) => (turn.id === turnId ? change(turn) : turn));
  }

  #text(key: keyof WidgetStrings, values: Record<string, string | number> = {}): string {
    const template = this.strings?.[key] ?? DEFAULT_STRINGS[key];
    return template.replace(/\{(\w+)\}/g, (match, name: string) => String(values[name] ?? match));
  }

  async #focusInput(): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLInputElement>('input')?.focus();
  }

  #submitQuestion(event: SubmitEvent): void {
    event.preventDefault();
    if (this.busy) {
      this.stop();
      return;
    }
    const input = this.renderRoot.querySelector<HTMLInputElement>('input');
    if (!input?.value.trim()) return;
    const question = input.value;
    input.value = '';
    void this.ask(question);
  }

  /**
   * Asks a question chosen with a control the question removes (a starter
   * or suggestion chip, Retry), moving focus to the question field, so it
   * stays in the widget instead of falling back to the page.
   */
  #askFromControl(question: string): void {
    void this.ask(question);
    void this.#focusInput();
  }

  /** Asks a failed question again in its place, once the service's `Retry-After` has passed. */
  #retryQuestion(turn: Turn): void {
    if ((turn.failure?.retryAt ?? 0) > Date.now()) return;
    this._turns = this._turns.filter((candidate) => candidate !== turn);
    this.#askFromControl(turn.question);
  }

  /** Clears the conversation, shown and kept, and offers the greeting and starters again. */
  #startNewConversation(): void {
    this.stop();
    this._turns = [];
    this.#follow = 'question';
    void this.#focusInput();
  }

  #closeOnEscape(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || this.mode === 'inline') return;
    event.stopPropagation();
    void this.hide();
  }

  #toggleFromLauncher(): void {
    void (this._open ? this.hide() : this.show());
  }

  /** Ctrl+K / ⌘K anywhere on the page opens the panel (or moves focus into it), when `hotkey` is set. */
  #openOnHotkey = (event: KeyboardEvent): void => {
    if (!this.hotkey || this.mode === 'inline' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== 'k') return;
    event.preventDefault();
    void (this._open ? this.#focusInput() : this.show());
  };

  /**
   * The visitor scrolled (not the widget: a pixel apart from where it
   * scrolled to): up, the transcript stays where they read; to the end, it
   * keeps the end in view and "Jump to latest" goes.
   */
  #trackScroll(event: Event): void {
    const transcript = event.currentTarget as HTMLElement;
    const top = transcript.scrollTop;
    const atEnd = transcript.scrollHeight - top - transcript.clientHeight < NEAR_END_PIXELS;
    if (Math.abs(top - this.#autoScrollTop) > 1) {
      if (atEnd) this.#follow = 'end';
      else if (top < this.#lastScrollTop) this.#follow = 'none';
    }
    this.#lastScrollTop = top;
    if (atEnd) this._behind = false;
  }

  #jumpToLatest(): void {
    this.#follow = 'end';
    this.requestUpdate();
    void this.#focusInput();
  }

  async #copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      return;
    }
    this._copied = text;
    clearTimeout(this.#copiedTimer);
    this.#copiedTimer = setTimeout(() => (this._copied = undefined), COPIED_MILLISECONDS);
  }

  /** Moves focus to the source a `[n]` marker points at, opening its quote, without touching the page's URL. */
  #followCitation(event: MouseEvent): void {
    const marker = (event.target as Element | null)?.closest?.('a.citation');
    const target = marker?.getAttribute('href');
    if (!marker || !target?.startsWith('#')) return;
    event.preventDefault();
    const source = this.renderRoot.querySelector<HTMLElement>(`[id="${CSS.escape(target.slice(1))}"]`);
    source?.setAttribute('open', '');
    const focusable = source?.querySelector('summary') ?? source;
    focusable?.focus();
    focusable?.scrollIntoView({ block: 'nearest' });
  }

  #setFeedback(key: string, state: FeedbackState | undefined): void {
    this._feedback = { ...this._feedback, [key]: state };
  }

  /** Opens the form of `key` as `state` says, scrolled into view; closes it when it is open already. */
  async #toggleForm(key: string, state: FeedbackState): Promise<void> {
    const current = this._feedback[key];
    if (current?.status === 'sending') return;
    this.#setFeedback(key, current && current.rating === state.rating ? undefined : state);
    await this.updateComplete;
    this.renderRoot.querySelector(`#kb-form-${key}`)?.scrollIntoView({ block: 'nearest' });
  }

  /** 👍 sends at once; 👎 opens the optional reasons and comment, and pressed again closes them. Nothing after one was sent. */
  #rate(turn: Turn, rating: 'up' | 'down'): void {
    const key = String(turn.id);
    if (turn.rated) return;
    if (rating === 'up') void this.#sendFeedback(key, turn, { rating });
    else void this.#toggleForm(key, { rating, status: 'open' });
  }

  /** Sends the reasons and comment of a 👎 (`citation` absent) or a problem report on `citation`. */
  #submitFeedback(event: SubmitEvent, turn: Turn, citation?: Citation): void {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const reason = form.get('reason');
    const comment = String(form.get('comment')).trim();
    void this.#sendFeedback(citation ? `${turn.id}-${citation.index}` : String(turn.id), turn, {
      ...(citation ? { citation } : { rating: 'down' }),
      ...(reason ? { reason: String(reason) } : {}),
      ...(comment ? { comment } : {}),
    });
  }

  /**
   * Sends a rating of `turn` (with its citations' spans) or a problem report
   * on one citation (its span), unchanged, then shows thanks (moving focus
   * there when the form that had it is gone) or a notice to try again.
   */
  async #sendFeedback(key: string, turn: Turn, fields: { rating?: 'up' | 'down'; citation?: Citation; reason?: string; comment?: string }): Promise<void> {
    const { rating, citation, reason, comment } = fields;
    if (this._feedback[key]?.status === 'sending') return;
    this.#setFeedback(key, { ...this._feedback[key], ...(rating ? { rating } : {}), status: 'sending' });
    const common = { question: turn.question, provenance: provenanceOf(turn), ...(comment ? { comment } : {}) };
    const feedback: FeedbackRequest = citation
      ? { kind: 'problem', ...common, source_span: citation.source_span, reason: reason as ProblemReason }
      : { kind: 'rating', ...common, rating: rating!, ...(reason ? { reason: reason as RatingReason } : {}), source_spans: turn.citations.map((cited) => cited.source_span) };
    const outcome = await this.#withToken((token) => sendFeedback({ baseUrl: this.baseUrl, kbId: this.kbId, token }, feedback));
    const sent = outcome.kind === 'sent';
    this.#setFeedback(key, { ...this._feedback[key]!, status: sent ? 'sent' : 'failed' });
    if (!sent) return;
    if (rating) this.#updateTurn(turn.id, (current) => ({ ...current, rated: rating }));
    await this.updateComplete;
    if (!(this.renderRoot as ShadowRoot).activeElement) this.renderRoot.querySelector<HTMLElement>(`#kb-thanks-${key}`)?.focus();
  }

  override render(): TemplateResult {
    const inline = this.mode === 'inline';
    const panelId = 'kb-widget-panel';
    return html`
      ${inline
        ? nothing
        : html`<button
            class="launcher"
            part="launcher"
            aria-expanded=${String(this._open)}
            aria-controls=${panelId}
            aria-keyshortcuts=${this.hotkey ? 'Control+K Meta+K' : nothing}
            @click=${this.#toggleFromLauncher}
          >
            ${this.#text('open')}
          </button>`}
      <section
        id=${panelId}
        class="panel"
        part="panel"
        role=${inline ? 'region' : 'dialog'}
        aria-labelledby="kb-widget-heading"
        ?hidden=${!inline && !this._open}
        @keydown=${this.#closeOnEscape}
      >
        <div class="header" part="header">
          <h2 id="kb-widget-heading">${this.heading ?? this.#text('heading')}</h2>
          ${this._turns.length > 0
            ? html`<button class="new" @click=${this.#startNewConversation}>${this.#text('newConversation')}</button>`
            : nothing}
          ${inline ? nothing : html`<button class="close" @click=${() => void this.hide()} aria-label=${this.#text('close')}>${icon('close')}</button>`}
        </div>
        <div
          class="transcript"
          part="transcript"
          role="log"
          aria-label=${this.#text('transcript')}
          @click=${this.#followCitation}
          @scroll=${this.#trackScroll}
        >
          ${this._turns.length === 0 ? this.#renderWelcome() : this._turns.map((turn) => this.#renderTurn(turn))}
        </div>
        ${this._behind ? html`<button class="jump" @click=${this.#jumpToLatest}>${this.#text('jumpToLatest')} ${icon('arrow-down')}</button>` : nothing}
        <p class="visually-hidden" role="status">${this._copied === undefined ? nothing : this.#text('copied')}</p>
        <form @submit=${this.#submitQuestion}>
          <input
            part="input"
            type="text"
            name="question"
            autocomplete="off"
            maxlength="2000"
            aria-label=${this.#text('questionLabel')}
            placeholder=${this.placeholder ?? this.#text('placeholder')}
          />
          <button class="submit" part="submit" type="submit">${this.busy ? this.#text('stop') : this.#text('ask')}</button>
        </form>
      </section>
    `;
  }

  #renderWelcome(): TemplateResult {
    return html`${this.greeting ? html`<p class="greeting" part="greeting">${this.greeting}</p>` : nothing}
    ${this.starterQuestions.length > 0
      ? html`<div>
          <h3>${this.#text('starters')}</h3>
          <div class="chips">${this.starterQuestions.map((question) => this.#renderQuestionButton(question))}</div>
        </div>`
      : nothing}`;
  }

  #renderQuestionButton(question: string): TemplateResult {
    return html`<button class="chip" part="suggestion" @click=${() => this.#askFromControl(question)}>${withInlineCode(question)}</button>`;
  }

  /** A copy button (none where the Clipboard API is missing, e.g. on plain HTTP); says "Copied" once it copied. */
  #renderCopy(text: string, label: string): TemplateResult | typeof nothing {
    if (!navigator.clipboard) return nothing;
    return html`<button class="copy" @click=${() => void this.#copy(text)}>${this._copied === text ? this.#text('copied') : label}</button>`;
  }

  /**
   * One turn. While an answer streams, its growing text is hidden from
   * assistive technology (the log would announce every token); when it
   * ends, the finished answer is added as a new node, which the log
   * announces once.
   */
  #renderTurn(turn: Turn): TemplateResult {
    const finished = turn.status !== 'streaming';
    const known = new Set(turn.citations.map((citation) => citation.index));
    const answer = renderAnswer(parseAnswerMarkdown(turn.text), {
      citationHref: (index) => (known.has(index) ? `#${sourceId(turn.id, index)}` : undefined),
      citationLabel: (index) => this.#text('citation', { n: index }),
      ...(finished ? { codeActions: (code: string) => this.#renderCopy(code, this.#text('copyCode')) } : {}),
    });
    return html`
      <p class="question" part="message">${withInlineCode(turn.question)}</p>
      ${finished
        ? html`<article class="answer" part="message">${answer}</article>`
        : html`<div class="answer" part="message" aria-hidden="true">${answer}</div>
            ${turn.text ? nothing : html`<p class="status">${this.#text('thinking')}</p>`}`}
      ${this.#renderNotice(turn)} ${finished ? this.#renderSources(turn) : nothing} ${this.#renderActions(turn)}
      ${turn.status === 'answered' && turn.suggestions.length > 0 && turn === this._turns.at(-1)
        ? html`<div>
            <h3>${this.#text('suggestions')}</h3>
            <div class="chips">${turn.suggestions.map((question) => this.#renderQuestionButton(question))}</div>
          </div>`
        : nothing}
    `;
  }

  /**
   * Controls under a finished answer: copy it with its sources; after an
   * abstention, the way to support; 👍 and 👎 (pressed state; once sent,
   * thanks), the reasons after 👎.
   */
  #renderActions(turn: Turn): TemplateResult | typeof nothing {
    const answered = turn.status === 'answered';
    if (!answered && turn.status !== 'abstained') return nothing;
    const support = answered ? undefined : followableUrl(this.supportUrl, location.origin, document.baseURI);
    const sources = turn.citations.map((citation) => `[${citation.index}] ${citation.title ?? readableDocumentName(citation.doc_id)} ${citation.url ?? ''}`.trim());
    const state = this._feedback[turn.id];
    const chosen = turn.rated ?? state?.rating;
    const rate = (rating: 'up' | 'down', label: 'helpful' | 'notHelpful', shown: IconName) =>
      html`<button
        class="rate"
        aria-label=${this.#text(label)}
        aria-pressed=${String(chosen === rating)}
        aria-disabled=${turn.rated || state?.status === 'sending' ? 'true' : nothing}
        @click=${() => this.#rate(turn, rating)}
      >
        ${icon(shown)}
      </button>`;
    return html`<div class="actions" part="actions">
        ${answered ? this.#renderCopy([turn.text, ...sources].join('\n'), this.#text('copyAnswer')) : nothing}
        ${support ? this.#renderLink(support, this.#text('contactSupport')) : nothing} ${rate('up', 'helpful', 'thumbs-up')}${rate('down', 'notHelpful', 'thumbs-down')}
        ${this.#renderThanks(String(turn.id), !!turn.rated)}
      </div>
      ${chosen === 'down' && !turn.rated ? this.#renderFeedbackForm(turn) : nothing}${this.#renderFeedbackFailure(String(turn.id))}`;
  }

  /** Where thanks appear, and are announced, once feedback was sent; focused when the form that had focus is gone. */
  #renderThanks(key: string, sent: boolean): TemplateResult {
    return html`<span class="thanks" id=${`kb-thanks-${key}`} role="status" tabindex="-1">${sent ? this.#text('thanks') : nothing}</span>`;
  }

  #renderFeedbackFailure(key: string): TemplateResult | typeof nothing {
    return this._feedback[key]?.status === 'failed' ? html`<p class="notice" role="alert">${this.#text('feedbackFailed')}</p>` : nothing;
  }

  /**
   * The form of a 👎 (`citation` absent: a reason may be chosen) or of a
   * problem report on `citation` (a reason must be): reasons as a radio
   * group, an optional comment of at most {@link MAX_COMMENT_CHARACTERS} characters
   * with a counter, and Send.
   */
  #renderFeedbackForm(turn: Turn, citation?: Citation): TemplateResult {
    const key = citation ? `${turn.id}-${citation.index}` : String(turn.id);
    const state = this._feedback[key]!;
    const counter = `kb-count-${key}`;
    return html`<form class="feedback" part="feedback" id=${`kb-form-${key}`} @submit=${(event: SubmitEvent) => this.#submitFeedback(event, turn, citation)}>
      <fieldset>
        <legend>${this.#text(citation ? 'whatIsWrong' : 'whatWentWrong')}</legend>
        ${(citation ? PROBLEM_REASONS : RATING_REASONS).map(
          (reason) => html`<label><input type="radio" name="reason" value=${reason} ?required=${!!citation} />${this.#text(wordsOf(reason))}</label>`,
        )}
      </fieldset>
      <label
        >${this.#text('comment')}
        <textarea
          name="comment"
          maxlength=${MAX_COMMENT_CHARACTERS}
          aria-describedby=${counter}
          @input=${(event: InputEvent) => this.#setFeedback(key, { ...state, length: (event.target as HTMLTextAreaElement).value.length })}
        ></textarea>
      </label>
      <p class="status" id=${counter}>${this.#text('characters', { n: state.length ?? 0, max: MAX_COMMENT_CHARACTERS })}</p>
      <button class="submit" aria-disabled=${state.status === 'sending' ? 'true' : nothing}>${this.#text('send')}</button>
    </form>`;
  }

  /** "Report a problem" on one citation (opens its form; once sent, thanks). */
  #renderReport(turn: Turn, citation: Citation): TemplateResult {
    const key = `${turn.id}-${citation.index}`;
    const state = this._feedback[key];
    const sent = state?.status === 'sent';
    return html`${sent
        ? nothing
        : html`<button class="report" aria-expanded=${String(!!state)} @click=${() => this.#toggleForm(key, { status: 'open' })}>
            ${this.#text('reportProblem')}<span class="visually-hidden"> [${citation.index}]</span>
          </button>`}${this.#renderThanks(key, sent)} ${state && !sent ? this.#renderFeedbackForm(turn, citation) : nothing}${this.#renderFeedbackFailure(key)}`;
  }

  #renderLink(url: string, label: string, className = ''): TemplateResult {
    return html`<a class=${className} href=${url} target="_blank" rel="noopener noreferrer"
      >${label}<span class="visually-hidden"> ${this.#text('newTab')}</span></a
    >`;
  }

  /** What stopped or failed a turn; a failure worth retrying keeps its own Try again, whichever turn it is. */
  #renderNotice(turn: Turn): TemplateResult | typeof nothing {
    if (turn.status === 'stopped') return html`<p class="status">${this.#text('stopped')}</p>`;
    if (turn.status !== 'failed' || !turn.failure) return nothing;
    const { reason, retryAfterSeconds, retryAt } = turn.failure;
    const words = this.#text(wordsOf(reason), { seconds: retryAfterSeconds ?? 30 });
    const retryable = ['rate-limited', 'offline', 'interrupted', 'stalled', 'generation-failed', 'unavailable'].includes(reason);
    const wait = Math.ceil(((retryAt ?? 0) - Date.now()) / 1000);
    // The alert is announced once; the countdown lives on the button, outside it, so it is not announced every second.
    return html`<div class="notice">
      <p role="alert">${words}</p>
      ${retryable
        ? html`<button class="retry" aria-disabled=${wait > 0 ? 'true' : nothing} @click=${() => this.#retryQuestion(turn)}>
            ${wait > 0 ? this.#text('retryIn', { seconds: wait }) : this.#text('retry')}
          </button>`
        : nothing}
    </div>`;
  }

  /**
   * The sources: one row per document, its title linked when it has a URL a
   * visitor may follow, then its citations; a quoted passage opens with the
   * sentences the answer used marked, and scrolls by keyboard too.
   */
  #renderSources(turn: Turn): TemplateResult | typeof nothing {
    if (turn.citations.length === 0) return nothing;
    const sentences = answerSentences(turn.text);
    return html`<div>
      <h3>${this.#text('sources')}</h3>
      <ol class="sources">
        ${groupSources(turn.citations, location.origin).map(
          (group) => html`<li part="citation">
            ${group.url ? this.#renderLink(group.url, group.title, 'title') : html`<span class="title">${group.title}</span>`}
            ${group.citations.map(({ citation, section }) => {
              const id = sourceId(turn.id, citation.index);
              const label = `${citation.text ? this.#text('quote', { n: citation.index }) : `[${citation.index}]`}${section ? ` · ${section}` : ''}`;
              return html`${citation.text
                ? html`<details id=${id}>
                    <summary>${label}</summary>
                    <blockquote tabindex="0">${renderAnswer(markSentences(parseAnswerMarkdown(citation.text), sentences), NO_CITATION_LINKS)}</blockquote>
                  </details>`
                : html`<span class="ref" id=${id} tabindex="-1">${label}</span>`}
              ${this.#renderReport(turn, citation)}`;
            })}
          </li>`,
        )}
      </ol>
    </div>`;
  }
}
