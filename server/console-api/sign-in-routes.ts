import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { rateLimit, type Store as RateLimitStore } from 'express-rate-limit';
import { SignInRequestSchema, type SignInRequest } from '../../protocol/console-protocol.ts';
import { json, problemResponse, ref } from '../http/openapi-parts.ts';
import { problem } from '../http/problem.ts';
import { mountRoutes, type RouteRecord } from '../http/route-record.ts';
import { SharedRateLimitStore } from '../http/shared-rate-limit-store.ts';
import {
  clearSessionCookie,
  hashSessionId,
  replaceSession,
  requireSignedIn,
  sessionIdOf,
  type ConsoleLocals,
} from '../http/console-session.ts';
import { hashPassword, needsRehash, passwordPolicyProblem, verifyPassword } from '../auth/password-hash.ts';
import type { Store } from '../store/store.ts';
import { consoleErrors } from './openapi-parts.ts';

/**
 * Sign-in and sign-out of the console, relative to `/console/api`
 * (docs/http-api.md "Sign-in and sessions"):
 *
 * - `POST /session` `{email, password}` -> 204 and the session cookie; 401
 *   `unauthenticated` with one message whether the email is unknown, the
 *   person has no password yet or the password is wrong - and the same work
 *   (one scrypt) in every case, so neither the body nor the time tells
 *   which; 429 `rate_limited` with `Retry-After` after too many failures;
 * - `GET /session` -> `{user: {id, email, name}}` or 401;
 * - `DELETE /session` -> 204, session deleted, cookie cleared (also when
 *   nobody was signed in).
 *
 * app.ts puts the same-origin check, the JSON body parser and
 * `consoleSession` in front, so these handlers see `response.locals.user`.
 */

/** Failed sign-in attempts allowed per client IP, and per email, in each window. */
export const SIGN_IN_ATTEMPT_LIMIT = 10;
/** Window of {@link SIGN_IN_ATTEMPT_LIMIT}, ms. */
export const SIGN_IN_ATTEMPT_WINDOW_MILLISECONDS = 15 * 60_000;

/** Body of `GET /console/api/session`. */
export interface SessionResponse {
  user: { id: string; email: string; name: string };
}

/** What the sign-in and set-password link routes need. */
export interface SignInDeps {
  store: Store;
  /** Clock in epoch milliseconds (session times). */
  now: () => number;
  /** Default {@link SIGN_IN_ATTEMPT_LIMIT}. */
  attemptLimit?: number;
  /** Default {@link SIGN_IN_ATTEMPT_WINDOW_MILLISECONDS}. */
  attemptWindowMilliseconds?: number;
  /** Count attempts in the store's database, shared by every replica on it (default: this process's memory). */
  sharedRateLimits?: boolean;
}

type SignInLocals = { credentials: SignInRequest };

/** The one answer to every failed sign-in. */
const SIGN_IN_FAILED = 'The email or password is not correct';

/** What the sign-in routes share within one mount: their dependencies, the attempt limits, and the hash verified for an unknown email. */
interface SignInContext extends SignInDeps {
  /** Verified against when there is no real hash, so an unknown email costs the same scrypt as a known one. */
  dummyHash: Promise<string>;
  /** Failed attempts per client IP, then per email ({@link attemptLimiter}). */
  limiters: readonly RequestHandler[];
}

/**
 * The credentials of `POST /session`, checked before the attempt limits
 * count them, so the per-email limit has an email to count by.
 *
 * @throws a 400 `invalid_request` problem naming each field that is wrong
 */
function readCredentials(request: Request, response: Response, next: NextFunction): void {
  const parsed = SignInRequestSchema.safeParse(request.body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `"${issue.path.join('.') || 'body'}": ${issue.message}`);
    throw problem(400, 'invalid_request', `Send a JSON object {"email": "...", "password": "..."}; ${issues.join('; ')}`);
  }
  (response.locals as SignInLocals).credentials = parsed.data;
  next();
}

/**
 * Signs a person in with their email and password: a new session and its
 * cookie. A stored hash of older parameters is replaced by a current one.
 *
 * @throws a 401 `unauthenticated` problem, one message for every failure
 */
async function signIn(request: Request, response: Response, context: SignInContext): Promise<void> {
  const { store } = context;
  const { email, password } = (response.locals as SignInLocals).credentials;
  const user = await store.findUserByEmail(email);
  const stored = user && (await store.getPasswordHash(user.id));
  const matches = await verifyPassword(password, stored ?? (await context.dummyHash));
  if (!user || stored === undefined || !matches) throw problem(401, 'unauthenticated', SIGN_IN_FAILED);

  if (needsRehash(stored) && passwordPolicyProblem(password) === undefined) {
    await store.setPasswordHash(user.id, await hashPassword(password));
  }
  await replaceSession(store, request, response, user.id, context.now());
  response.status(204).end();
}

/** Who is signed in (the session check has run: `requireSignedIn`). */
function showSession(_request: Request, response: Response): void {
  const { user } = response.locals as ConsoleLocals;
  const body: SessionResponse = { user: { id: user.id, email: user.email, name: user.name } };
  response.json(body);
}

/** Signs out: the session deleted and its cookie cleared, also when nobody was signed in. */
async function signOut(request: Request, response: Response, { store }: SignInContext): Promise<void> {
  const id = sessionIdOf(request);
  if (id !== undefined) await store.deleteSession(hashSessionId(id));
  clearSessionCookie(request, response);
  response.status(204).end();
}

/** Sign-in, who is signed in, and sign-out, relative to `/console/api`. */
export const SIGN_IN_ROUTES: readonly RouteRecord<SignInContext>[] = [
  {
    method: 'post',
    path: '/session',
    body: SignInRequestSchema,
    operation: {
      summary: 'Sign in',
      responses: {
        '204': { description: 'Signed in; the `kbw_session` cookie is set (HttpOnly, SameSite=Lax)' },
        '401': problemResponse('Wrong email or password (one message for both)'),
        '403': problemResponse('`cross_site_request`'),
        '429': problemResponse('Too many attempts (`rate_limited`, see `Retry-After`)'),
      },
    },
    middleware: (context) => [readCredentials, ...context.limiters],
    handler: signIn,
  },
  {
    method: 'get',
    path: '/session',
    operation: {
      summary: 'Who is signed in',
      security: [{ consoleSession: [] }],
      responses: { '200': json(ref('Session'), 'The signed-in person'), '401': consoleErrors['401'] },
    },
    middleware: () => [requireSignedIn],
    handler: showSession,
  },
  {
    method: 'delete',
    path: '/session',
    operation: { summary: 'Sign out', security: [{ consoleSession: [] }], responses: { '204': { description: 'Signed out' } } },
    handler: signOut,
  },
];

/** The sign-in routes ({@link SIGN_IN_ROUTES}), mounted with attempt limits of their own. */
export function signInRoutes(deps: SignInDeps): Router {
  const limit = deps.attemptLimit ?? SIGN_IN_ATTEMPT_LIMIT;
  const windowMs = deps.attemptWindowMilliseconds ?? SIGN_IN_ATTEMPT_WINDOW_MILLISECONDS;
  // Computed now, not at the first attempt.
  const dummyHash = hashPassword(randomBytes(32).toString('base64url'));
  dummyHash.catch(() => undefined);
  const sharedStore = (prefix: string) =>
    deps.sharedRateLimits === true ? { store: new SharedRateLimitStore(deps.store, prefix, deps.now) } : {};
  return mountRoutes(SIGN_IN_ROUTES, {
    ...deps,
    dummyHash,
    limiters: [
      attemptLimiter({ limit, windowMs, per: 'client', ...sharedStore('sign-in-ip:') }),
      attemptLimiter({
        limit,
        windowMs,
        per: 'email',
        ...sharedStore('sign-in-email:'),
        keyGenerator: (_request, response) => (response.locals as SignInLocals).credentials.email.toLowerCase(),
      }),
    ],
  });
}

/**
 * A limit on failed sign-in attempts (OWASP Authentication Cheat Sheet,
 * "Protect against automated attacks"): successful ones are not counted.
 * Per client IP it slows one machine guessing many accounts; per email it
 * slows a botnet guessing one account - at the price that anyone can hold up
 * an account's sign-in for the window, which is why the window is short.
 * The set-password link routes (password-link-routes.ts) limit their
 * failures per client with it too, under `attempts` of their own.
 *
 * @param options.attempts what is counted, for the 429 sentence and the
 *   request property (default `sign-in`: "Too many failed sign-in attempts")
 */
export function attemptLimiter(options: {
  limit: number;
  windowMs: number;
  per: 'client' | 'email';
  attempts?: string;
  keyGenerator?: (request: Request, response: Response) => string;
  store?: RateLimitStore;
}): RequestHandler {
  const attempts = options.attempts ?? 'sign-in';
  // `signInLimitOfClient`, `setPasswordLimitOfClient`, ...: where express-rate-limit puts the count on the request.
  const property = `${attempts.replace(/-(\w)/g, (_dash, letter: string) => letter.toUpperCase())}LimitOf${options.per === 'client' ? 'Client' : 'Email'}`;
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skipSuccessfulRequests: true,
    requestPropertyName: property,
    ...(options.keyGenerator ? { keyGenerator: options.keyGenerator } : {}),
    ...(options.store ? { store: options.store } : {}),
    handler: (request, _response, next) => {
      const resetTime = (request as unknown as Record<string, { resetTime?: Date } | undefined>)[property]?.resetTime;
      const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + options.windowMs) - Date.now()) / 1000));
      const minutes = Math.round(options.windowMs / 60_000);
      next(
        problem(
          429,
          'rate_limited',
          `Too many failed ${attempts} attempts ${options.per === 'client' ? 'from this client' : 'for this email'}: ` +
            `at most ${options.limit} in ${minutes} minutes; retry in ${seconds} s`,
          { 'Retry-After': String(seconds) },
        ),
      );
    },
  });
}
