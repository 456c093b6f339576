import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * The widget build as `npm start` needs it: is `dist/` missing or older than
 * the sources, and if so, build it (the `build` section of `vite.config.ts`,
 * the same as `npm run build` minus the custom elements manifest).
 */

/** Files the build writes, in `dist/`. */
export const WIDGET_BUILD_FILES = ['kb-widget.js', 'kb-widget.mjs'] as const;

/**
 * What the bundle is made of, relative to the project root: the element,
 * the wire code it imports, the build configuration and the installed
 * dependency versions. Test files (`*.test.ts`) are not part of it.
 */
export const WIDGET_BUILD_INPUTS = ['widget', 'protocol', 'vite.config.ts', 'package-lock.json'] as const;

/**
 * @param root project root
 * @returns why the build in `root/dist` must be (re)made, as a sentence
 *   (`"dist/kb-widget.js is missing"`, `"widget/kb-widget.ts is newer than
 *   dist/kb-widget.js"`), or undefined when it is up to date
 */
export async function findStaleWidgetBuild(root: string): Promise<string | undefined> {
  let builtAt = Number.POSITIVE_INFINITY;
  let oldest = '';
  for (const fileName of WIDGET_BUILD_FILES) {
    const built = await modifiedTime(join(root, 'dist', fileName));
    if (built === undefined) return `dist/${fileName} is missing`;
    if (built < builtAt) [builtAt, oldest] = [built, `dist/${fileName}`];
  }
  for (const input of WIDGET_BUILD_INPUTS) {
    const newer = await findNewerFile(join(root, input), builtAt);
    if (newer !== undefined) return `${relative(root, newer)} is newer than ${oldest}`;
  }
  return undefined;
}

/**
 * Builds the widget into `root/dist`. Writes into a temporary folder first
 * and moves each file into place, so a server reading `dist/` (or a second
 * `npm start` building at the same time) never sees half a file.
 *
 * @throws Error from Vite when the widget does not compile
 */
export async function buildWidget(root: string): Promise<void> {
  const { build } = await import('vite');
  const distDir = join(root, 'dist');
  await mkdir(distDir, { recursive: true });
  const staging = await mkdtemp(join(distDir, '.building-'));
  try {
    await build({
      root,
      configFile: join(root, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: staging, emptyOutDir: true },
    });
    for (const fileName of WIDGET_BUILD_FILES) await rename(join(staging, fileName), join(distDir, fileName));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

export async function modifiedTime(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** @returns the first file at or under `path` modified after `time` (test files skipped), if any; also used by console-build.ts */
export async function findNewerFile(path: string, time: number): Promise<string | undefined> {
  let stats;
  try {
    stats = await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (stats.isFile()) return stats.mtimeMs > time && !path.endsWith('.test.ts') ? path : undefined;
  if (!stats.isDirectory()) return undefined;
  for (const entry of await readdir(path)) {
    const newer = await findNewerFile(join(path, entry), time);
    if (newer !== undefined) return newer;
  }
  return undefined;
}
