import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { findNewerFile, modifiedTime } from './widget-build.ts';

/**
 * The console bundle as `npm start` needs it, beside the widget's
 * (widget-build.ts): is `dist/console/console.js` missing or older than its
 * sources, and if so, build it (vite.console.config.ts, as `npm run build`).
 */

/** The file the build writes, relative to the project root. */
export const CONSOLE_BUILD_FILE = 'dist/console/console.js';

/**
 * What the bundle is made of, relative to the project root: the console's
 * elements, the protocol modules they share with the server (wire types,
 * workspace terms, the origin parser), the build
 * configuration and the installed dependency versions. Test files are not
 * part of it.
 */
export const CONSOLE_BUILD_INPUTS = ['console', 'protocol', 'vite.console.config.ts', 'package-lock.json'] as const;

/**
 * @param root project root
 * @returns why the console bundle must be (re)made, as a sentence, or
 *   undefined when it is up to date
 */
export async function findStaleConsoleBuild(root: string): Promise<string | undefined> {
  const builtAt = await modifiedTime(join(root, CONSOLE_BUILD_FILE));
  if (builtAt === undefined) return `${CONSOLE_BUILD_FILE} is missing`;
  for (const input of CONSOLE_BUILD_INPUTS) {
    const newer = await findNewerFile(join(root, input), builtAt);
    if (newer !== undefined) return `${relative(root, newer)} is newer than ${CONSOLE_BUILD_FILE}`;
  }
  return undefined;
}

/**
 * Builds the console into `root/dist/console`, through a temporary folder so
 * a server reading the bundle never sees half a file.
 *
 * @throws Error from Vite when the console does not compile
 */
export async function buildConsole(root: string): Promise<void> {
  const { build } = await import('vite');
  const outDir = join(root, 'dist', 'console');
  await mkdir(outDir, { recursive: true });
  const staging = await mkdtemp(join(root, 'dist', '.building-console-'));
  try {
    await build({
      root,
      configFile: join(root, 'vite.console.config.ts'),
      logLevel: 'warn',
      build: { outDir: staging, emptyOutDir: true },
    });
    await rename(join(staging, 'console.js'), join(outDir, 'console.js'));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
