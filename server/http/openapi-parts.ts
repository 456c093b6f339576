/**
 * Pieces of the OpenAPI document's operations that route records
 * (route-record.ts) of both APIs share: references to component schemas,
 * JSON and problem responses, the knowledge base's path parameter. The
 * console's own pieces are in console-api/openapi-parts.ts.
 */

/** A reference to one of the document's `components.schemas`. */
export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
/** A required JSON request body of one of the document's `components.schemas`. */
export const jsonBody = (id: string) => ({ required: true, content: { 'application/json': { schema: ref(id) } } });
/** The RFC 9457 problem details schema. */
export const problem = { $ref: '#/components/schemas/Problem' } as const;
/** A response of problem details (`application/problem+json`), `description` saying which. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problem } },
});
/** A JSON response of `schema`. */
export const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
/** The `{kbId}` path parameter: the knowledge base's id. */
export const kbId = { name: 'kbId', in: 'path', required: true, schema: { type: 'string' } } as const;
