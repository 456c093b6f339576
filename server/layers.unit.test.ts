import { readdir } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isCallExpression,
  isExportDeclaration,
  isImportDeclaration,
  isImportTypeNode,
  isLiteralTypeNode,
  isStringLiteral,
  SyntaxKind,
  type Node,
  type SourceFile,
} from 'typescript/unstable/ast';
import { API, type Snapshot } from 'typescript/unstable/sync';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * The layers read top-down (docs/architecture.md "The server's layers" and
 * "The runtimes' boundaries"): a module imports only from its own layer or
 * from one below it, never from one above (nor, on the server, from a
 * sibling of its own layer).
 *
 * - The server: data flows api → engine → retrieval → store; the protocol's
 *   wire types are below everything. Inside the engine, its wings are layers
 *   too: passages, then ranking, then the two answerers (extractive,
 *   generation), then the engine's own files; so are the ingester's:
 *   parsing, the pipeline, the website crawler, the jobs.
 * - The browser code: protocol/, then widget/, then console/ (which renders
 *   answers with the widget's markdown). It never imports from server/, and
 *   protocol/ imports from neither side. Tests and the browser folders'
 *   `testing/` helpers may import anything, as server/testing/ does.
 *
 * Imports are read with the TypeScript compiler's own parser: static and
 * type-only imports, re-exports, dynamic `import()` and `import("…")` types
 * alike. TypeScript 7 parses in its native compiler, so the syntax trees come
 * through its API (`typescript/unstable/sync`, a compiler process over the
 * projects of tsconfig.node.json and tsconfig.browser.json), not
 * `ts.createSourceFile`; the last test checks the walk against the imports
 * the compiler itself records.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The server's layers and what each holds, from the bottom. A path belongs to the longest prefix listed. */
const SERVER_LAYERS: readonly (readonly string[])[] = [
  ['protocol/', 'server/logger.ts', 'server/progress-bar.ts', 'server/worker-module.ts'],
  ['server/errors.ts'],
  ['server/text/'],
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

/** The browser code's layers, from the bottom; anything else (server/ above all) is out of its reach. */
const BROWSER_LAYERS: readonly (readonly string[])[] = [['protocol/'], ['widget/'], ['console/']];

/** The layer of a path and the prefix that put it there; undefined when no prefix holds it. */
function layerOf(layers: readonly (readonly string[])[], path: string): { rank: number; prefix: string } | undefined {
  let found: { rank: number; prefix: string } | undefined;
  layers.forEach((prefixes, rank) => {
    for (const prefix of prefixes) {
      if (path.startsWith(prefix) && (found === undefined || prefix.length > found.prefix.length)) found = { rank, prefix };
    }
  });
  return found;
}

/** How a module names another. */
type ImportKind = 'import' | 'import type' | 'export from' | 'export type from' | 'import()' | 'import() type';

/** A module specifier as written, and the syntax that wrote it. */
interface ModuleImport {
  specifier: string;
  kind: ImportKind;
}

/**
 * Every module a source file names: import and export declarations (type-only
 * ones too), `import()` calls and `import("…")` type nodes, found by walking
 * the whole syntax tree. A dynamic import of a computed name has no
 * specifier to check; it is reported as `<computed>`.
 */
function importsOf(file: SourceFile): ModuleImport[] {
  const found: ModuleImport[] = [];
  const visit = (node: Node): void => {
    if (isImportDeclaration(node) && isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.importClause?.phaseModifier === SyntaxKind.TypeKeyword;
      found.push({ specifier: node.moduleSpecifier.text, kind: typeOnly ? 'import type' : 'import' });
    } else if (isExportDeclaration(node) && node.moduleSpecifier !== undefined && isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: node.isTypeOnly ? 'export type from' : 'export from' });
    } else if (isCallExpression(node) && node.expression.kind === SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      found.push({ specifier: argument !== undefined && isStringLiteral(argument) ? argument.text : '<computed>', kind: 'import()' });
    } else if (isImportTypeNode(node) && isLiteralTypeNode(node.argument) && isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, kind: 'import() type' });
    }
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return found;
}

/** The project-relative path a relative specifier of `path` names; undefined for a package or built-in. */
function targetOf(path: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  return relative(ROOT, normalize(join(ROOT, dirname(path), specifier)));
}

/** The `.ts` modules under `folder` (project-relative paths), tests left out, and `testing/` helpers too unless kept. */
async function modulesUnder(folder: string, options: { testing: boolean }): Promise<string[]> {
  return (await readdir(join(ROOT, folder), { recursive: true }))
    .map((path) => join(folder, path))
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && (options.testing || !path.split('/').includes('testing')))
    .sort();
}

describe('layers', () => {
  let api: API;
  let snapshot: Snapshot;

  beforeAll(() => {
    api = new API({ cwd: ROOT });
    snapshot = api.updateSnapshot({ openProjects: [join(ROOT, 'tsconfig.node.json'), join(ROOT, 'tsconfig.browser.json')] });
  });

  afterAll(() => {
    api.close();
  });

  /** The parsed source file of a project-relative path, from the TypeScript project that holds it. */
  function sourceFileOf(path: string): SourceFile {
    const absolute = join(ROOT, path);
    const file = snapshot.getDefaultProjectForFile(absolute)?.program.getSourceFile(absolute);
    if (file === undefined) throw new Error(`${path} is in neither tsconfig.node.json nor tsconfig.browser.json`);
    return file;
  }

  test('no module under server/ imports from a layer above its own, or from a sibling of its layer', async () => {
    // Arrange
    const modules = await modulesUnder('server', { testing: true });

    // Act
    const upward: string[] = [];
    for (const path of modules) {
      const from = layerOf(SERVER_LAYERS, path);
      if (from === undefined) throw new Error(`${path} is in no layer: add it to SERVER_LAYERS`);
      for (const { specifier, kind } of importsOf(sourceFileOf(path))) {
        const target = targetOf(path, specifier);
        if (target === undefined) continue;
        const to = layerOf(SERVER_LAYERS, target);
        if (to === undefined) throw new Error(`${target} (imported by ${path}) is in no layer: add it to SERVER_LAYERS`);
        if (to.rank > from.rank || (to.rank === from.rank && to.prefix !== from.prefix)) upward.push(`${path} imports ${target} (${kind})`);
      }
    }

    // Assert
    expect(modules.length).toBeGreaterThan(100);
    expect(upward).toEqual([]);
  });

  test('no module of protocol/, widget/ or console/ imports from server/, or from a browser layer above its own', async () => {
    // Arrange
    const modules = [
      ...(await modulesUnder('protocol', { testing: false })),
      ...(await modulesUnder('widget', { testing: false })),
      ...(await modulesUnder('console', { testing: false })),
    ];

    // Act
    const outward: string[] = [];
    for (const path of modules) {
      const from = layerOf(BROWSER_LAYERS, path)!;
      for (const { specifier, kind } of importsOf(sourceFileOf(path))) {
        const target = specifier === '<computed>' ? specifier : targetOf(path, specifier);
        if (target === undefined) continue;
        const to = layerOf(BROWSER_LAYERS, target);
        if (to === undefined || to.rank > from.rank) outward.push(`${path} imports ${target} (${kind})`);
      }
    }

    // Assert
    expect(modules.length).toBeGreaterThan(40);
    expect(outward).toEqual([]);
  });

  test('the import reader finds every module specifier the compiler records, in every module checked', async () => {
    // Arrange
    const modules = [
      ...(await modulesUnder('server', { testing: true })),
      ...(await modulesUnder('protocol', { testing: false })),
      ...(await modulesUnder('widget', { testing: false })),
      ...(await modulesUnder('console', { testing: false })),
    ];

    // Act
    const differing: string[] = [];
    for (const path of modules) {
      const file = sourceFileOf(path);
      const read = importsOf(file).map(({ specifier }) => specifier).sort();
      const recorded = file.imports.map((node) => (isStringLiteral(node) ? node.text : `<${SyntaxKind[node.kind]}>`)).sort();
      if (JSON.stringify(read) !== JSON.stringify(recorded)) differing.push(`${path}: read ${read.join(', ')}; recorded ${recorded.join(', ')}`);
    }

    // Assert
    expect(differing).toEqual([]);
  });
});
