import { fileURLToPath } from 'node:url';
import { buildConsole, findStaleConsoleBuild } from './console-build.ts';
import { buildWidget, findStaleWidgetBuild } from './widget-build.ts';

/**
 * First step of `npm start`: builds the widget into `dist/` and the console
 * into `dist/console/` when a build is missing or older than its sources,
 * so a fresh clone serves a working `/widget/kb-widget.js` and `/console`;
 * otherwise returns at once, keeping later starts fast. A widget or console
 * that does not compile stops `npm start` with Vite's error.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

const builds = [
  { what: 'the widget', files: 'dist/kb-widget.js and dist/kb-widget.mjs', findStale: findStaleWidgetBuild, build: buildWidget },
  { what: 'the console', files: 'dist/console/console.js', findStale: findStaleConsoleBuild, build: buildConsole },
];
for (const { what, files, findStale, build } of builds) {
  const reason = await findStale(root);
  if (reason === undefined) continue;
  const started = Date.now();
  process.stdout.write(`Building ${what} (${reason})...\n`);
  try {
    await build(root);
  } catch (error) {
    process.stderr.write(`error: ${what} failed to build: ${(error as Error).message}\n`);
    process.exit(1);
  }
  process.stdout.write(`Built ${files} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
