import type { Citation } from '../protocol/query-protocol.ts';

/**
 * Events of `<kb-widget>`: typed `Event` subclasses that bubble and cross
 * shadow roots (`composed`), fired only for what the visitor did or for the
 * outcome of an answer.
 */

/** The visitor asked a question (typed, a starter, a suggestion or a retry). */
export class KbWidgetQuestionEvent extends Event {
  static readonly eventName = 'kb-widget-question';
  readonly question: string;
  constructor(question: string) {
    super(KbWidgetQuestionEvent.eventName, { bubbles: true, composed: true });
    this.question = question;
  }
}

/** An answer finished: answered or abstained. */
export class KbWidgetAnswerEvent extends Event {
  static readonly eventName = 'kb-widget-answer';
  readonly question: string;
  readonly answer: string;
  readonly citations: readonly Citation[];
  readonly abstained: boolean;
  constructor(detail: { question: string; answer: string; citations: readonly Citation[]; abstained: boolean }) {
    super(KbWidgetAnswerEvent.eventName, { bubbles: true, composed: true });
    this.question = detail.question;
    this.answer = detail.answer;
    this.citations = detail.citations;
    this.abstained = detail.abstained;
  }
}

/** An answer failed or was refused; `reason` is the widget's failure reason, `code` the server's when it sent one. */
export class KbWidgetErrorEvent extends Event {
  static readonly eventName = 'kb-widget-error';
  readonly reason: string;
  readonly code: string | undefined;
  constructor(reason: string, code?: string) {
    super(KbWidgetErrorEvent.eventName, { bubbles: true, composed: true });
    this.reason = reason;
    this.code = code;
  }
}

/** The launcher panel opened or closed. */
export class KbWidgetToggleEvent extends Event {
  static readonly eventName = 'kb-widget-toggle';
  readonly open: boolean;
  constructor(open: boolean) {
    super(KbWidgetToggleEvent.eventName, { bubbles: true, composed: true });
    this.open = open;
  }
}

declare global {
  interface HTMLElementEventMap {
    'kb-widget-question': KbWidgetQuestionEvent;
    'kb-widget-answer': KbWidgetAnswerEvent;
    'kb-widget-error': KbWidgetErrorEvent;
    'kb-widget-toggle': KbWidgetToggleEvent;
  }
}
