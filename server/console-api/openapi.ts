/**
 * The OpenAPI 3.1 description of kb-widget's HTTP API, served at
 * `/openapi.json`: the two widget endpoints (docs/specification.md "Endpoints"), the
 * feedback endpoint and the console API behind the Developers tab
 * (session sign-in, set-password links, knowledge bases, documents,
 * uploads, feedback, members and invitations, tokens).
 * Routes written as route records (server/http/route-record.ts; the token
 * and curated answer routes so far) bring their own paths; the others are
 * listed here. openapi.test.ts fails when a mounted route is missing from
 * the document or the document names a route that is not mounted.
 *
 * No schema is written here: each is generated from its one definition
 * (protocol/query-schemas.ts for the widget endpoints,
 * protocol/console-protocol.ts for the console; zod's JSON Schema output),
 * and tests check the service's answers against the schemas named here.
 */

import { CONSOLE_SCHEMAS } from '../../protocol/console-protocol.ts';
import { componentSchemas } from '../../protocol/json-schemas.ts';
import { QUERY_SCHEMAS } from '../../protocol/query-schemas.ts';
import { openApiPaths } from '../http/route-record.ts';
import { json, jsonBody, kbId, problemResponse, ref } from '../http/openapi-parts.ts';
import { CONSOLE_ROUTES } from './console-routes.ts';
import { consoleErrors } from './openapi-parts.ts';

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'kb-widget API',
    version: '1.0.0',
    description:
      'Grounded answers from a knowledge base for embedded widgets, and the console API that issues their tokens. ' +
      'Refused requests are RFC 9457 problem details; fields with no value are omitted, never null.',
  },
  components: {
    securitySchemes: {
      widgetToken: { type: 'http', scheme: 'bearer', description: 'A `kbw_…` widget token (or the `X-Widget-Token` header)' },
      consoleSession: { type: 'apiKey', in: 'cookie', name: 'kbw_session', description: 'Session of a signed-in person' },
    },
    schemas: {
      // Every schema is generated from its one definition: the widget endpoints' in
      // protocol/query-schemas.ts, the console's in protocol/console-protocol.ts.
      ...componentSchemas([...QUERY_SCHEMAS, ...CONSOLE_SCHEMAS]),
    },
  },
  paths: {
    '/kb-api/api/v1/kb/{kbId}/widget/query': {
      post: {
        summary: 'Answer a question (JSON)',
        security: [{ widgetToken: [] }],
        parameters: [kbId],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QueryRequest' } } } },
        responses: {
          '200': json({ $ref: '#/components/schemas/QueryResponse' }, 'The answer, or an abstention (`abstained: true`)'),
          '400': problemResponse('`invalid_request`'),
          '401': problemResponse('`missing_token`, `invalid_token`, `token_expired`, `token_revoked`'),
          '403': problemResponse('`origin_not_allowed`, `kb_mismatch`'),
          '413': problemResponse('`payload_too_large`'),
          '415': problemResponse('`unsupported_media_type`'),
          '429': problemResponse('`rate_limited` (see `Retry-After`)'),
          '503': problemResponse('`unavailable` (see `Retry-After`)'),
        },
      },
    },
    '/kb-api/api/v1/kb/{kbId}/widget/query/stream': {
      post: {
        summary: 'Answer a question as server-sent events',
        description:
          'Frames `token`, `citations`, `abstain`, `reset`, `suggestions`, then exactly one of `done` or `error`; each is ' +
          '`event: <type>` plus one `data:` line of JSON whose `type` repeats the event name; `done` carries `abstained` and the answer\'s ' +
          '`provenance` (additive, to send back with feedback). Refusals are the same as the JSON endpoint and never open a stream.',
        security: [{ widgetToken: [] }],
        parameters: [kbId],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QueryRequest' } } } },
        responses: {
          '200': { description: 'The stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          '4XX': problemResponse('As for the JSON endpoint'),
        },
      },
    },
    '/kb-api/api/v1/kb/{kbId}/widget/feedback': {
      post: {
        summary: 'Rate an answer, or report a problem with one of its sources',
        description:
          'The service is stateless: the body carries the question, the answer\'s provenance and the `source_span`s as the answer had them. ' +
          'Every span must be one this service issued for this knowledge base, citing a document the token can reach now; otherwise 400 ' +
          '`invalid_request` names the span and nothing is stored. Records keep no address, token or user agent; editors read them at ' +
          '`GET /console/api/knowledge-bases/{kbId}/feedback`. Same token, origin, CORS, size and rate-limit rules as the query endpoints.',
        security: [{ widgetToken: [] }],
        parameters: [kbId],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/FeedbackRequest' } } } },
        responses: {
          '204': { description: 'Stored' },
          '400': problemResponse('`invalid_request`: a field out of bounds, or a span forged, altered, of another knowledge base or out of the token\'s reach'),
          '401': problemResponse('`missing_token`, `invalid_token`, `token_expired`, `token_revoked`'),
          '403': problemResponse('`origin_not_allowed`, `kb_mismatch`'),
          '413': problemResponse('`payload_too_large`'),
          '415': problemResponse('`unsupported_media_type`'),
          '429': problemResponse('`rate_limited` (see `Retry-After`): feedback counts against the same limits as questions'),
          '503': problemResponse('`unavailable` (see `Retry-After`)'),
        },
      },
    },
    '/console/api/session': {
      get: {
        summary: 'Who is signed in',
        security: [{ consoleSession: [] }],
        responses: { '200': json(ref('Session'), 'The signed-in person'), '401': consoleErrors['401'] },
      },
      post: {
        summary: 'Sign in',
        requestBody: jsonBody('SignInRequest'),
        responses: {
          '204': { description: 'Signed in; the `kbw_session` cookie is set (HttpOnly, SameSite=Lax)' },
          '401': problemResponse('Wrong email or password (one message for both)'),
          '403': problemResponse('`cross_site_request`'),
          '429': problemResponse('Too many attempts (`rate_limited`, see `Retry-After`)'),
        },
      },
      delete: { summary: 'Sign out', security: [{ consoleSession: [] }], responses: { '204': { description: 'Signed out' } } },
    },
    '/console/api/set-password/check': {
      post: {
        summary: 'Check a set-password link before choosing a password (not signed in); changes nothing',
        requestBody: jsonBody('PasswordLinkCheckRequest'),
        responses: {
          '200': json(ref('PasswordLink'), 'The link can be used: the account it is for and when it expires'),
          '403': problemResponse('`cross_site_request`'),
          '404': problemResponse('No such link (`invalid_link`)'),
          '410': problemResponse('The link was used, replaced by a newer one or has expired, or the account has a password since (`invalid_link`)'),
          '429': problemResponse('Too many failed attempts from this client (`rate_limited`, see `Retry-After`)'),
        },
      },
    },
    '/console/api/set-password': {
      post: {
        summary: 'Choose a first password through a one-time set-password link, and sign in',
        description:
          'The link is the one an owner was shown when inviting the person (`POST …/invitations`); its secret is the part after `#/set-password/`. ' +
          'It works once, for 7 days, only while it is the newest link of its account and the account has no password.',
        requestBody: jsonBody('SetPasswordRequest'),
        responses: {
          '204': { description: 'Password set, link used up; signed in: the `kbw_session` cookie is set (HttpOnly, SameSite=Lax)' },
          '400': problemResponse('A password shorter than 12 or longer than 1024 characters (`invalid_request`)'),
          '403': problemResponse('`cross_site_request`'),
          '404': problemResponse('No such link (`invalid_link`)'),
          '410': problemResponse('The link was used, replaced by a newer one or has expired, or the account has a password since (`invalid_link`)'),
          '429': problemResponse('Too many failed attempts from this client (`rate_limited`, see `Retry-After`)'),
        },
      },
    },
    // The console API's routes are records: mounted and documented from the same definition.
    ...openApiPaths('/console/api', CONSOLE_ROUTES),
  },
} as const;
