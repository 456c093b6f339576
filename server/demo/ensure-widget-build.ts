import { fileURLToPath } from 'node:url';
import { buildWidget, findStaleWidgetBuild } from './widget-build.ts';

/**
 * First step of `npm start`: builds the widget into `dist/` when the build
 * is missing or older than its sources, so a fresh clone serves a working
 * `/widget/kb-widget.js`; otherwise returns at once, keeping later starts
 * fast. A widget that does not compile stops `npm start` with Vite's error.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const reason = await findStaleWidgetBuild(root);
if (reason !== undefined) {
  const started = Date.now();
  process.stdout.write(`Building the widget (${reason})...\n`);
  try {
    await buildWidget(root);
  } catch (error) {
    process.stderr.write(`error: the widget failed to build: ${(error as Error).message}\n`);
    process.exit(1);
  }
  process.stdout.write(`Built dist/kb-widget.js and dist/kb-widget.mjs in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
