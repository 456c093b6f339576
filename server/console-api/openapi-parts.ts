/**
 * Pieces of the OpenAPI document's operations shared by the routes that
 * describe themselves (route records, server/http/route-record.ts) and
 * openapi.ts: references to component schemas, problem responses, path
 * parameters, and the refusals every console route may answer.
 */

/** A reference to one of the document's `components.schemas`. */
export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
/** A required JSON request body of one of the document's `components.schemas`. */
export const jsonBody = (id: string) => ({ required: true, content: { 'application/json': { schema: ref(id) } } });
export const userId = { name: 'userId', in: 'path', required: true, schema: { type: 'string' } } as const;
export const problem = { $ref: '#/components/schemas/Problem' } as const;
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problem } },
});
export const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
export const kbId = { name: 'kbId', in: 'path', required: true, schema: { type: 'string' } } as const;
export const sourceId = { name: 'sourceId', in: 'path', required: true, schema: { type: 'string' }, description: 'A re-synced website (`src_…`)' } as const;
export const answerId = { name: 'answerId', in: 'path', required: true, schema: { type: 'integer' } } as const;
export const documentId = {
  name: 'docId',
  in: 'path',
  required: true,
  description: 'Relative path such as `guides/setup.md`; its `/` are not escaped',
  schema: { type: 'string' },
} as const;
export const consoleErrors = {
  '401': problemResponse('Not signed in (`unauthenticated`); widget tokens are never accepted here'),
  '403': problemResponse('Missing role (`forbidden`) or a cross-site request (`cross_site_request`)'),
  '404': problemResponse('No such knowledge base among yours (`not_found`)'),
};

