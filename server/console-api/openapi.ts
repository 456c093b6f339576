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
import { json, kbId, problemResponse } from '../http/openapi-parts.ts';
import { CONSOLE_ROUTES } from './console-routes.ts';
import { PASSWORD_LINK_ROUTES } from './password-link-routes.ts';
import { SIGN_IN_ROUTES } from './sign-in-routes.ts';

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
    ...openApiPaths('/console/api', SIGN_IN_ROUTES),
    ...openApiPaths('/console/api', PASSWORD_LINK_ROUTES),
    // The console API's routes are records: mounted and documented from the same definition.
    ...openApiPaths('/console/api', CONSOLE_ROUTES),
  },
} as const;
