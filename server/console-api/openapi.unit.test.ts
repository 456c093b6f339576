import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import type { Express } from 'express';
import { createApp, OPENAPI_DOCUMENT, type AppDeps } from '../app.ts';

/**
 * `/openapi.json` and the routes the app mounts say the same: every API
 * route (widget endpoints under `/kb-api/api/`, console API under
 * `/console/api/`) is documented, and the document names no route that is
 * not mounted. Reads Express's router stack, so a route mounted without a
 * route record (server/http/route-record.ts), or a record documented but
 * not mounted, fails here; so does a route mounted twice.
 */

/** The parts of Express 5's router layers read here (router 2.x `Layer`, `Route`). */
interface StackLayer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: StackLayer[] };
}

const API_PREFIXES = ['/kb-api/api/', '/console/api/'];

/** `METHOD /path/{param}` of every route in `stack`, its Express `:param` and `*param` written as OpenAPI `{param}`. */
export function mountedRoutes(stack: readonly StackLayer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    const path = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    if (layer.route && typeof layer.route.path === 'string') {
      const template = `${prefix}${layer.route.path}`.replace(/[:*](\w+)/g, '{$1}');
      return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${template}`);
    }
    return layer.handle?.stack ? mountedRoutes(layer.handle.stack, `${prefix}${path}`) : [];
  });
}

/** `METHOD /path` of every operation of an OpenAPI document. */
export function documentedRoutes(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
}

/** An app with every route mounted; nothing is called on its store. */
function appWithEveryRoute() {
  return createApp({
    store: {},
    engine: {},
    codec: {},
    logger: pino({ level: 'silent' }),
    now: () => 0,
    rateLimitPerIp: 1,
    rateLimitPerToken: 1,
    trustedProxies: 0,
    tokenTtlCapMinutes: 60,
    tokenTtlDefaultMinutes: 60,
  } as unknown as AppDeps);
}

/** `METHOD /path/{param}` of every API route the app mounts, in its order. */
function mountedApiRoutes(app: Express): string[] {
  return mountedRoutes((app as unknown as { router: { stack: StackLayer[] } }).router.stack).filter((route) =>
    API_PREFIXES.some((prefix) => route.split(' ')[1]!.startsWith(prefix)),
  );
}

describe('/openapi.json and the mounted routes', () => {
  test('the app: every API route it mounts is in the document, each mounted once, and the document names only mounted routes', () => {
    const mounted = mountedApiRoutes(appWithEveryRoute());

    expect(mounted).toEqual(expect.arrayContaining(['POST /kb-api/api/v1/kb/{kbId}/widget/query/stream', 'GET /console/api/session']));
    expect(mounted.sort()).toEqual(documentedRoutes(OPENAPI_DOCUMENT).sort());
  });

  test('a route mounted beside the route records: it is the one difference between the mounted and the documented routes', () => {
    // Arrange
    const app = appWithEveryRoute();
    app.delete('/console/api/knowledge-bases/:kbId', () => undefined);

    // Act
    const documented = documentedRoutes(OPENAPI_DOCUMENT);
    const undocumented = mountedApiRoutes(app).filter((route) => !documented.includes(route));

    // Assert
    expect(undocumented).toEqual(['DELETE /console/api/knowledge-bases/{kbId}']);
  });

  test('a route mounted but not documented, or documented but not mounted: the two lists differ', () => {
    const stack: StackLayer[] = [
      { rawPath: '/console/api', handle: { stack: [{ route: { path: '/knowledge-bases/:kbId/documents/*docId', methods: { put: true } } }] } },
    ];

    expect(mountedRoutes(stack)).toEqual(['PUT /console/api/knowledge-bases/{kbId}/documents/{docId}']);
    expect(documentedRoutes({ paths: { '/console/api/knowledge-bases/{kbId}/documents/{docId}': { put: {}, delete: {} } } })).toEqual([
      'PUT /console/api/knowledge-bases/{kbId}/documents/{docId}',
      'DELETE /console/api/knowledge-bases/{kbId}/documents/{docId}',
    ]);
  });
});
