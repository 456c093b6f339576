import type { Request, Response } from 'express';
import type { FeedbackPage } from '../../protocol/console-protocol.ts';
import { memberReach } from '../access/access-rules.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import type { RouteRecord } from '../http/route-record.ts';
import { feedbackCursor, feedbackPage, toConsoleFeedback } from './feedback-page.ts';
import { membership, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { consoleErrors } from './openapi-parts.ts';

/**
 * Visitors' ratings and problem reports, newest first, a page at a time
 * (feedback-page.ts), for editors and owners. Passages are judged by the
 * reader's own reach: a document they cannot read is not named.
 */
async function listFeedback(request: Request, response: Response, { store }: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Reading feedback');
  const user = signedInUser(response);
  const { limit, before } = feedbackPage(request.query);
  const reach = memberReach(kbId, user.id, role);
  const records = await store.listFeedback(reach, { limit: limit + 1, ...(before ? { before } : {}) });
  const page = records.slice(0, limit);
  response.json({
    feedback: page.map(toConsoleFeedback),
    ...(records.length > limit ? { next_cursor: feedbackCursor(page.at(-1)!) } : {}),
  } satisfies FeedbackPage);
}

/** Visitors' ratings and problem reports, for editors and owners. */
export const FEEDBACK_LIST_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/feedback',
    operation: {
      summary: "Visitors' ratings and problem reports, newest first (editors and owners)",
      security: [{ consoleSession: [] }],
      parameters: [
        kbIdParameter,
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
        { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'The `next_cursor` of the previous page' },
      ],
      responses: {
        '200': json(ref('FeedbackPage'), 'A page of feedback'),
        '400': problemResponse('`limit` out of range or a `cursor` this API did not give (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: listFeedback,
  },
];
