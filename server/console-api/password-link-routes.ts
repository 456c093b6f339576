import { Router } from 'express';
import {
  PasswordLinkCheckRequestSchema,
  SetPasswordRequestSchema,
  type PasswordLink,
  type SetPasswordRequest,
} from '../../protocol/console-protocol.ts';
import { hashPassword, passwordPolicyProblem } from '../auth/password-hash.ts';
import { hashPasswordLinkSecret, passwordLinkRefusal, passwordLinkState, type PasswordLinkState } from '../auth/password-links.ts';
import { replaceSession } from '../http/console-session.ts';
import { problem } from '../http/problem.ts';
import { SharedRateLimitStore } from '../http/shared-rate-limit-store.ts';
import type { PasswordLinkRecord, Store } from '../store/store.ts';
import { parseBody } from './console-context.ts';
import { attemptLimiter, SIGN_IN_ATTEMPT_LIMIT, SIGN_IN_ATTEMPT_WINDOW_MILLISECONDS, type SignInDeps } from './sign-in-routes.ts';

/**
 * The set-password link's routes, relative to `/console/api`, for a person
 * who is not signed in (server/auth/password-links.ts):
 *
 * - `POST /set-password/check` `{token}` -> 200 `{email, expires_at}` when
 *   the link can be used, so the page names the account before asking for
 *   a password; changes nothing;
 * - `POST /set-password` `{token, password}` -> 204 and the session cookie:
 *   the password is set (same policy as everywhere, auth/password-hash.ts),
 *   the link used up, the person signed in.
 *
 * A link that cannot be used is 404 (unknown) or 410 (used, replaced by a
 * newer one, expired, or its account has a password since) `invalid_link`
 * with a sentence saying which and what to do; nothing changes. Failures
 * count against a per-client limit like sign-in's (429 `rate_limited`); a
 * password outside the policy is refused (400) before the link is looked at
 * and is not counted. The secret comes in the body only, which no log line
 * holds (http/request-log.ts).
 */
export function passwordLinkRoutes(deps: SignInDeps): Router {
  const { store } = deps;
  const limiter = attemptLimiter({
    limit: deps.attemptLimit ?? SIGN_IN_ATTEMPT_LIMIT,
    windowMs: deps.attemptWindowMilliseconds ?? SIGN_IN_ATTEMPT_WINDOW_MILLISECONDS,
    per: 'client',
    attempts: 'set-password',
    ...(deps.sharedRateLimits === true ? { store: new SharedRateLimitStore(store, 'set-password-ip:', deps.now) } : {}),
  });
  const router = Router();

  router.post('/set-password/check', limiter, async (request, response) => {
    const { token } = parseBody(PasswordLinkCheckRequestSchema, request.body);
    const { link, user } = await usableLink(store, token, deps.now());
    response.json({ email: user.email, expires_at: new Date(link.expiresAt).toISOString() } satisfies PasswordLink);
  });

  router.post(
    '/set-password',
    (request, response, next) => {
      const body = parseBody(SetPasswordRequestSchema, request.body);
      const policyProblem = passwordPolicyProblem(body.password);
      if (policyProblem !== undefined) throw problem(400, 'invalid_request', policyProblem);
      (response.locals as { setPassword: SetPasswordRequest }).setPassword = body;
      next();
    },
    limiter,
    async (request, response) => {
      const { token, password } = (response.locals as { setPassword: SetPasswordRequest }).setPassword;
      const { link } = await usableLink(store, token, deps.now());
      const passwordHash = await hashPassword(password);
      // Checked again inside the store's transaction: of two uses at once, one sets the password.
      const userId = await store.usePasswordLink(link.secretHash, deps.now(), passwordHash);
      if (userId === undefined) throw refusal('used');

      await replaceSession(store, request, response, userId, deps.now());
      response.status(204).end();
    },
  );

  return router;
}

/**
 * @returns the link of `token` and its user when it can set a password now
 * @throws the `invalid_link` problem saying why it cannot
 */
async function usableLink(store: Store, token: string, at: number): Promise<{ link: PasswordLinkRecord; user: { id: string; email: string } }> {
  const link = await store.findPasswordLink(hashPasswordLinkSecret(token));
  const user = link && (await store.getUser(link.userId));
  const hasPassword = user !== undefined && (await store.getPasswordHash(user.id)) !== undefined;
  const state = passwordLinkState(user && link, hasPassword, at);
  if (state !== 'usable') throw refusal(state);
  return { link: link!, user: user! };
}

function refusal(state: Exclude<PasswordLinkState, 'usable'>) {
  return problem(state === 'unknown' ? 404 : 410, 'invalid_link', passwordLinkRefusal(state));
}
