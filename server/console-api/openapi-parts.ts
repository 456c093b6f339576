/**
 * Pieces of the console API's route records (server/http/route-record.ts)
 * for `/openapi.json`: its path parameters and the refusals every console
 * route may answer. The pieces both APIs share are in
 * server/http/openapi-parts.ts.
 */

import { problemResponse } from '../http/openapi-parts.ts';

/** The `{userId}` path parameter: a member. */
export const userId = { name: 'userId', in: 'path', required: true, schema: { type: 'string' } } as const;
/** The `{sourceId}` path parameter: a re-synced website. */
export const sourceId = { name: 'sourceId', in: 'path', required: true, schema: { type: 'string' }, description: 'A re-synced website (`src_…`)' } as const;
/** The `{answerId}` path parameter: a curated answer. */
export const answerId = { name: 'answerId', in: 'path', required: true, schema: { type: 'integer' } } as const;
/** The `{docId}` path parameter: a document id, which may span several segments. */
export const documentId = {
  name: 'docId',
  in: 'path',
  required: true,
  description: 'Relative path such as `guides/setup.md`; its `/` are not escaped',
  schema: { type: 'string' },
} as const;
/** A `{name}` path parameter of a string id. */
export const idParameter = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } }) as const;
/** The refusals every console route may answer: not signed in, missing role or cross-site, unknown knowledge base. */
export const consoleErrors = {
  '401': problemResponse('Not signed in (`unauthenticated`); widget tokens are never accepted here'),
  '403': problemResponse('Missing role (`forbidden`) or a cross-site request (`cross_site_request`)'),
  '404': problemResponse('No such knowledge base among yours (`not_found`)'),
};
