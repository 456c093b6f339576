import { z } from 'zod';

/**
 * OpenAPI 3.1 `components.schemas` from zod schemas (zod's `toJSONSchema`,
 * JSON Schema 2020-12, the dialect of OpenAPI 3.1): each schema under the
 * `id` of its metadata, referring to the others by
 * `#/components/schemas/<id>`.
 *
 * @param schemas schemas that each carry `meta({ id })`
 * @throws Error when a schema has no `id`, or cannot be expressed in JSON Schema
 */
export function componentSchemas(schemas: readonly z.ZodType[]): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>();
  for (const schema of schemas) {
    const id = (schema.meta() as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string') throw new Error('Every schema of the OpenAPI document needs meta({ id })');
    registry.add(schema, { id });
  }
  // As input: objects stay open (unknown fields are ignored in requests, and answers may gain additive fields).
  const { schemas: generated } = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'input', uri: (id) => `#/components/schemas/${id}` });
  // `$schema` and `$id` are a standalone document's; inside an OpenAPI document the components are named by their key.
  return Object.fromEntries(Object.entries(generated).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema as Record<string, unknown>]));
}
