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
  /** The launcher button: its text and accessible name (its expanded state tells whether the panel is open). */
  open: string;
  /** Accessible name of the panel's ✕ button. */
  close: string;
  /** Starts over: clears the conversation shown and kept for this tab. */
  newConversation: string;
  /** Shown when the visitor scrolled up and more arrived below. */
  jumpToLatest: string;
  /** Copy buttons, and the state they show (and announce) once copied. */
  copyAnswer: string;
  copyCode: string;
  copied: string;
  /** Offered with an abstention when the page sets `support-url`. */
  contactSupport: string;
  /** Accessible names of the 👍 and 👎 buttons under a finished answer. */
  helpful: string;
  notHelpful: string;
  /** Legend of the optional reasons offered after 👎. */
  whatWentWrong: string;
  /** Reasons, named like the wire's values (`not_what_i_asked` is `notWhatIAsked`). */
  incorrect: string;
  notWhatIAsked: string;
  outOfDate: string;
  brokenLink: string;
  unrelated: string;
  other: string;
  /** The optional comment field of a rating or report, and its counter (`{n}` typed of `{max}`). */
  comment: string;
  characters: string;
  /** Sends a rating's reason and comment, or a problem report. */
  send: string;
  /** Shown (and announced) once feedback was sent. */
  thanks: string;
  feedbackFailed: string;
  /** The control on each source that opens a problem report, and the report's legend. */
  reportProblem: string;
  whatIsWrong: string;
  /** Added, hidden, to the name of links that open a new tab. */
  newTab: string;
  /** Names a quoted passage in the sources; `{n}` is its citation number. */
  quote: string;
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
  /** The retry button while the service asked to wait (`Retry-After`); `{seconds}` counts down. */
  retryIn: string;
  expired: string;
  revoked: string;
  notAllowed: string;
  /** `{seconds}` is the wait the service asked for (the retry button counts it down). */
  rateLimited: string;
  offline: string;
  interrupted: string;
  /** Nothing came from the service, not even a heartbeat, for a while (the element's `stallTimeout`). */
  stalled: string;
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
  close: 'Close the assistant',
  newConversation: 'New conversation',
  jumpToLatest: 'Jump to latest',
  copyAnswer: 'Copy answer',
  copyCode: 'Copy code',
  copied: 'Copied',
  contactSupport: 'Contact support',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  whatWentWrong: 'What went wrong? (optional)',
  incorrect: 'Incorrect',
  notWhatIAsked: 'Not what I asked',
  outOfDate: 'Out of date',
  brokenLink: 'Broken link',
  unrelated: "Doesn't support the answer",
  other: 'Other',
  comment: 'Comment (optional)',
  characters: '{n} of {max} characters',
  send: 'Send',
  thanks: 'Thanks for the feedback',
  feedbackFailed: "Couldn't send your feedback. Try again.",
  reportProblem: 'Report a problem',
  whatIsWrong: "What's wrong with this source?",
  newTab: '(opens in a new tab)',
  quote: 'Quote [{n}]',
  sources: 'Sources',
  suggestions: 'You could also ask',
  starters: 'Try asking',
  citation: 'Source {n}',
  thinking: 'Looking through the docs…',
  stopped: 'You stopped this answer.',
  retry: 'Try again',
  retryIn: 'Try again in {seconds} s',
  expired: 'This chat session has expired. Reload the page to continue.',
  revoked: 'This assistant has been switched off for this site.',
  notAllowed: "This site isn't allowed to use this assistant.",
  rateLimited: 'Too many questions right now. Wait a moment, then try again.',
  offline: "Can't reach the assistant. Check your connection and try again.",
  interrupted: 'The answer was cut off.',
  stalled: "The assistant isn't answering. Try again in a moment.",
  generationFailed: 'Something went wrong while answering.',
  unavailable: 'The assistant is unavailable right now. Try again in a moment.',
  misconfigured: "This assistant isn't set up correctly on this site.",
  rejected: "The assistant couldn't take that question.",
  transcript: 'Conversation',
};
