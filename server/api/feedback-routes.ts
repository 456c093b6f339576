import type { QuestionLogWriter } from '../question-log/question-log-writer.ts';
import type { Request, Response, Router } from 'express';
import { FeedbackRequestSchema } from '../../protocol/query-schemas.ts';
import { kbId as kbIdParameter, problemResponse } from '../http/openapi-parts.ts';
import { mountRoutes, type RouteRecord } from '../http/route-record.ts';
import { parseFeedbackBody, type ValidFeedback } from './feedback-body.ts';
import { problem } from '../http/problem.ts';
import { WIDGET_REFUSALS } from './query-routes.ts';
import type { WidgetLocals } from './widget-auth.ts';
import type { SourceSpanCodec } from './source-span.ts';
import type { FeedbackPassage, Reach, Store } from '../store/store.ts';

/**
 * The feedback endpoint (docs/specification.md "Feedback"), relative to
 * `/kb-api/api/v1/kb/:kbId/widget`: `POST /feedback` takes a rating of an
 * answer or a problem report on one source (protocol/query-protocol.ts
 * `FeedbackRequest`) and answers 204. It sits behind the same CORS, body,
 * token and rate-limit checks as the query endpoints (app.ts). The service
 * stays stateless: everything the record needs comes in the body, and every
 * `source_span` in it must be one this service issued for the token's
 * knowledge base, citing a document the token can reach now; otherwise the
 * request is refused as 400 `invalid_request` naming the span, and nothing
 * is stored.
 */
export interface FeedbackRouteDeps {
  store: Store;
  codec: SourceSpanCodec;
  /** Clock in epoch milliseconds (the record's time). */
  now: () => number;
  /** The question log, whose entry for the question gains the feedback; absent when the log is off. */
  questionLog?: QuestionLogWriter;
}

/** How long after a question its feedback is attached to its log entry: a visitor rates an answer while reading it. */
export const FEEDBACK_ATTACH_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Stores a rating of an answer or a problem report on one source, with the
 * passages its spans locate, and adds it to the question's log entry when
 * the log is on.
 */
async function storeFeedback(request: Request, response: Response, deps: FeedbackRouteDeps): Promise<void> {
  const feedback = parseFeedbackBody(request.body);
  const { grant } = response.locals as WidgetLocals;
  const passages = await verifiedPassages(deps, feedback, grant.reach);
  const { sourceSpans: _spans, ...fields } = feedback;
  const now = deps.now();
  await deps.store.addFeedback({ ...fields, kbId: grant.reach.kbId, createdAt: now, passages });
  if (deps.questionLog !== undefined) {
    // The entry may still wait in the writer: a visitor can rate an answer the moment it ends.
    await deps.questionLog.flush();
    await deps.store.recordQuestionFeedback(
      grant.reach.kbId,
      feedback.question,
      now,
      FEEDBACK_ATTACH_WINDOW_MS,
      feedback.kind === 'rating' ? { kind: 'rating', rating: feedback.rating!, ...(feedback.reason === undefined ? {} : { reason: feedback.reason }) } : { kind: 'problem' },
    );
  }
  response.status(204).end();
}

/** The feedback endpoint: `POST /feedback`. */
export const FEEDBACK_ROUTES: readonly RouteRecord<FeedbackRouteDeps>[] = [
  {
    method: 'post',
    path: '/feedback',
    body: FeedbackRequestSchema,
    operation: {
      summary: 'Rate an answer, or report a problem with one of its sources',
      description:
        'The service is stateless: the body carries the question, the answer\'s provenance and the `source_span`s as the answer had them. ' +
        'Every span must be one this service issued for this knowledge base, citing a document the token can reach now; otherwise 400 ' +
        '`invalid_request` names the span and nothing is stored. Records keep no address, token or user agent; editors read them at ' +
        '`GET /console/api/knowledge-bases/{kbId}/feedback`. Same token, origin, CORS, size and rate-limit rules as the query endpoints.',
      security: [{ widgetToken: [] }],
      parameters: [kbIdParameter],
      responses: {
        '204': { description: 'Stored' },
        '400': problemResponse('`invalid_request`: a field out of bounds, or a span forged, altered, of another knowledge base or out of the token\'s reach'),
        ...WIDGET_REFUSALS,
        '429': problemResponse('`rate_limited` (see `Retry-After`): feedback counts against the same limits as questions'),
        '503': problemResponse('`unavailable` (see `Retry-After`)'),
      },
    },
    handler: storeFeedback,
  },
];

/** The feedback endpoint ({@link FEEDBACK_ROUTES}), mounted. */
export function feedbackRoutes(deps: FeedbackRouteDeps): Router {
  return mountRoutes(FEEDBACK_ROUTES, deps);
}

/**
 * The passages the feedback's spans locate, in order.
 *
 * @throws a 400 `invalid_request` problem for the first span that this
 *   service did not issue (forged, altered), that belongs to another
 *   knowledge base, or whose document the token's reach does not hold now
 *   (restricted, workspace-only under a public token, removed)
 */
async function verifiedPassages(deps: FeedbackRouteDeps, feedback: ValidFeedback, reach: Reach): Promise<FeedbackPassage[]> {
  const name = (index: number) => (feedback.kind === 'problem' ? 'Field "source_span"' : `"source_spans[${index}]"`);
  const passages = feedback.sourceSpans.map((span, index) => {
    const locator = deps.codec.decode(span);
    if (!locator) throw problem(400, 'invalid_request', `${name(index)} is not a source span this service issued, or it was altered`);
    if (locator.kbId !== reach.kbId) throw problem(400, 'invalid_request', `${name(index)} cites a passage of another knowledge base`);
    return { docId: locator.docId, chunkId: locator.chunkId, version: locator.version };
  });
  const documents = [...new Set(passages.map((passage) => passage.docId))];
  const reachable = await Promise.all(documents.map(async (docId) => (await deps.store.countPassages(reach, docId)) > 0));
  const outside = passages.findIndex((passage) => !reachable[documents.indexOf(passage.docId)]);
  if (outside >= 0) throw problem(400, 'invalid_request', `${name(outside)} cites a document this token cannot reach now`);
  return passages;
}
