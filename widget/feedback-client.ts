/**
 * Feedback client of the widget (docs/http-api.md "Feedback and problem reports"): sends a rating of an answer or a
 * problem report on one source to `POST {baseUrl}/kb-api/api/v1/kb/{kbId}/widget/feedback`.
 * DOM-free, like answer-stream.ts, whose request and refusal handling it
 * shares; the body's type comes in with `import type`.
 */
import type { FeedbackRequest } from '../protocol/query-protocol.ts';
import { postToWidget, readRefusal, type Refusal, type WidgetEndpoint } from './answer-stream.ts';

/**
 * How sending ended: `sent` (any 2xx; the service answers 204), `refused`
 * (an HTTP error status, as {@link readRefusal} reads it), or `offline`
 * (`fetch` failed: network, DNS, CORS).
 */
export type FeedbackOutcome = { kind: 'sent' } | Refusal | { kind: 'offline' };

/**
 * @param feedback sent as is: the `source_span`s exactly as the answer's citations carried them
 * @returns the outcome; never rejects
 */
export async function sendFeedback(endpoint: WidgetEndpoint, feedback: FeedbackRequest): Promise<FeedbackOutcome> {
  let response: Response;
  try {
    response = await postToWidget(endpoint, 'feedback', feedback);
  } catch {
    return { kind: 'offline' };
  }
  return response.ok ? { kind: 'sent' } : readRefusal(response);
}
