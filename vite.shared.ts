/**
 * Settings both browser bundles share (the widget, `vite.config.ts`, and the
 * console, `vite.console.config.ts`).
 *
 * Lit ships its development build under the `development` export condition
 * (extra checks, console warnings, about 40% larger). Vite picks
 * `development` whenever `NODE_ENV` is not `production`, as under Vitest, so
 * the client's conditions are fixed to production, and
 * `process.env.NODE_ENV` (which a library build leaves alone) is defined so no
 * `process` reference reaches a browser.
 */
export const LIT_PRODUCTION_ENVIRONMENTS = {
  client: {
    resolve: { conditions: ['module', 'browser', 'production'] },
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  },
};

/**
 * Library build options of both bundles: modern browsers, no source maps,
 * minified in full (the files are served as they are; a library's ES build
 * keeps its whitespace by default).
 */
export const BROWSER_LIBRARY_BUILD = {
  emptyOutDir: true,
  target: 'es2022',
  sourcemap: false,
  copyPublicDir: false,
  rolldownOptions: { output: { minify: true } },
} as const;
