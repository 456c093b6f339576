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
import { consoleErrors, documentId, json, jsonBody, kbId, problemResponse, ref, sourceId, userId } from './openapi-parts.ts';
import { CURATED_ANSWER_ROUTES } from './curated-answer-routes.ts';
import { TOKEN_ROUTES } from './token-routes.ts';

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
    '/console/api/knowledge-bases': {
      get: {
        summary: 'Knowledge bases the person is a member of',
        security: [{ consoleSession: [] }],
        responses: { '200': json(ref('KnowledgeBaseList'), "Knowledge bases with the person's role"), '401': consoleErrors['401'] },
      },
    },
    '/console/api/knowledge-bases/{kbId}': {
      get: {
        summary: 'One knowledge base, with what the person may do and the token lifetime limits',
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        responses: { '200': json(ref('KnowledgeBaseDetail'), 'The knowledge base'), ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/documents': {
      get: {
        summary: 'Documents of the knowledge base the person can read, with their visibility',
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        responses: { '200': json(ref('DocumentList'), 'Documents'), ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/documents/{docId}': {
      put: {
        summary:
          "Add or replace one document from its source (editors and owners), indexed like `kb ingest` in one transaction; the id's extension picks the format (.md, .markdown, .html, .htm, .txt, .text, .pdf; a PDF's bytes are sent as `content_base64`)",
        security: [{ consoleSession: [] }],
        parameters: [kbId, documentId],
        requestBody: { ...jsonBody('DocumentRequest'), description: 'At most 25 MiB of JSON' },
        responses: {
          '200': json(ref('StoredDocument'), 'Replaced (`outcome: updated`) or already identical (`outcome: unchanged`)'),
          '201': json(ref('StoredDocument'), 'Added (`outcome: created`)'),
          '400': problemResponse('Unsupported extension, empty or non-UTF-8 source, readers who are not members, a malformed id (`invalid_request`)'),
          '413': problemResponse('Body over 25 MiB (`payload_too_large`)'),
          ...consoleErrors,
        },
      },
      patch: {
        summary: 'Change who may read one document and whether it may be quoted (editors and owners who can read it); its passages are kept',
        security: [{ consoleSession: [] }],
        parameters: [kbId, documentId],
        requestBody: jsonBody('DocumentAccessRequest'),
        responses: {
          '200': json(ref('ConsoleDocument'), 'The document with its new access'),
          '400': problemResponse('Readers who are not members, a malformed id (`invalid_request`)'),
          ...consoleErrors,
        },
      },
      delete: {
        summary: 'Remove one document and its passages (editors and owners who can read it)',
        security: [{ consoleSession: [] }],
        parameters: [kbId, documentId],
        responses: { '204': { description: 'Removed' }, ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/uploads': {
      get: {
        summary: "The knowledge base's uploads of files, newest first: those running and the last ones finished (any member)",
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        responses: { '200': json(ref('UploadJobList'), 'Uploads'), ...consoleErrors },
      },
      post: {
        summary:
          "Upload files (editors and owners): each becomes the document of its id, indexed like `PUT …/documents/{docId}` in its own transaction, as a job on the server that reports its progress and each file's outcome; a file that fails (not its format) changes nothing. Follow it at the Location",
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        requestBody: { ...jsonBody('UploadRequest'), description: 'At most 25 MiB of JSON and 200 files; send more as several uploads' },
        responses: {
          '202': json(ref('UploadJob'), 'Started: running (a file whose document exists and that the person cannot read is already reported failed)'),
          '400': problemResponse('A malformed id, an unsupported extension or an id given twice (naming the file), an empty or malformed source, readers who are not members (`invalid_request`)'),
          '409': problemResponse('4 uploads are already running in the knowledge base (`conflict`)'),
          '413': problemResponse('Body over 25 MiB (`payload_too_large`)'),
          ...consoleErrors,
        },
      },
    },
    '/console/api/knowledge-bases/{kbId}/uploads/{uploadId}': {
      get: {
        summary: "One upload: its progress and each file's outcome (created, updated, unchanged, failed with the reason), or why it stopped (any member)",
        security: [{ consoleSession: [] }],
        parameters: [kbId, { name: 'uploadId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': json(ref('UploadJob'), 'The upload'), ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/imports': {
      get: {
        summary: "The knowledge base's website imports, newest first: those running and the last ones finished (any member)",
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        responses: { '200': json(ref('ImportJobList'), 'Imports'), ...consoleErrors },
      },
      post: {
        summary:
          'Start a website import (editors and owners): pages of one site and those they link to below their folder, or one sitemap; robots.txt obeyed, private addresses refused unless KB_IMPORT_ALLOW_PRIVATE_ADDRESSES allows them. It runs on the server; follow it at the Location',
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        requestBody: jsonBody('ImportRequest'),
        responses: {
          '202': json(ref('ImportJob'), 'Started: running'),
          '400': problemResponse('A URL that is not http(s), URLs of several sites, a sitemap import with several URLs, readers who are not members (`invalid_request`)'),
          '409': problemResponse('An import of the same URLs is running in the knowledge base (`conflict`)'),
          ...consoleErrors,
        },
      },
    },
    '/console/api/knowledge-bases/{kbId}/imports/{importId}': {
      get: {
        summary: 'One website import: its progress, then what it did (document ids by outcome) or why it failed (any member)',
        security: [{ consoleSession: [] }],
        parameters: [kbId, { name: 'importId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': json(ref('ImportJob'), 'The import'), ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/import-sources': {
      get: {
        summary:
          'The websites the knowledge base imports again on a schedule (set up by an import with `resync_hours`), by next sync, each with how its last sync ended (any member)',
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        responses: { '200': json(ref('ImportSourceList'), 'Re-synced websites'), ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/import-sources/{sourceId}': {
      delete: {
        summary: 'Stop re-syncing a website (editors and owners); the documents imported from it stay',
        security: [{ consoleSession: [] }],
        parameters: [kbId, sourceId],
        responses: { '204': { description: 'Stopped' }, ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/import-sources/{sourceId}/sync': {
      post: {
        summary: "Sync a re-synced website now (editors and owners), with the access of the person asking; its schedule is unchanged. Follow the import at the Location",
        security: [{ consoleSession: [] }],
        parameters: [kbId, sourceId],
        responses: {
          '202': json(ref('ImportJob'), 'Started: running'),
          '409': problemResponse('An import of the same URLs is running in the knowledge base (`conflict`)'),
          ...consoleErrors,
        },
      },
    },
    ...openApiPaths('/console/api', CURATED_ANSWER_ROUTES),
    '/console/api/knowledge-bases/{kbId}/insights': {
      get: {
        summary: 'Questions and abstentions per day, coverage gaps (abstained questions grouped by similarity), 👎 answers from the question log, and problem reports with their passages (editors and owners)',
        security: [{ consoleSession: [] }],
        parameters: [kbId, { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 365, default: 30 }, description: 'Days covered, ending today (UTC)' }],
        responses: {
          '200': json(ref('Insights'), 'Insights of the period'),
          '400': problemResponse('`days` out of range (`invalid_request`)'),
          ...consoleErrors,
        },
      },
    },
    '/console/api/knowledge-bases/{kbId}/questions.csv': {
      get: {
        summary: 'Every logged question of the period as CSV (editors and owners): asked_at, question, provenance, cited_documents, latency_ms, endpoint, rating, rating_reason, problem_reports',
        security: [{ consoleSession: [] }],
        parameters: [kbId, { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 365, default: 30 } }],
        responses: {
          '200': { description: 'The questions, newest first', content: { 'text/csv': { schema: { type: 'string' } } } },
          '400': problemResponse('`days` out of range (`invalid_request`)'),
          ...consoleErrors,
        },
      },
    },
    '/console/api/knowledge-bases/{kbId}/feedback': {
      get: {
        summary: "Visitors' ratings and problem reports, newest first (editors and owners)",
        security: [{ consoleSession: [] }],
        parameters: [
          kbId,
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
          { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'The `next_cursor` of the previous page' },
        ],
        responses: {
          '200': json(ref('FeedbackPage'), 'A page of feedback'),
          '400': problemResponse('`limit` out of range or a `cursor` this API did not give (`invalid_request`)'),
          ...consoleErrors,
        },
      },
    },
    '/console/api/knowledge-bases/{kbId}/members': {
      get: {
        summary: 'Members and roles',
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        responses: { '200': json(ref('MemberList'), 'Members'), ...consoleErrors },
      },
    },
    '/console/api/knowledge-bases/{kbId}/invitations': {
      post: {
        summary: 'Invite a person by email with a role (owners only); no mail is sent',
        description:
          'Adds the person as a member, creating their account without a password when no user has the email. A person with no password ' +
          'yet gets a one-time `set_password_url` (7 days; it replaces their earlier links) for the owner to pass on; a person whose account ' +
          'has a password is just added (`pending: false`, no link). No link is made for a person who also belongs to a knowledge base the ' +
          'owner does not own.',
        security: [{ consoleSession: [] }],
        parameters: [kbId],
        requestBody: jsonBody('InvitationRequest'),
        responses: {
          '201': json(ref('Invitation'), 'Added, with the set-password link when one was made'),
          '400': problemResponse('Not an email address, unknown role (`invalid_request`)'),
          '409': problemResponse('Already a member (`conflict`)'),
          ...consoleErrors,
        },
      },
    },
    '/console/api/knowledge-bases/{kbId}/members/{userId}/password-link': {
      post: {
        summary: 'A new set-password link for a member who has not set a password yet (owners of every knowledge base the member belongs to)',
        security: [{ consoleSession: [] }],
        parameters: [kbId, userId],
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          '201': json(ref('Invitation'), 'The new link; the earlier ones stop working'),
          '409': problemResponse('The member has a password already (`conflict`)'),
          ...consoleErrors,
        },
      },
    },
    '/console/api/knowledge-bases/{kbId}/members/{userId}': {
      put: {
        summary: "Set a member's role (owners only)",
        security: [{ consoleSession: [] }],
        parameters: [kbId, userId],
        requestBody: jsonBody('RoleRequest'),
        responses: { '200': json(ref('MemberRole'), 'The new role'), '400': problemResponse('Would leave no owner'), ...consoleErrors },
      },
      delete: {
        summary: 'Remove a member (owners only); their tokens stop working',
        security: [{ consoleSession: [] }],
        parameters: [kbId, userId],
        responses: { '204': { description: 'Removed' }, '400': problemResponse('Would leave no owner'), ...consoleErrors },
      },
    },
    // Routes defined as records: mounted and documented from the same definition.
    ...openApiPaths('/console/api', TOKEN_ROUTES),
  },
} as const;
