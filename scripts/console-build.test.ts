import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { findStaleConsoleBuild } from './console-build.ts';

/** What `npm start` decides about the console bundle before serving. */
let root: string;
const HOUR = 3_600_000;
const BUILT_AT = new Date(Date.UTC(2026, 0, 15, 12));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kb-console-build-test-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function file(path: string, modified: Date): Promise<void> {
  const target = join(root, path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, '');
  await utimes(target, modified, modified);
}

async function builtProject(): Promise<void> {
  const before = new Date(BUILT_AT.getTime() - HOUR);
  await file('console/index.ts', before);
  await file('protocol/origins.ts', before);
  await file('vite.console.config.ts', before);
  await file('package-lock.json', before);
  await file('dist/console/console.js', BUILT_AT);
}

describe('findStaleConsoleBuild', () => {
  test('no bundle: stale, the bundle is missing', async () => {
    await file('console/index.ts', BUILT_AT);

    expect(await findStaleConsoleBuild(root)).toBe('dist/console/console.js is missing');
  });

  test('bundle newer than every source: up to date', async () => {
    await builtProject();

    expect(await findStaleConsoleBuild(root)).toBeUndefined();
  });

  test('a console file changed after the build: stale, naming the file', async () => {
    await builtProject();
    await file('console/developers-tab.ts', new Date(BUILT_AT.getTime() + HOUR));

    expect(await findStaleConsoleBuild(root)).toBe('console/developers-tab.ts is newer than dist/console/console.js');
  });

  test('the shared origin parser changed: stale', async () => {
    await builtProject();
    await file('protocol/origins.ts', new Date(BUILT_AT.getTime() + HOUR));

    expect(await findStaleConsoleBuild(root)).toBe('protocol/origins.ts is newer than dist/console/console.js');
  });

  test('only a test file changed: up to date', async () => {
    await builtProject();
    await file('console/developers-tab.browser.test.ts', new Date(BUILT_AT.getTime() + HOUR));

    expect(await findStaleConsoleBuild(root)).toBeUndefined();
  });
});
