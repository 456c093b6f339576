import { configDefaults, defineConfig } from 'vitest/config';

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
 * Lit ships its development build under the `development` export condition
 * (extra checks, console warnings, about 40% larger). Vite picks
 * `development` whenever `NODE_ENV` is not `production`, as under Vitest, so
 * the client's conditions are fixed to production here, and
 * `process.env.NODE_ENV` (which a library build leaves alone) is defined so no
 * `process` reference reaches a browser.
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
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    copyPublicDir: false,
    // Both files are loaded as they are, from the API, so both are minified in
    // full (a library's ES build keeps its whitespace by default).
    rolldownOptions: { output: { minify: true } },
  },
  environments: {
    client: {
      resolve: { conditions: ['module', 'browser', 'production'] },
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    },
  },
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
