import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { describe, expect, test } from 'vitest';

/**
 * The project's `engines.node` is truthful (docs/development.md "Node.js"): every Node
 * version it admits satisfies the `engines.node` of every package the lock
 * file installs, dev tools included, so `npm install` on any of them warns
 * no EBADENGINE (as it did on Node 20 for @web/* 1.x, which want Node 22).
 */
interface PackageManifest {
  engines?: { node?: string };
}

async function readJson<Shape>(file: string): Promise<Shape> {
  return JSON.parse(await readFile(new URL(`../${file}`, import.meta.url), 'utf8')) as Shape;
}

describe('engines.node', () => {
  test("admits only Node versions that every locked package's engines.node admits", async () => {
    const project = await readJson<PackageManifest>('package.json');
    const lock = await readJson<{ packages: Record<string, PackageManifest & { version?: string; optional?: boolean }> }>('package-lock.json');
    const range = project.engines?.node ?? '*';

    const unmet = Object.entries(lock.packages)
      .filter(([, locked]) => locked.engines?.node !== undefined && !semver.subset(range, locked.engines.node))
      .map(([path, locked]) => `${path.replace(/^.*node_modules\//, '')}@${locked.version ?? '?'} wants node ${locked.engines?.node}`);

    expect(unmet).toEqual([]);
  });
});
