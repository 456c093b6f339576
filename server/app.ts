import express, { type Express } from 'express';
import { mountWidgetApi, WIDGET_API_ROUTES, type WidgetApiDeps } from './api/widget-api.ts';
import { widgetAssetRoutes } from './api/widget-asset.ts';
import { CONSOLE_API_ROUTES, DEFAULT_TOKEN_TTL_CAP_MINUTES, mountConsole, type ConsoleAppDeps } from './console-api/console-app.ts';
import { openApiDocument } from './http/openapi-document.ts';
import { problem, problemHandler } from './http/problem.ts';
import { requestLog } from './http/request-log.ts';
import type { RetrievalStatus } from './embedding/embedding-model.ts';
import { ImportJobs } from './ingest/jobs/import-jobs.ts';
import { UploadJobs } from './ingest/jobs/upload-jobs.ts';
import { createServiceMetrics, metricsRoute, routeTemplateOf, type ServiceMetrics } from './http/service-metrics.ts';

export { DEFAULT_TOKEN_TTL_CAP_MINUTES };
export { WIDGET_API_PATH } from './api/widget-api.ts';

/** What the app needs: the widget API's and the console's dependencies, and the proxies it trusts. */
export interface AppDeps extends WidgetApiDeps, Omit<ConsoleAppDeps, 'imports' | 'uploads'> {
  /** Where the console's website imports run; default: a set of this app's own. */
  imports?: ImportJobs;
  /** Where the console's uploads of files run; default: a set in the imports' registry (one count in /metrics, one wait at shutdown). */
  uploads?: UploadJobs;
  /** Number of trusted reverse proxies (Express `trust proxy`). */
  trustedProxies: number;
  /**
   * Folder of the built widget (`dist/`), served at `/widget/kb-widget.js`
   * and `/widget/kb-widget.mjs`; omitted = the widget script is not served.
   */
  widgetDistDir?: string;
  /** Where the service's metrics are counted (`GET /metrics`); default: a registry of this app's own. */
  metrics?: ServiceMetrics;
  /** How answers retrieve passages (hybrid, or lexical only and why), told by `/readyz` and `/metrics`; omitted = not reported. */
  retrieval?: RetrievalStatus;
}

/**
 * The OpenAPI document served at `/openapi.json`, folded from the route
 * records the widget API and the console mount (http/openapi-document.ts).
 */
export const OPENAPI_DOCUMENT = openApiDocument([WIDGET_API_ROUTES, CONSOLE_API_ROUTES]);

/** Paths that are their own route template in the metrics (the others are the OpenAPI document's). */
const FIXED_ROUTES = ['/healthz', '/readyz', '/metrics', '/openapi.json', '/widget/kb-widget.js', '/widget/kb-widget.mjs', '/console', '/console/', '/console/console.js'];

/**
 * Builds the Express app. Reads top to bottom as a request's path: the
 * request log line and id, request metrics; liveness (`/healthz`),
 * readiness (`/readyz`), metrics (`/metrics`), the OpenAPI document, the
 * widget script; the widget API (api/widget-api.ts: CORS, media type, body
 * limits, rate limits, token check, query, stream and feedback endpoints);
 * the console (console-api/console-app.ts: same-origin check, sessions, sign-in, the
 * console API, the console page); a JSON 404, one error handler last.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustedProxies);
  app.set('json replacer', omitNull);

  const metrics = deps.metrics ?? createServiceMetrics();
  if (deps.retrieval) metrics.retrieval.set({ mode: deps.retrieval.mode, model: deps.retrieval.model }, 1);
  app.use(requestLog(deps.logger, metrics, routeTemplateOf(Object.keys(OPENAPI_DOCUMENT.paths), FIXED_ROUTES)));

  // Liveness: the process answers. Readiness: it can serve, its store reachable; it says how it retrieves (lexical only without the embedding model).
  app.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  app.get('/readyz', async (_request, response) => {
    await deps.store.ping();
    response.json({ status: 'ready', ...(deps.retrieval && { retrieval: deps.retrieval }) });
  });
  app.get('/metrics', metricsRoute(metrics));
  app.get('/openapi.json', (_request, response) => {
    response.json(OPENAPI_DOCUMENT);
  });
  if (deps.widgetDistDir !== undefined) app.use(widgetAssetRoutes(deps.widgetDistDir));

  mountWidgetApi(app, { ...deps, metrics });
  const imports = deps.imports ?? new ImportJobs({ now: deps.now });
  const uploads = deps.uploads ?? new UploadJobs(imports.registry);
  // Every kind of ingest job in the registry: website imports and uploads.
  imports.registry.subscribe({
    started: (_job, kind) => metrics.runningIngestJobs.inc({ kind }),
    ended: (job, kind) => {
      metrics.runningIngestJobs.dec({ kind });
      metrics.ingestJobs.inc({ kind, outcome: job.status });
    },
  });
  mountConsole(app, { ...deps, imports, uploads });

  app.use((request) => {
    throw problem(404, 'not_found', `No endpoint at ${request.method} ${request.path}`);
  });
  app.use(problemHandler(deps.logger));
  return app;
}

/** JSON replacer that drops `null` values: fields with no value are omitted (docs/specification.md "Principles"). */
function omitNull(_key: string, value: unknown): unknown {
  return value === null ? undefined : value;
}
