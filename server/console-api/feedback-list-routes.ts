import { Router } from 'express';
import type { FeedbackPage } from '../../protocol/console-protocol.ts';
import { memberReach } from '../access/access-rules.ts';
import { feedbackCursor, feedbackPage, toConsoleFeedback } from './feedback-page.ts';
import { membership, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';

/** Visitors' ratings and problem reports, for editors and owners. */
export function feedbackListRoutes(deps: ConsoleRouteDeps): Router {
  const { store } = deps;
  const router = Router();

  /**
   * Visitors' ratings and problem reports, newest first, a page at a time
   * (feedback-page.ts), for editors and owners. Passages are judged by the
   * reader's own reach: a document they cannot read is not named.
   */
  router.get('/knowledge-bases/:kbId/feedback', async (request, response) => {
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
  });

  return router;
}
