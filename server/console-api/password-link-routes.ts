import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import {
  PasswordLinkCheckRequestSchema,
  SetPasswordRequestSchema,
  type PasswordLink,
  type SetPasswordRequest,
} from '../../protocol/console-protocol.ts';
import { hashPassword, passwordPolicyProblem } from '../auth/password-hash.ts';
import { hashPasswordLinkSecret, passwordLinkRefusal, passwordLinkState, type PasswordLinkState } from '../auth/password-links.ts';
import { replaceSession } from '../http/console-session.ts';
import { json, problemResponse, ref } from '../http/openapi-parts.ts';
import { problem } from '../http/problem.ts';
import { mountRoutes, type RouteRecord } from '../http/route-record.ts';
import { SharedRateLimitStore } from '../http/shared-rate-limit-store.ts';
import type { PasswordLinkRecord, Store } from '../store/store.ts';
import { parseBody } from './console-context.ts';
import { attemptLimiter, SIGN_IN_ATTEMPT_LIMIT, SIGN_IN_ATTEMPT_WINDOW_MILLISECONDS, type SignInDeps } from './sign-in-routes.ts';

/** What the set-password link routes share within one mount: their dependencies and the limit on failures per client. */
interface PasswordLinkContext extends SignInDeps {
  limiter: RequestHandler;
}

/** Says whether a link can be used now, and for which account; changes nothing. */
async function checkPasswordLink(request: Request, response: Response, context: PasswordLinkContext): Promise<void> {
  const { token } = parseBody(PasswordLinkCheckRequestSchema, request.body);
  const { link, user } = await usableLink(context.store, token, context.now());
  response.json({ email: user.email, expires_at: new Date(link.expiresAt).toISOString() } satisfies PasswordLink);
}

/**
 * The body of `POST /set-password`, its password held to the policy before
 * the failure limit runs: a refused password is not counted.
 *
 * @throws a 400 `invalid_request` problem for a malformed body or a password outside the policy
 */
function readNewPassword(request: Request, response: Response, next: NextFunction): void {
  const body = parseBody(SetPasswordRequestSchema, request.body);
  const policyProblem = passwordPolicyProblem(body.password);
  if (policyProblem !== undefined) throw problem(400, 'invalid_request', policyProblem);
  (response.locals as { setPassword: SetPasswordRequest }).setPassword = body;
  next();
}

/** Sets the first password through a usable link, uses the link up, and signs the person in. */
async function setPassword(request: Request, response: Response, context: PasswordLinkContext): Promise<void> {
  const { store } = context;
  const { token, password } = (response.locals as { setPassword: SetPasswordRequest }).setPassword;
  const { link } = await usableLink(store, token, context.now());
  const passwordHash = await hashPassword(password);
  // Checked again inside the store's transaction: of two uses at once, one sets the password.
  const userId = await store.usePasswordLink(link.secretHash, context.now(), passwordHash);
  if (userId === undefined) throw refusal('used');

  await replaceSession(store, request, response, userId, context.now());
  response.status(204).end();
}

/** Both link routes' refusals of a link: 404 unknown, 410 used, replaced, expired or its account has a password since; 429 too many failures. */
const LINK_REFUSALS = {
  '404': problemResponse('No such link (`invalid_link`)'),
  '410': problemResponse('The link was used, replaced by a newer one or has expired, or the account has a password since (`invalid_link`)'),
  '429': problemResponse('Too many failed attempts from this client (`rate_limited`, see `Retry-After`)'),
};

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
export const PASSWORD_LINK_ROUTES: readonly RouteRecord<PasswordLinkContext>[] = [
  {
    method: 'post',
    path: '/set-password/check',
    body: PasswordLinkCheckRequestSchema,
    operation: {
      summary: 'Check a set-password link before choosing a password (not signed in); changes nothing',
      responses: {
        '200': json(ref('PasswordLink'), 'The link can be used: the account it is for and when it expires'),
        '403': problemResponse('`cross_site_request`'),
        ...LINK_REFUSALS,
      },
    },
    middleware: (context) => [context.limiter],
    handler: checkPasswordLink,
  },
  {
    method: 'post',
    path: '/set-password',
    body: SetPasswordRequestSchema,
    operation: {
      summary: 'Choose a first password through a one-time set-password link, and sign in',
      description:
        'The link is the one an owner was shown when inviting the person (`POST …/invitations`); its secret is the part after `#/set-password/`. ' +
        'It works once, for 7 days, only while it is the newest link of its account and the account has no password.',
      responses: {
        '204': { description: 'Password set, link used up; signed in: the `kbw_session` cookie is set (HttpOnly, SameSite=Lax)' },
        '400': problemResponse('A password shorter than 12 or longer than 1024 characters (`invalid_request`)'),
        '403': problemResponse('`cross_site_request`'),
        ...LINK_REFUSALS,
      },
    },
    middleware: (context) => [readNewPassword, context.limiter],
    handler: setPassword,
  },
];

/** The set-password link routes ({@link PASSWORD_LINK_ROUTES}), mounted with one failure limit for both. */
export function passwordLinkRoutes(deps: SignInDeps): Router {
  const limiter = attemptLimiter({
    limit: deps.attemptLimit ?? SIGN_IN_ATTEMPT_LIMIT,
    windowMs: deps.attemptWindowMilliseconds ?? SIGN_IN_ATTEMPT_WINDOW_MILLISECONDS,
    per: 'client',
    attempts: 'set-password',
    ...(deps.sharedRateLimits === true ? { store: new SharedRateLimitStore(deps.store, 'set-password-ip:', deps.now) } : {}),
  });
  return mountRoutes(PASSWORD_LINK_ROUTES, { ...deps, limiter });
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

/** The `invalid_link` problem of a link that cannot be used: 404 unknown, 410 otherwise. */
function refusal(state: Exclude<PasswordLinkState, 'usable'>) {
  return problem(state === 'unknown' ? 404 : 410, 'invalid_link', passwordLinkRefusal(state));
}
