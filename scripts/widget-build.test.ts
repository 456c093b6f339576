import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { buildWidget, findStaleWidgetBuild } from './widget-build.ts';

/**
 * What `npm start` decides before serving: build the widget when `dist/` is
 * missing or older than its sources, and otherwise start at once.
 */
let root: string;
const HOUR = 3_600_000;
const BUILT_AT = new Date(Date.UTC(2026, 0, 15, 12));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kb-widget-build-test-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes a file of the project with the given modification time. */
async function file(path: string, modified: Date, text = ''): Promise<void> {
  const target = join(root, path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, text);
  await utimes(target, modified, modified);
}

/** A project whose sources are an hour older than its build. */
async function builtProject(): Promise<void> {
  const before = new Date(BUILT_AT.getTime() - HOUR);
  await file('widget/kb-widget.ts', before);
  await file('widget/index.ts', before);
  await file('protocol/query-protocol.ts', before);
  await file('vite.config.ts', before);
  await file('package-lock.json', before);
  await file('dist/kb-widget.js', BUILT_AT);
  await file('dist/kb-widget.mjs', BUILT_AT);
}

describe('findStaleWidgetBuild', () => {
  test('fresh clone without dist/: stale, the script is missing', async () => {
    await file('widget/index.ts', BUILT_AT);

    expect(await findStaleWidgetBuild(root)).toBe('dist/kb-widget.js is missing');
  });

  test('only the ES module missing: stale', async () => {
    await builtProject();
    await rm(join(root, 'dist/kb-widget.mjs'));

    expect(await findStaleWidgetBuild(root)).toBe('dist/kb-widget.mjs is missing');
  });

  test('build newer than every source: up to date', async () => {
    await builtProject();

    expect(await findStaleWidgetBuild(root)).toBeUndefined();
  });

  test('a widget file edited after the build: stale, naming the file', async () => {
    await builtProject();
    await file('widget/kb-widget.ts', new Date(BUILT_AT.getTime() + 1000));

    expect(await findStaleWidgetBuild(root)).toBe('widget/kb-widget.ts is newer than dist/kb-widget.js');
  });

  test.each(['protocol/citation-markers.ts', 'vite.config.ts', 'package-lock.json'])(
    'wire code, build configuration or installed versions changed (%s): stale',
    async (path) => {
      await builtProject();
      await file(path, new Date(BUILT_AT.getTime() + 1000));

      expect(await findStaleWidgetBuild(root)).toBe(`${path} is newer than dist/kb-widget.js`);
    },
  );

  test('only a test file edited after the build: up to date', async () => {
    await builtProject();
    await file('widget/kb-widget.browser.test.ts', new Date(BUILT_AT.getTime() + HOUR));

    expect(await findStaleWidgetBuild(root)).toBeUndefined();
  });
});

describe('buildWidget', () => {
  test('writes both files into dist/ through a staging folder it removes', async () => {
    await file('widget/index.ts', BUILT_AT, 'export const greeting: string = "kb-widget built";\n');
    await file(
      'vite.config.ts',
      BUILT_AT,
      `export default {
        build: {
          lib: { entry: 'widget/index.ts', name: 'KbWidget', formats: ['iife', 'es'], fileName: (format) => (format === 'es' ? 'kb-widget.mjs' : 'kb-widget.js') },
        },
      };\n`,
    );

    await buildWidget(root);

    expect((await readdir(join(root, 'dist'))).sort()).toEqual(['kb-widget.js', 'kb-widget.mjs']);
    expect(await readFile(join(root, 'dist/kb-widget.js'), 'utf8')).toContain('kb-widget built');
    expect(await findStaleWidgetBuild(root)).toBeUndefined();
  });
});
