import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { problem } from './problem.ts';
import type { SessionRecord, SessionRepository, User, WorkspaceRepository } from '../store/store.ts';

/**
 * Console sessions: who is signed in to `/console` (docs/http-api.md "Sign-in and sessions").
 *
 * A session id is 32 random bytes (256 bits), base64url, kept only in the
 * person's cookie `kbw_session` (`HttpOnly; SameSite=Lax; Path=/`, plus
 * `Secure` when the request came over HTTPS, as Express's `request.secure`
 * says with `trust proxy`). The store keeps its SHA-256 only, so a copy of
 * the database signs nobody in (OWASP Session Management Cheat Sheet:
 * session id entropy of at least 64 bits, cookie attributes).
 *
 * A session ends after 12 hours without use (sliding) and 7 days after
 * sign-in whatever happens (absolute), on sign-out, and when the person's
 * password changes or the person is removed.
 *
 * Widget tokens are never console credentials: only the cookie is read here.
 */

/** Name of the session cookie. */
export const SESSION_COOKIE = 'kbw_session';
/** A session unused this long ends (sliding expiry), ms. */
export const SESSION_IDLE_MILLISECONDS = 12 * 60 * 60_000;
/** A session ends this long after sign-in whatever its use (absolute expiry), ms. */
export const SESSION_ABSOLUTE_MILLISECONDS = 7 * 24 * 60 * 60_000;
/**
 * How often a use is written to the store, ms: the sliding deadline is at
 * most a minute behind, and reads do not each cost a write.
 */
export const SESSION_TOUCH_PRECISION_MILLISECONDS = 60_000;

/** What a signed-in console request carries in `response.locals` (after {@link consoleSession}). */
export type ConsoleLocals = { user: User };

const SESSION_ID_BYTES = 32;
/** 32 bytes in base64url without padding. */
const SESSION_ID_SYNTAX = /^[A-Za-z0-9_-]{43}$/;

/** @returns the SHA-256 (hex) under which a session id is stored */
export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** @returns when a session created at `createdAt` and used at `at` ends unless used again, epoch ms */
export function sessionDeadline(createdAt: number, at: number): number {
  return Math.min(at + SESSION_IDLE_MILLISECONDS, createdAt + SESSION_ABSOLUTE_MILLISECONDS);
}

/**
 * Starts a session for a user who just proved who they are.
 *
 * @returns the secret session id (for the cookie only) and the stored record
 */
export async function startSession(store: SessionRepository, userId: string, at: number): Promise<{ id: string; record: SessionRecord }> {
  const id = randomBytes(SESSION_ID_BYTES).toString('base64url');
  const record: SessionRecord = {
    idHash: hashSessionId(id),
    userId,
    createdAt: at,
    expiresAt: sessionDeadline(at, at),
    lastSeenAt: at,
  };
  await store.createSession(record);
  return { id, record };
}

/**
 * Signs a person in on this response: ends the session the request's cookie
 * names, if any, starts a new one and sets its cookie. A new id at every
 * sign-in, so a session id planted before it is worth nothing (session
 * fixation). Used by sign-in and by a set-password link.
 */
export async function replaceSession(store: SessionRepository, request: Request, response: Response, userId: string, at: number): Promise<void> {
  const previous = sessionIdOf(request);
  if (previous !== undefined) await store.deleteSession(hashSessionId(previous));
  const session = await startSession(store, userId, at);
  setSessionCookie(request, response, session.id);
}

/** @returns the well-formed session id of the request's cookie, if any */
export function sessionIdOf(request: Request): string | undefined {
  for (const pair of (request.get('cookie') ?? '').split(';')) {
    const separator = pair.indexOf('=');
    if (separator === -1 || pair.slice(0, separator).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(separator + 1).trim();
    if (SESSION_ID_SYNTAX.test(value)) return value;
  }
  return undefined;
}

/** Sets the session cookie; the browser keeps it for the absolute lifetime, the server enforces both. */
export function setSessionCookie(request: Request, response: Response, id: string): void {
  response.cookie(SESSION_COOKIE, id, { ...cookieAttributes(request), maxAge: SESSION_ABSOLUTE_MILLISECONDS });
}

/** Tells the browser to forget the session cookie. */
export function clearSessionCookie(request: Request, response: Response): void {
  response.clearCookie(SESSION_COOKIE, cookieAttributes(request));
}

function cookieAttributes(request: Request) {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: request.secure } as const;
}

/**
 * Middleware reading the session cookie: when it names a live session, sets
 * `response.locals.user` ({@link ConsoleLocals}) and records the use
 * (sliding expiry). An ended or unknown session is deleted and its cookie
 * cleared. Never refuses a request itself: see {@link requireSignedIn}.
 *
 * @param now clock in epoch milliseconds
 */
export function consoleSession(store: SessionRepository & Pick<WorkspaceRepository, 'getUser'>, now: () => number): RequestHandler {
  return async (request, response, next) => {
    const id = sessionIdOf(request);
    if (id === undefined) {
      next();
      return;
    }
    const idHash = hashSessionId(id);
    const session = await store.findSession(idHash);
    const at = now();
    const user = session && at < session.expiresAt ? await store.getUser(session.userId) : undefined;
    if (session && user) {
      (response.locals as ConsoleLocals).user = user;
      if (at - session.lastSeenAt >= SESSION_TOUCH_PRECISION_MILLISECONDS) {
        await store.touchSession(idHash, at, sessionDeadline(session.createdAt, at));
      }
    } else {
      if (session) await store.deleteSession(idHash);
      clearSessionCookie(request, response);
    }
    next();
  };
}

/**
 * Refuses a request without a signed-in person (after {@link consoleSession})
 * with a 401 problem `unauthenticated`. A widget token is no substitute: a
 * request carrying one is told so.
 */
export const requireSignedIn: RequestHandler = (request, response, next) => {
  if ((response.locals as Partial<ConsoleLocals>).user !== undefined) {
    next();
    return;
  }
  const presentsWidgetToken = request.get('authorization') !== undefined || request.get('x-widget-token') !== undefined;
  throw problem(
    401,
    'unauthenticated',
    presentsWidgetToken
      ? 'Widget tokens are not accepted by the console; sign in with your email and password'
      : 'Sign in to use the console',
  );
};
