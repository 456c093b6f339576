import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Router } from 'express';
import { CONSOLE_CSP } from '../../protocol/console-csp.ts';
import { problem } from '../http/problem.ts';

/**
 * The console's page (docs/console.md): `GET /console` answers a small HTML shell
 * whose only script is the console bundle, `GET /console/console.js`, and
 * whose icon is `GET /console/favicon.svg` (without it,
 * every load's `/favicon.ico` was a 404)
 * (`npm run build` writes it to `dist/console/console.js` from
 * `console/index.ts`, see vite.console.config.ts). Everything else the page
 * shows comes from the console API as JSON.
 *
 * The shell is sent with a strict Content Security Policy (CSP Level 3):
 * scripts, styles and fetches from this origin only, no inline script, no
 * plugins, no `<base>`, forms posting nowhere else, and no framing by other
 * sites (`frame-ancestors 'none'`, against clickjacking of the Revoke and
 * Issue buttons). Lit's styles are constructable stylesheets, which CSP does
 * not govern, so no `'unsafe-inline'` is needed. The Developers tab's live
 * preview needs nothing more: the widget script it loads
 * (`/widget/kb-widget.js`) and the widget endpoints it calls (`/kb-api/...`)
 * are served by this same server, so `'self'` covers both (the journey in
 * e2e/developers-journey.test.ts fails on any CSP violation report).
 *
 * The shell and the bundle are revalidated on every load (`no-cache` with
 * Express's ETag), so a rebuild reaches a signed-in person at once.
 */

/** URL path of the console bundle. */
export const CONSOLE_SCRIPT_PATH = '/console/console.js';

/** URL path of the console's icon, which the shell names, so a browser asks for no `/favicon.ico`. */
export const CONSOLE_ICON_PATH = '/console/favicon.svg';

/** The console's icon: a page of lines on the console's blue, 32 × 32. */
const CONSOLE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1a5fb4"/><path d="M9 10h14M9 16h14M9 22h9" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>
`;

/** The HTML shell of `/console`. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>kb-widget console</title>
    <link rel="icon" href="${CONSOLE_ICON_PATH}" type="image/svg+xml" />
    <script type="module" src="${CONSOLE_SCRIPT_PATH}"></script>
  </head>
  <body>
    <kb-console-app></kb-console-app>
    <noscript>The console needs JavaScript.</noscript>
  </body>
</html>
`;

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
} as const;

/**
 * @param consoleDistDir folder holding `console.js` (`dist/console`), or
 *   undefined when the app serves no built files; a missing bundle is a 404
 *   `not_found` problem saying to run `npm run build`
 * @returns a router to mount at the app's root
 */
export function consolePageRoutes(consoleDistDir: string | undefined): Router {
  const router = Router();

  router.get(['/console', '/console/'], (_request, response) => {
    response.set({
      ...SECURITY_HEADERS,
      'Content-Security-Policy': CONSOLE_CSP,
      'Cache-Control': 'no-cache',
      'Content-Type': 'text/html; charset=utf-8',
    });
    response.send(CONSOLE_HTML);
  });

  router.get(CONSOLE_ICON_PATH, (_request, response) => {
    response.set({ ...SECURITY_HEADERS, 'Cache-Control': 'public, max-age=86400', 'Content-Type': 'image/svg+xml' });
    response.send(CONSOLE_ICON);
  });

  router.get(CONSOLE_SCRIPT_PATH, async (_request, response) => {
    const path = consoleDistDir === undefined ? undefined : join(consoleDistDir, 'console.js');
    const stats = path === undefined ? undefined : await stat(path).catch(() => undefined);
    if (!stats?.isFile()) throw problem(404, 'not_found', 'The console is not built (dist/console/console.js is missing): run `npm run build`');
    response.set({ ...SECURITY_HEADERS, 'Cache-Control': 'no-cache', 'Content-Type': 'text/javascript; charset=utf-8' });
    response.send(await readFile(path!));
  });

  return router;
}
