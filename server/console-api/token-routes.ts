import { Router, type Response } from 'express';
import {
  IssueTokenRequestSchema,
  PreviewTokenRequestSchema,
  TokenListQuerySchema,
  type ConsoleToken,
  type IssuedToken,
  type PreviewToken,
  type TokenList,
} from '../../protocol/console-protocol.ts';
import { issueToken, PURGED_TOKEN_PURPOSES, TokenIssueError, type IssueTokenInput } from '../auth/widget-tokens.ts';
import { problem } from '../http/problem.ts';
import { ownOrigin } from '../http/same-origin-check.ts';
import type { TokenCursor, TokenRecord } from '../store/store.ts';
import { emailsByUserId, membership, parseBody, parseQuery, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { embedSnippet } from './embed-snippet.ts';

/**
 * Lifetime of a preview token, minutes: long enough to try a few questions,
 * short enough that a forgotten tab holds no working token for long. Capped
 * by the platform cap when that is lower.
 */
export const PREVIEW_TOKEN_TTL_MINUTES = 10;

/** The widget tokens of a knowledge base: listed by members, issued and revoked by editors and owners. */
export function tokenRoutes(deps: ConsoleRouteDeps): Router {
  const { store } = deps;
  const router = Router();

  /**
   * A page of the knowledge base's tokens, newest first, filtered by status,
   * origin (text within an allowed origin, case-insensitive) and purpose
   * ({@link TokenListQuerySchema}); `next_cursor` continues with the same
   * filters. Expired preview and demo tokens are deleted first: their
   * holders reuse them while valid, and past that they are only clutter.
   */
  router.get('/knowledge-bases/:kbId/tokens', async (request, response) => {
    const { kbId } = await membership(store, request, response);
    const query = parseQuery(TokenListQuerySchema, request.query);
    const after = query.cursor === undefined ? undefined : readTokenCursor(query.cursor);
    const now = deps.now();
    await store.deleteExpiredTokens(kbId, PURGED_TOKEN_PURPOSES, now);
    const { tokens, total } = await store.listTokenPage(
      kbId,
      {
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.origin === undefined ? {} : { origin: query.origin.toLowerCase() }),
        ...(query.purpose === undefined ? {} : { purpose: query.purpose }),
      },
      { limit: query.limit + 1, now, ...(after ? { after } : {}) },
    );
    const page = tokens.slice(0, query.limit);
    const emails = await emailsByUserId(store, page.flatMap((token) => (token.issuerId ? [token.issuerId] : [])));
    response.json({
      tokens: page.map((token) => toConsoleToken(token, emails, now)),
      total,
      ...(tokens.length > query.limit ? { next_cursor: tokenCursor(page.at(-1)!) } : {}),
    } satisfies TokenList);
  });

  /** Issues a token for the signed-in person through `issueToken`, its refusals turned into problems. */
  async function issueAsSignedIn(response: Response, input: Omit<IssueTokenInput, 'issuerId'>) {
    const user = signedInUser(response);
    try {
      const issued = await issueToken(store, { ...input, issuerId: user.id }, { ttlCapMinutes: deps.tokenTtlCapMinutes, now: deps.now() });
      return { token: issued.token, record: issued.record, listed: toConsoleToken(issued.record, new Map([[user.id, user.email]]), deps.now()) };
    } catch (error) {
      if (error instanceof TokenIssueError) {
        throw error.reason === 'forbidden' ? problem(403, 'forbidden', error.message) : problem(400, 'invalid_request', error.message);
      }
      throw error;
    }
  }

  router.post('/knowledge-bases/:kbId/tokens', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Issuing a token');
    const body = parseBody(IssueTokenRequestSchema, request.body);
    const issued = await issueAsSignedIn(response, {
      kbId,
      allowedOrigins: body.allowed_origins,
      ...(body.ttl_minutes === undefined ? {} : { ttlMinutes: body.ttl_minutes }),
      ...(body.scope === undefined ? {} : { scope: body.scope as TokenRecord['scope'] }),
    });
    const { record } = issued;
    response.status(201).json({
      ...issued.listed,
      token: issued.token,
      snippet: embedSnippet({
        baseUrl: deps.publicBaseUrl(request),
        kbId,
        token: issued.token,
        expiresAt: record.expiresAt,
        ttlMinutes: Math.round((record.expiresAt - record.createdAt) / 60_000),
      }),
    } satisfies IssuedToken);
  });

  /**
   * A preview token for the Developers tab's live preview: an ordinary
   * widget token of the signed-in person (so the issuer's reach and the
   * scope apply as to any other), whose only allowed origin is the console's
   * own - the origin this request was addressed to, which the same-origin
   * check has already matched against the request's `Origin` - living
   * {@link PREVIEW_TOKEN_TTL_MINUTES} minutes, listed as `purpose: preview`.
   * A token for customers' pages cannot serve here, since the console's
   * origin is rightly not among its allowed origins. The console reuses it
   * while valid; issuing one deletes the knowledge base's expired preview
   * and demo tokens (`issueToken`).
   */
  router.post('/knowledge-bases/:kbId/tokens/preview', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Issuing a preview token');
    const body = parseBody(PreviewTokenRequestSchema, request.body);
    const consoleOrigin = ownOrigin(request);
    if (consoleOrigin === undefined) {
      throw problem(400, 'invalid_request', `The console's own origin could not be read from the Host header "${request.get('host') ?? ''}"`);
    }
    const issued = await issueAsSignedIn(response, {
      kbId,
      allowedOrigins: [consoleOrigin],
      ttlMinutes: Math.min(PREVIEW_TOKEN_TTL_MINUTES, deps.tokenTtlCapMinutes),
      purpose: 'preview',
      ...(body.scope === undefined ? {} : { scope: body.scope as TokenRecord['scope'] }),
    });
    response.status(201).json({ ...issued.listed, token: issued.token } satisfies PreviewToken);
  });

  router.delete('/knowledge-bases/:kbId/tokens/:tokenId', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Revoking a token');
    const tokenId = String(request.params.tokenId);
    const token = await store.getToken(kbId, tokenId);
    if (!token) throw problem(404, 'not_found', `No token "${tokenId}" in knowledge base "${kbId}"`);
    await store.revokeToken(tokenId, deps.now());
    response.status(204).end();
  });

  return router;
}

/** The `next_cursor` that continues after `token`: its creation time and id, base64url. */
function tokenCursor(token: TokenRecord): string {
  return Buffer.from(`${token.createdAt}.${token.id}`, 'utf8').toString('base64url');
}

/**
 * @throws a 400 `invalid_request` problem for a cursor this API did not give
 */
function readTokenCursor(cursor: string): TokenCursor {
  const match = /^(\d{1,15})\.([\w-]{1,100})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw problem(400, 'invalid_request', `cursor: "${cursor}" is not a next_cursor this API gave; start again without it`);
  return { createdAt: Number(match[1]), id: match[2]! };
}

function toConsoleToken(token: TokenRecord, emails: ReadonlyMap<string, string>, now: number): ConsoleToken {
  const result: ConsoleToken = {
    id: token.id,
    status: token.revokedAt !== undefined ? 'revoked' : now >= token.expiresAt ? 'expired' : 'active',
    issuer: (token.issuerId && emails.get(token.issuerId)) || '(removed user)',
    allowed_origins: token.allowedOrigins,
    scope: token.scope,
    purpose: token.purpose,
    created_at: new Date(token.createdAt).toISOString(),
    expires_at: new Date(token.expiresAt).toISOString(),
  };
  if (token.revokedAt !== undefined) result.revoked_at = new Date(token.revokedAt).toISOString();
  if (token.lastUsedAt !== undefined) result.last_used_at = new Date(token.lastUsedAt).toISOString();
  return result;
}
