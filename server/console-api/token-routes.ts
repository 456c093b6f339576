import type { Request, Response } from 'express';
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
import type { RouteRecord } from '../http/route-record.ts';
import { ownOrigin } from '../http/same-origin-check.ts';
import type { TokenCursor, TokenRecord } from '../store/store.ts';
import { emailsByUserId, membership, parseBody, parseQuery, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { embedSnippet } from './embed-snippet.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { consoleErrors, idParameter } from './openapi-parts.ts';

/**
 * Lifetime of a preview token, minutes: long enough to try a few questions,
 * short enough that a forgotten tab holds no working token for long. Capped
 * by the platform cap when that is lower.
 */
export const PREVIEW_TOKEN_TTL_MINUTES = 10;

/**
 * A page of the knowledge base's tokens, newest first, filtered by status,
 * origin (text within an allowed origin, case-insensitive) and purpose
 * ({@link TokenListQuerySchema}); `next_cursor` continues with the same
 * filters. Expired preview and demo tokens are deleted first: their
 * holders reuse them while valid, and past that they are only clutter.
 */
async function listTokens(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
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
}

/** Issues a token for the signed-in person through `issueToken`, its refusals turned into problems. */
async function issueAsSignedIn(response: Response, input: Omit<IssueTokenInput, 'issuerId'>, deps: ConsoleRouteDeps) {
  const user = signedInUser(response);
  try {
    const issued = await issueToken(deps.store, { ...input, issuerId: user.id }, { ttlCapMinutes: deps.tokenTtlCapMinutes, now: deps.now() });
    return { token: issued.token, record: issued.record, listed: toConsoleToken(issued.record, new Map([[user.id, user.email]]), deps.now()) };
  } catch (error) {
    if (error instanceof TokenIssueError) {
      throw error.reason === 'forbidden' ? problem(403, 'forbidden', error.message) : problem(400, 'invalid_request', error.message);
    }
    throw error;
  }
}

/** An embed token for customers' pages, with its ready-to-paste snippet. */
async function issueEmbedToken(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  requireUpdatePermission(role, 'Issuing a token');
  const body = parseBody(IssueTokenRequestSchema, request.body);
  const issued = await issueAsSignedIn(
    response,
    {
      kbId,
      allowedOrigins: body.allowed_origins,
      ...(body.ttl_minutes === undefined ? {} : { ttlMinutes: body.ttl_minutes }),
      ...(body.scope === undefined ? {} : { scope: body.scope as TokenRecord['scope'] }),
    },
    deps,
  );
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
}

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
async function issuePreviewToken(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  requireUpdatePermission(role, 'Issuing a preview token');
  const body = parseBody(PreviewTokenRequestSchema, request.body);
  const consoleOrigin = ownOrigin(request);
  if (consoleOrigin === undefined) {
    throw problem(400, 'invalid_request', `The console's own origin could not be read from the Host header "${request.get('host') ?? ''}"`);
  }
  const issued = await issueAsSignedIn(
    response,
    {
      kbId,
      allowedOrigins: [consoleOrigin],
      ttlMinutes: Math.min(PREVIEW_TOKEN_TTL_MINUTES, deps.tokenTtlCapMinutes),
      purpose: 'preview',
      ...(body.scope === undefined ? {} : { scope: body.scope as TokenRecord['scope'] }),
    },
    deps,
  );
  response.status(201).json({ ...issued.listed, token: issued.token } satisfies PreviewToken);
}

/** Revokes one token: effective on its next request. */
async function revokeToken(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store } = deps;
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Revoking a token');
  const tokenId = String(request.params.tokenId);
  const token = await store.getToken(kbId, tokenId);
  if (!token) throw problem(404, 'not_found', `No token "${tokenId}" in knowledge base "${kbId}"`);
  await store.revokeToken(tokenId, deps.now());
  response.status(204).end();
}

/** The widget tokens of a knowledge base: listed by members, issued and revoked by editors and owners. */
export const TOKEN_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/tokens',
    query: TokenListQuerySchema,
    operation: {
      summary: 'Widget tokens of the knowledge base (never the secret), newest first, filtered and a page at a time',
      description:
        'Filters combine with AND; `origin` matches any allowed origin containing the text, case-insensitively. A page holds `limit` tokens; ' +
        '`next_cursor`, present when more follow, continues with the same filters. `total` counts every match. Expired preview and demo ' +
        'tokens are deleted first (their holders reuse them while valid); expired and revoked embed tokens stay listed.',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: {
        '200': json(ref('TokenList'), 'A page of tokens'),
        '400': problemResponse('A parameter out of range or unknown, or a `cursor` this API did not give (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: listTokens,
  },
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/tokens',
    body: IssueTokenRequestSchema,
    operation: {
      summary: 'Issue a widget token (editors and owners)',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: {
        '201': json(ref('IssuedToken'), 'The token, shown once, with the ready-to-paste snippet: when the token expires, and a `tokenProvider` fetching a fresh one'),
        '400': problemResponse('Malformed origin, lifetime above the cap, unknown scope (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: issueEmbedToken,
  },
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/tokens/preview',
    body: PreviewTokenRequestSchema,
    operation: {
      summary: "Issue a preview token for the Developers tab's live preview (editors and owners)",
      description:
        "An ordinary widget token of the signed-in person with `purpose: preview`, whose only allowed origin is the console's own " +
        '(the origin the request was addressed to), living 10 minutes (less if the platform cap is lower). It obeys the same access rules ' +
        "as any token: the issuer's reach now, intersected with the scope. It is listed and can be revoked like the others. The console " +
        'reuses one while it has a few minutes left; issuing one deletes the expired preview and demo tokens of the knowledge base.',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: {
        '201': json(ref('PreviewToken'), 'The preview token'),
        '400': problemResponse('Unknown scope (`invalid_request`)'),
        ...consoleErrors,
      },
    },
    handler: issuePreviewToken,
  },
  {
    method: 'delete',
    path: '/knowledge-bases/:kbId/tokens/:tokenId',
    operation: {
      summary: 'Revoke a token (editors and owners); effective on its next request',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, idParameter('tokenId')],
      responses: { '204': { description: 'Revoked' }, ...consoleErrors },
    },
    handler: revokeToken,
  },
];


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
