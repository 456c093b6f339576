/**
 * The OpenAPI 3.1 description of kb-widget's HTTP API, served at
 * `/openapi.json`: the two widget endpoints (docs/specification.md
 * "Endpoints"), the feedback endpoint and the console API behind the
 * Developers tab (session sign-in, set-password links, knowledge bases,
 * documents, uploads, imports, curated answers, feedback, insights, members
 * and invitations, tokens).
 *
 * No path is listed here: every operation is folded from the route record
 * that mounts it (route-record.ts), so a route is served and documented
 * from one definition; server/console-api/openapi.test.ts fails when a
 * mounted route is missing from the document or the document names a
 * route that is not mounted. No schema is written here either: each is
 * generated from its one definition (protocol/query-schemas.ts for the
 * widget endpoints, protocol/console-protocol.ts for the console; zod's
 * JSON Schema output), and tests check the service's answers against the
 * schemas named here.
 */

import { CONSOLE_SCHEMAS } from '../../protocol/console-protocol.ts';
import { componentSchemas } from '../../protocol/json-schemas.ts';
import { QUERY_SCHEMAS } from '../../protocol/query-schemas.ts';
import { openApiPaths, type RouteGroup } from './route-record.ts';

/** An OpenAPI 3.1 document as {@link openApiDocument} writes it. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  components: {
    securitySchemes: Record<string, Record<string, string>>;
    schemas: Record<string, Record<string, unknown>>;
  };
  /** Operations by path template (`{name}` parameters), then by method. */
  paths: Record<string, Record<string, Record<string, unknown>>>;
}

/**
 * The document of the API whose routes are `groups`: their operations in
 * the groups' order, each group's under its prefix, and every component
 * schema of the protocol.
 *
 * @throws Error when a record's body schema, or a protocol schema, has no `meta({ id })`
 */
export function openApiDocument(groups: readonly RouteGroup[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const { prefix, records } of groups) {
    for (const [path, operations] of Object.entries(openApiPaths(prefix, records))) paths[path] = { ...paths[path], ...operations };
  }
  return {
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
      schemas: componentSchemas([...QUERY_SCHEMAS, ...CONSOLE_SCHEMAS]),
    },
    paths,
  };
}
