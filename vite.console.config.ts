import { defineConfig } from 'vite';
import { BROWSER_LIBRARY_BUILD, LIT_PRODUCTION_ENVIRONMENTS } from './vite.shared.ts';

/**
 * Vite configuration of the console bundle (`npm run build`, after the
 * widget's `vite.config.ts`, which empties `dist/` first):
 * `console/index.ts` -> `dist/console/console.js`, one minified ES module
 * with Lit bundled in, served at `/console/console.js` to the page at
 * `/console` (server/console-api/console-page.ts). Lit's production build is
 * chosen as for the widget.
 */
export default defineConfig({
  build: {
    lib: {
      entry: 'console/index.ts',
      formats: ['es'],
      fileName: () => 'console.js',
    },
    outDir: 'dist/console',
    ...BROWSER_LIBRARY_BUILD,
  },
  environments: LIT_PRODUCTION_ENVIRONMENTS,
});
