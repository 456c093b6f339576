import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Router, type Request, type Response } from 'express';
import { problem } from '../http/problem.ts';

/**
 * Serves the built widget (`npm run build`, `dist/`) to customers' pages:
 * `GET /widget/kb-widget.js` (the file for a plain `<script src>` tag) and
 * `GET /widget/kb-widget.mjs` (the ES module).
 *
 * - `Content-Type: text/javascript; charset=utf-8` (RFC 9239) with
 *   `X-Content-Type-Options: nosniff`.
 * - `Cache-Control: public, max-age=300, stale-while-revalidate=86400`: the
 *   URL carries no version, so a page picks up a new release within five
 *   minutes, while a browser or CDN may keep using its copy for a day as it
 *   revalidates in the background (RFC 5861).
 * - A strong `ETag` (SHA-256 of the bytes sent); `If-None-Match` that
 *   matches gets `304 Not Modified` (RFC 9110 13.1.2).
 * - gzip (level 9) when the client accepts it, computed once per build, with
 *   `Vary: Accept-Encoding` and its own ETag.
 * - `Access-Control-Allow-Origin: *` and
 *   `Cross-Origin-Resource-Policy: cross-origin`: a public script without
 *   credentials, loadable from any site, including pages with
 *   `Cross-Origin-Embedder-Policy: require-corp` or `crossorigin` script tags.
 *
 * The files are read again when their size or modification time changes, so
 * a rebuild is served without a restart. A missing build is a 404
 * `not_found` problem saying to run `npm run build`.
 */

/** The files served, by URL path, and their names in the dist folder. */
export const WIDGET_ASSETS: Readonly<Record<string, string>> = {
  '/widget/kb-widget.js': 'kb-widget.js',
  '/widget/kb-widget.mjs': 'kb-widget.mjs',
};

/** Browser and CDN cache lifetime of the widget script (see the module comment). */
export const WIDGET_ASSET_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400';

/** One file as sent: identity and gzip representations with their strong ETags. */
interface LoadedAsset {
  size: number;
  modifiedMs: number;
  identity: { body: Buffer; etag: string };
  gzip: { body: Buffer; etag: string };
}

const gzipAsync = promisify(gzip);

/**
 * @param distDir folder holding `kb-widget.js` and `kb-widget.mjs` (`dist/` of `npm run build`)
 * @returns a router to mount at the app's root
 */
export function widgetAssetRoutes(distDir: string): Router {
  const router = Router();
  const loaded = new Map<string, LoadedAsset>();

  async function load(fileName: string): Promise<LoadedAsset | undefined> {
    const path = join(distDir, fileName);
    const stats = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!stats?.isFile()) return undefined;
    const cached = loaded.get(fileName);
    if (cached && cached.size === stats.size && cached.modifiedMs === stats.mtimeMs) return cached;
    const body = await readFile(path);
    const gzipped = await gzipAsync(body, { level: 9 });
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
    const asset: LoadedAsset = {
      size: stats.size,
      modifiedMs: stats.mtimeMs,
      identity: { body, etag: `"${hash}"` },
      gzip: { body: gzipped, etag: `"${hash}-gzip"` },
    };
    loaded.set(fileName, asset);
    return asset;
  }

  async function sendAsset(fileName: string, request: Request, response: Response): Promise<void> {
    const asset = await load(fileName);
    if (!asset) throw problem(404, 'not_found', `The widget is not built (dist/${fileName} is missing): run \`npm run build\``);
    const representation = request.acceptsEncodings('gzip', 'identity') === 'gzip' ? asset.gzip : asset.identity;
    response.set({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': WIDGET_ASSET_CACHE_CONTROL,
      ETag: representation.etag,
      Vary: 'Accept-Encoding',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'X-Content-Type-Options': 'nosniff',
    });
    if (representation === asset.gzip) response.set('Content-Encoding', 'gzip');
    if (request.fresh) {
      response.status(304).end();
      return;
    }
    response.send(representation.body);
  }

  for (const [path, fileName] of Object.entries(WIDGET_ASSETS)) {
    router.get(path, (request, response) => sendAsset(fileName, request, response));
  }
  return router;
}
