import { configDefaults, defineConfig } from 'vitest/config';
import { BROWSER_LIBRARY_BUILD, LIT_PRODUCTION_ENVIRONMENTS } from './vite.shared.ts';

/**
 * Vite and Vitest configuration.
 *
 * `build` (`npm run build`): the `<kb-widget>` element as a library, one
 * self-contained file per format in `dist/`, Lit and every other dependency
 * bundled in:
 * - `kb-widget.js`: IIFE for a plain `<script src>` tag, minified, no source
 *   map; it also exposes the module's exports as the global `KbWidget`;
 * - `kb-widget.mjs`: ES module for `<script type="module">` and `import()`,
 *   minified too.
 *
 * Lit is bundled in its production build (see vite.shared.ts, shared with
 * the console's bundle).
 *
 * The console page's bundle has its own configuration, vite.console.config.ts.
 *
 * `test`: server tests and DOM-free widget and console modules run in Node; each test
 * file builds its own fixtures (temporary data folders, ephemeral ports).
 * Widget tests that need a browser (`*.browser.test.ts`) run in Chromium
 * through web-test-runner instead.
 */
export default defineConfig({
  build: {
    lib: {
      entry: 'widget/index.ts',
      name: 'KbWidget',
      formats: ['iife', 'es'],
      fileName: (format) => (format === 'es' ? 'kb-widget.mjs' : 'kb-widget.js'),
    },
    outDir: 'dist',
    ...BROWSER_LIBRARY_BUILD,
  },
  environments: LIT_PRODUCTION_ENVIRONMENTS,
  test: {
    include: [
      'server/**/*.test.ts',
      'protocol/**/*.test.ts',
      'bench/**/*.test.ts',
      'e2e/**/*.test.ts',
      'eval/**/*.test.ts',
      'widget/**/*.test.ts',
      'console/**/*.test.ts',
    ],
    exclude: [...configDefaults.exclude, 'widget/**/*.browser.test.ts', 'console/**/*.browser.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
