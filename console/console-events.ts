/** The person signed in on the sign-in page; the app loads what they can see. */
export class ConsoleSignedInEvent extends Event {
  static readonly eventName = 'kb-console-signed-in';

  constructor() {
    super(ConsoleSignedInEvent.eventName, { bubbles: true, composed: true });
  }
}

/**
 * The live preview on the Developers tab was issued a preview token (at its
 * first question, or again after the 10 minutes ran out): the token list
 * has a new entry.
 */
export class ConsolePreviewTokenIssuedEvent extends Event {
  static readonly eventName = 'kb-console-preview-token-issued';

  constructor() {
    super(ConsolePreviewTokenIssuedEvent.eventName, { bubbles: true, composed: true });
  }
}

declare global {
  interface HTMLElementEventMap {
    'kb-console-signed-in': ConsoleSignedInEvent;
    'kb-console-preview-token-issued': ConsolePreviewTokenIssuedEvent;
  }
}
