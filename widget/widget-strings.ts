/**
 * Every text the widget shows or announces, in English by default. Pages
 * translate the widget by setting the element's `strings` property to a
 * partial object; missing keys fall back to these.
 */
export interface WidgetStrings {
  heading: string;
  placeholder: string;
  /** Accessible name of the question field. */
  questionLabel: string;
  ask: string;
  stop: string;
  /** Accessible name of the launcher button. */
  open: string;
  close: string;
  /** Heading of the sources list. */
  sources: string;
  /** Heading of the follow-up questions. */
  suggestions: string;
  /** Heading of the starter questions. */
  starters: string;
  /** Accessible label of a citation marker; `{n}` is its number. */
  citation: string;
  /** Shown while waiting for the first words. */
  thinking: string;
  stopped: string;
  retry: string;
  expired: string;
  revoked: string;
  notAllowed: string;
  /** `{seconds}` is the wait. */
  rateLimited: string;
  offline: string;
  interrupted: string;
  generationFailed: string;
  unavailable: string;
  /** The page's token is missing, invalid or for another knowledge base: a setup problem, not the visitor's. */
  misconfigured: string;
  rejected: string;
  /** Accessible name of the transcript. */
  transcript: string;
}

export const DEFAULT_STRINGS: WidgetStrings = {
  heading: 'Ask the docs',
  placeholder: 'Ask a question…',
  questionLabel: 'Your question',
  ask: 'Ask',
  stop: 'Stop',
  open: 'Open the assistant',
  close: 'Close',
  sources: 'Sources',
  suggestions: 'You could also ask',
  starters: 'Try asking',
  citation: 'Source {n}',
  thinking: 'Looking through the docs…',
  stopped: 'You stopped this answer.',
  retry: 'Try again',
  expired: 'This chat session has expired. Reload the page to continue.',
  revoked: 'This assistant has been switched off for this site.',
  notAllowed: "This site isn't allowed to use this assistant.",
  rateLimited: 'Too many questions right now. Try again in {seconds} seconds.',
  offline: "Can't reach the assistant. Check your connection and try again.",
  interrupted: 'The answer was cut off.',
  generationFailed: 'Something went wrong while answering.',
  unavailable: 'The assistant is unavailable right now. Try again in a moment.',
  misconfigured: "This assistant isn't set up correctly on this site.",
  rejected: "The assistant couldn't take that question.",
  transcript: 'Conversation',
};
