import express, { type Express } from 'express';
import { widgetApi, type WidgetApiDeps } from './api/widget-api.ts';
import { widgetAssetRoutes } from './api/widget-asset.ts';
import { consoleApp, DEFAULT_TOKEN_TTL_CAP_MINUTES, type ConsoleAppDeps } from './console-api/console-app.ts';
import { OPENAPI_DOCUMENT } from './console-api/openapi.ts';
import { problem, problemHandler } from './http/problem.ts';

export { DEFAULT_TOKEN_TTL_CAP_MINUTES };
export { WIDGET_API_PATH } from './api/widget-api.ts';


/** What the app needs: the widget API's and the console's dependencies, and the proxies it trusts. */
export interface AppDeps extends WidgetApiDeps, ConsoleAppDeps {
  /** Number of trusted reverse proxies (Express `trust proxy`). */
  trustedProxies: number;
  /**
   * Folder of the built widget (`dist/`), served at `/widget/kb-widget.js`
   * and `/widget/kb-widget.mjs`; omitted = the widget script is not served.
   */
  widgetDistDir?: string;
}

/**
 * Builds the Express app. Reads top to bottom as a request's path: health,
 * the OpenAPI document, the widget script; the widget API router
 * (api/widget-api.ts: CORS, media type, body limits, rate limits, token
 * check, query, stream and feedback endpoints); the console router
 * (console-api/console-app.ts: same-origin check, sessions, sign-in, the
 * console API, the console page); a JSON 404, one error handler last.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustedProxies);
  app.set('json replacer', omitNull);

  app.get('/healthz', async (_request, response) => {
    await deps.store.ping();
    response.json({ status: 'ok' });
  });
  app.get('/openapi.json', (_request, response) => {
    response.json(OPENAPI_DOCUMENT);
  });
  if (deps.widgetDistDir !== undefined) app.use(widgetAssetRoutes(deps.widgetDistDir));

  app.use(widgetApi(deps));
  app.use(consoleApp(deps));

  app.use((request) => {
    throw problem(404, 'not_found', `No endpoint at ${request.method} ${request.path}`);
  });
  app.use(problemHandler(deps.logger));
  return app;
}

/** JSON replacer that drops `null` values: fields with no value are omitted (SPEC.md 2). */
function omitNull(_key: string, value: unknown): unknown {
  return value === null ? undefined : value;
}
