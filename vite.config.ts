import type { Plugin } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';
import { BROWSER_LIBRARY_BUILD, LIT_PRODUCTION_ENVIRONMENTS } from './vite.shared.ts';

/**
 * Server tests are selected by name (docs/development.md "Tests"):
 * - `*.unit.test.ts` opens no store (pure units with fakes, bundle builds):
 *   run once, in the `embedded` project;
 * - `*.corpus.test.ts` ingests a whole corpus and takes long (the Kubernetes
 *   docs, 1,569 pages, about 30 s): run once, in the `embedded` project;
 * - any other `*.test.ts` opens stores: run on both backends.
 */
const RUN_ONCE_SERVER_TESTS = ['server/**/*.unit.test.ts', 'server/**/*.corpus.test.ts'];

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
 * through web-test-runner instead. Two projects (docs/design-decisions.md "Storage": one
 * suite, two backends):
 * - `embedded`: every Node test, stores on the embedded SQLite backend;
 * - `postgres`: the server tests again with `KB_TEST_BACKEND=postgres`, so
 *   every store they open (server/testing/test-store.ts) is a fresh schema of
 *   a database created for the run on the local PostgreSQL server
 *   (`KB_TEST_POSTGRES_URL`, default `postgres://postgres@127.0.0.1:5432/postgres`)
 *   and dropped at its end. Server tests that never open a store and the
 *   slow corpus tests are left out of it ({@link RUN_ONCE_SERVER_TESTS}).
 * `npx vitest run --project embedded` runs the first alone (no PostgreSQL needed).
 */
/**
 * Drops the indentation after each line break inside the widget's Lit
 * `html` templates when building (the bundle's size budget, docs/widget.md "The script file"): a
 * line break stays, so the whitespace the browser collapses stays
 * whitespace and the markup renders the same; a line break before the `>`
 * or `/>` that ends a tag goes. In `css` templates, also the comments, the
 * whitespace around `{`, `}`, `;`, `,` and after `:` (never before it: `.a
 * :focus` is a descendant selector), the `;` before `}` and the 0 of `0.5`.
 * The minifier leaves template literals alone; this saves about 400 bytes
 * gzipped.
 * Templates are found on the parsed module (tagged template expressions
 * whose tag is the identifier `html` or `css`), never by pattern.
 */
function collapseLitTemplateIndentation(): Plugin {
  return {
    name: 'kb-widget-collapse-lit-template-indentation',
    apply: 'build',
    enforce: 'post',
    transform(code, id) {
      if (!/\/widget\/[\w-]+\.ts$/.test(id)) return null;
      const quasis: { start: number; end: number; css: boolean }[] = [];
      const visit = (node: unknown): void => {
        if (typeof node !== 'object' || node === null) return;
        if (Array.isArray(node)) return node.forEach(visit);
        const { type, tag, quasi } = node as { type?: unknown; tag?: { type?: string; name?: string }; quasi?: { quasis: { start: number; end: number }[] } };
        if (type === 'TaggedTemplateExpression' && tag?.type === 'Identifier' && (tag.name === 'html' || tag.name === 'css')) {
          quasis.push(...quasi!.quasis.map(({ start, end }) => ({ start, end, css: tag.name === 'css' })));
        }
        Object.values(node).forEach(visit);
      };
      visit(this.parse(code));
      let result = code;
      for (const { start, end, css } of quasis.sort((left, right) => right.start - left.start)) {
        const text = result.slice(start, end);
        const collapsed = css
          ? text
              .replace(/\/\*[^]*?\*\//g, '')
              .replace(/\s+/g, ' ')
              .replace(/ ?([{};,]) ?/g, '$1')
              .replace(/: /g, ':')
              .replace(/;}/g, '}')
              .replace(/([^\w.])0\.(\d)/g, '$1.$2')
          : text.replace(/\n[ \t]+/g, '\n').replace(/\n(\/?>)/g, '$1');
        result = result.slice(0, start) + collapsed + result.slice(end);
      }
      return { code: result, map: null };
    },
  };
}

export default defineConfig({
  plugins: [collapseLitTemplateIndentation()],
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
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'embedded',
          // A DATABASE_URL or KB_TEST_BACKEND of the developer's shell never redirects these tests (or the servers they start).
          env: { KB_TEST_BACKEND: 'embedded', DATABASE_URL: '' },
          include: [
            'server/**/*.test.ts',
            'protocol/**/*.test.ts',
            'scripts/**/*.test.ts',
            'bench/**/*.test.ts',
            'e2e/**/*.test.ts',
            'eval/**/*.test.ts',
            'widget/**/*.test.ts',
            'console/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, 'widget/**/*.browser.test.ts', 'console/**/*.browser.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['server/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...RUN_ONCE_SERVER_TESTS],
          env: { KB_TEST_BACKEND: 'postgres', DATABASE_URL: '' },
          globalSetup: ['server/testing/postgres-test-database.ts'],
        },
      },
    ],
  },
});
