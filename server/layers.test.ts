import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * The server's layers read top-down (docs/architecture.md "The server's layers"): a module imports
 * only from its own folder or from a layer below it, never from one above
 * (nor from a sibling of its own layer). Data flows api → engine → retrieval
 * → store; the protocol's wire types are below everything. Inside the
 * engine, its wings are layers too: passages, then ranking, then the two
 * answerers (extractive, generation), then the engine's own files; so are
 * the ingester's: parsing, the pipeline, the website crawler, the jobs.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each layer and what it holds, from the bottom. A path belongs to the longest prefix listed. */
const LAYERS: readonly (readonly string[])[] = [
  ['protocol/', 'server/logger.ts', 'server/progress-bar.ts', 'server/worker-module.ts'],
  ['server/errors.ts'],
  ['server/store/'],
  ['server/embedding/'],
  ['server/access/'],
  ['server/retrieval/'],
  ['server/ingest/parsing/'],
  ['server/ingest/pipeline/'],
  ['server/ingest/web/'],
  ['server/ingest/jobs/'],
  ['server/ingest/'],
  ['server/engine/passages/'],
  ['server/engine/ranking/'],
  ['server/engine/extractive/', 'server/engine/generation/'],
  ['server/engine/', 'server/question-log/'],
  ['server/auth/'],
  ['server/http/'],
  ['server/api/', 'server/console-api/', 'server/demo/'],
  ['server/config.ts', 'server/seed.ts', 'server/banner-commands.ts'],
  ['server/app.ts'],
  ['server/cli/', 'server/main.ts'],
  ['server/testing/'],
];

/** The layer of a path and the prefix that put it there. */
function layerOf(path: string): { rank: number; prefix: string } {
  let found: { rank: number; prefix: string } | undefined;
  LAYERS.forEach((prefixes, rank) => {
    for (const prefix of prefixes) {
      if (path.startsWith(prefix) && (found === undefined || prefix.length > found.prefix.length)) found = { rank, prefix };
    }
  });
  if (!found) throw new Error(`${path} is in no layer: add it to LAYERS`);
  return found;
}

/** Relative imports (static and dynamic) of a module, as paths from the project root. */
function importsOf(path: string, source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    found.push(relative(ROOT, normalize(join(ROOT, dirname(path), match[1]!))));
  }
  return found;
}

describe('server layers', () => {
  test('no module under server/ imports from a layer above its own, or from a sibling of its layer', async () => {
    // Arrange
    const modules = (await readdir(join(ROOT, 'server'), { recursive: true }))
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
      .map((path) => join('server', path));

    // Act
    const upward: string[] = [];
    for (const path of modules.sort()) {
      const from = layerOf(path);
      for (const target of importsOf(path, await readFile(join(ROOT, path), 'utf8'))) {
        const to = layerOf(target);
        if (to.rank > from.rank || (to.rank === from.rank && to.prefix !== from.prefix)) upward.push(`${path} imports ${target}`);
      }
    }

    // Assert
    expect(modules.length).toBeGreaterThan(100);
    expect(upward).toEqual([]);
  });
});
