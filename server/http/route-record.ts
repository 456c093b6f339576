import { Router, type Request, type RequestHandler, type Response } from 'express';
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
 * An OpenAPI 3.1 Operation Object without its request's schema: `summary`,
 * `description`, `security`, the path `parameters`, the `responses`, and
 * what the request body's schema does not say (its `description`; or, for
 * a route with no body schema, the whole Request Body Object).
 */
export interface RouteOperation {
  summary: string;
  description?: string;
  security?: readonly Record<string, readonly string[]>[];
  parameters?: readonly Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
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
  /**
   * Express middleware run before the handler, in order (a body check that
   * must precede a rate limit, the limits, a session check), made from the
   * mount's dependencies: a limiter counts per mount, and several routes may
   * share one.
   */
  middleware?: (deps: Deps) => readonly RequestHandler[];
  handler: RouteHandler<Deps>;
}

/** Records mounted together under one path prefix (`/console/api`, the widget API's path), as the document names them. */
export interface RouteGroup {
  /** Express path the records are mounted at; its `:name` parameters are the records' too. */
  prefix: string;
  records: readonly RouteRecord<never>[];
}

/**
 * A router serving `records` in their order (which decides between
 * overlapping paths), each route's middleware before its handler, each
 * given `deps`. The router sees the parameters of the path it is mounted
 * at (`mergeParams`), as the widget API's `:kbId`.
 */
export function mountRoutes<Deps>(records: readonly RouteRecord<Deps>[], deps: Deps): Router {
  const router = Router({ mergeParams: true });
  for (const { method, path, middleware, handler } of records) {
    router[method](path, ...(middleware?.(deps) ?? []), (request, response) => handler(request, response, deps));
  }
  return router;
}

/**
 * The OpenAPI `paths` of `records` mounted at `prefix`: each path's Express
 * parameters written as `{name}`, the body as a required JSON request body
 * referring to its component schema (with the operation's `requestBody`
 * description), the query schema as parameters. Paths come in the records'
 * order, a path's methods in the order of its first records.
 */
export function openApiPaths(prefix: string, records: readonly RouteRecord<never>[]): Record<string, Record<string, Record<string, unknown>>> {
  const paths: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const { method, path, body, query, operation } of records) {
    const { responses, parameters = [], requestBody, ...described } = operation;
    const template = `${prefix}${path}`.replace(/[:*](\w+)/g, '{$1}');
    const bodyObject = body
      ? { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaId(body)}` } } }, ...requestBody }
      : requestBody;
    paths[template] = {
      ...paths[template],
      [method]: {
        ...described,
        ...(parameters.length > 0 || query ? { parameters: [...parameters, ...(query ? queryParameters(query) : [])] } : {}),
        ...(bodyObject ? { requestBody: bodyObject } : {}),
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
