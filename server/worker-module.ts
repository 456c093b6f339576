import { buildSync } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The module a worker thread loads for a TypeScript entry (ingest/pipeline/prepare-pool.ts).
 *
 * A worker started with `--import tsx` transpiles each of the ~40 project
 * modules it imports through loader hooks, on every worker's start: about
 * 0.65 s of CPU per worker on this project's 2-core machine, paid again by
 * every ingest (the Kubernetes docs' ingest: 8.4 s, 7.0 s with the bundle).
 * So the entry and the project modules it imports are bundled with esbuild
 * (the transpiler tsx itself runs) into one plain JavaScript module, which a
 * worker loads without hooks; packages stay imports, resolved from the
 * project's `node_modules` as before.
 *
 * The bundle is written to `node_modules/.cache/kb-widget/`, the folder
 * build tools keep their caches in, named by the hash of its content: a
 * changed source makes a new file, so a worker never runs stale code, and
 * processes bundling at once write the same bytes under the same name. When
 * the bundle cannot be built or written (a read-only install), workers load
 * the TypeScript entry through tsx, as before: slower to start, same results.
 */

/** How to start a worker for an entry: the module to load and the options its thread needs. */
export interface WorkerModule {
  url: URL;
  /** `execArgv` for the worker: tsx's loader when the module is TypeScript. */
  execArgv: string[];
}

/** Bundles built in this process, by entry URL. */
const built = new Map<string, WorkerModule>();

/**
 * @param entry the worker's entry module: a `.ts` file is bundled; a `.js` file (a compiled install) is used as it is
 * @returns the module a worker should load, bundled once per process and entry
 */
export function workerModule(entry: URL): WorkerModule {
  if (!entry.pathname.endsWith('.ts')) return { url: entry, execArgv: [] };
  let module = built.get(entry.href);
  if (module === undefined) {
    module = bundle(entry) ?? { url: entry, execArgv: ['--import', 'tsx'] };
    built.set(entry.href, module);
  }
  return module;
}

/** @returns the bundle's URL, or undefined when it could not be built or written */
function bundle(entry: URL): WorkerModule | undefined {
  const entryPath = fileURLToPath(entry);
  const nodeModules = nearestNodeModules(dirname(entryPath));
  if (nodeModules === undefined) return undefined;
  try {
    const result = buildSync({
      entryPoints: [entryPath],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node}`,
      packages: 'external',
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.contents;
    const name = entryPath.replace(/^.*[\\/]/, '').replace(/\.ts$/, '');
    const folder = join(nodeModules, '.cache', 'kb-widget');
    const path = join(folder, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
    if (!existsSync(path)) {
      mkdirSync(folder, { recursive: true });
      // Written under a name of its own, then renamed: another process never loads a half-written file.
      const partial = `${path}.${process.pid}.partial`;
      writeFileSync(partial, code);
      renameSync(partial, path);
    }
    return { url: pathToFileURL(path), execArgv: [] };
  } catch {
    return undefined;
  }
}

/** @returns the `node_modules` folder the entry's packages resolve from: the nearest one in it or above it */
function nearestNodeModules(folder: string): string | undefined {
  for (let current = folder; ; current = dirname(current)) {
    const candidate = join(current, 'node_modules');
    if (existsSync(candidate)) return candidate;
    if (dirname(current) === current) return undefined;
  }
}
