/** The person signed in on the sign-in page; the app loads what they can see. */
export class ConsoleSignedInEvent extends Event {
  static readonly eventName = 'kb-console-signed-in';

  constructor() {
    super(ConsoleSignedInEvent.eventName, { bubbles: true, composed: true });
  }
}

declare global {
  interface HTMLElementEventMap {
    'kb-console-signed-in': ConsoleSignedInEvent;
  }
}
