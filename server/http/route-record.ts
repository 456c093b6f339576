import { Router, type Request, type Response } from 'express';
import { z } from 'zod';

/**
 * Routes defined once (docs/architecture.md "Routes"): a record holds a
 * route's method, path, request schemas, documented responses and handler,
 * and the same records are both mounted ({@link mountRoutes}) and folded
 * into `/openapi.json` ({@link openApiPaths}), as hono's `createRoute` and
 * fastify's route `schema` do.
 */

/** HTTP methods of the API's routes, as Express and OpenAPI name them. */
export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * An OpenAPI 3.1 Operation Object without its request: `summary`,
 * `description`, `security`, the path `parameters` and the `responses`.
 */
export interface RouteOperation {
  summary: string;
  description?: string;
  security?: readonly Record<string, readonly string[]>[];
  parameters?: readonly Record<string, unknown>[];
  responses: Record<string, unknown>;
}

/** A route's handler: a named function of its resource module, given the resource's dependencies. */
export type RouteHandler<Deps> = (request: Request, response: Response, deps: Deps) => Promise<void> | void;

/** One route, both mounted and documented. */
export interface RouteRecord<Deps> {
  method: RouteMethod;
  /** Express path (`:name` and `*name` parameters), relative to where the records are mounted. */
  path: string;
  /** Schema of the JSON request body, named by its `meta({ id })` among the document's `components.schemas`. */
  body?: z.ZodType;
  /** Schema of the query string: documented as one optional parameter per property. */
  query?: z.ZodObject;
  operation: RouteOperation;
  handler: RouteHandler<Deps>;
}

/** A router serving `records` in their order (which decides between overlapping paths), each handler given `deps`. */
export function mountRoutes<Deps>(records: readonly RouteRecord<Deps>[], deps: Deps): Router {
  const router = Router();
  for (const { method, path, handler } of records) {
    router[method](path, (request, response) => handler(request, response, deps));
  }
  return router;
}

/**
 * The OpenAPI `paths` of `records` mounted at `prefix`: each path's Express
 * parameters written as `{name}`, the body as a required JSON request body
 * referring to its component schema, the query schema as parameters.
 */
export function openApiPaths(prefix: string, records: readonly RouteRecord<never>[]): Record<string, Record<string, Record<string, unknown>>> {
  const paths: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const { method, path, body, query, operation } of records) {
    const { responses, parameters = [], ...described } = operation;
    const template = `${prefix}${path}`.replace(/[:*](\w+)/g, '{$1}');
    paths[template] = {
      ...paths[template],
      [method]: {
        ...described,
        ...(parameters.length > 0 || query ? { parameters: [...parameters, ...(query ? queryParameters(query) : [])] } : {}),
        ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaId(body)}` } } } } } : {}),
        responses,
      },
    };
  }
  return paths;
}

/** The `id` a schema is named by among the document's components. */
function schemaId(schema: z.ZodType): string {
  const id = (schema.meta() as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string') throw new Error('A route\'s body schema needs meta({ id })');
  return id;
}

/**
 * The query parameters of an operation from the zod schema that validates
 * them (JSON Schema of its input): one optional parameter per property, its
 * description lifted from the property's.
 */
export function queryParameters(schema: z.ZodObject) {
  const { properties = {} } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as { properties?: Record<string, Record<string, unknown>> };
  return Object.entries(properties).map(([name, { description, ...property }]) => ({
    name,
    in: 'query',
    ...(typeof description === 'string' ? { description } : {}),
    schema: property,
  }));
}
