import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * The built widget as customers load it (docs/widget.md "The script file"): `kb-widget.js`,
 * one self-contained classic script, at most 20 KB gzipped, with Lit in its
 * production build and no way for answer text to become HTML. Builds with
 * the project's `vite.config.ts` into a temporary folder, so it checks the
 * current sources, never a stale `dist/`.
 */

/** The size budget of the script-tag file, gzipped (zlib level 9): 20 KB. */
const BUDGET_BYTES = 20 * 1024;

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
let outDir: string;
let script: string;
let chunks: Rolldown.OutputChunk[];
let assets: Rolldown.OutputAsset[];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'kb-widget-bundle-'));
  const result = await build({
    root: projectRoot,
    configFile: join(projectRoot, 'vite.config.ts'),
    logLevel: 'silent',
    build: { outDir, emptyOutDir: true },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const files = outputs.flatMap((output) => output.output);
  chunks = files.filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
  assets = files.filter((file): file is Rolldown.OutputAsset => file.type === 'asset');
  script = await readFile(join(outDir, 'kb-widget.js'), 'utf8');
}, 120_000);

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

function chunk(fileName: string): Rolldown.OutputChunk {
  const found = chunks.find((candidate) => candidate.fileName === fileName);
  if (!found) throw new Error(`The build wrote no ${fileName}; it wrote ${chunks.map((candidate) => candidate.fileName).join(', ')}`);
  return found;
}

/** @returns a module id as a path inside node_modules (`lit-html/lit-html.js`) or the project (`widget/kb-widget.ts`) */
function moduleName(id: string): string {
  const packages = id.lastIndexOf('/node_modules/');
  return packages >= 0 ? id.slice(packages + '/node_modules/'.length) : id.replace(projectRoot, '');
}

/** @returns the names of the modules bundled into a chunk */
function moduleNames(fileName: string): string[] {
  return Object.keys(chunk(fileName).modules).map(moduleName);
}

describe('kb-widget.js, the script-tag file', () => {
  test('at most 20 KB gzipped (zlib level 9)', async ({ annotate }) => {
    const gzipped = gzipSync(script, { level: 9 }).length;
    const report = `kb-widget.js: ${script.length} bytes, ${gzipped} bytes gzipped (${(gzipped / 1024).toFixed(2)} KB of the ${BUDGET_BYTES / 1024} KB budget)`;
    await annotate(report);

    expect(gzipped, report).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  test('one self-contained classic script: no import or export, no other chunk or asset, no source map', () => {
    expect(() => new Script(script, { filename: 'kb-widget.js' })).not.toThrow();
    expect(chunks.map((file) => file.fileName).sort()).toEqual(['kb-widget.js', 'kb-widget.mjs']);
    expect(chunk('kb-widget.js').imports).toEqual([]);
    expect(chunk('kb-widget.js').dynamicImports).toEqual([]);
    expect(assets.map((file) => file.fileName)).toEqual([]);
    expect(script).not.toContain('sourceMappingURL');
  });

  test('bundles Lit in its production build and leaves no process.env for the browser', () => {
    const modules = moduleNames('kb-widget.js');

    expect(modules).toContain('lit-html/lit-html.js');
    expect(modules.filter((name) => name.includes('/development/'))).toEqual([]);
    expect(script).not.toContain('Lit is in dev mode');
    expect(script).not.toMatch(/\bprocess\.env\b/);
  });

  test('minified: much smaller than its modules, no comments', () => {
    const modules = Object.values(chunk('kb-widget.js').modules).reduce((total, rendered) => total + rendered.renderedLength, 0);

    expect(script.length).toBeLessThan(0.75 * modules);
    expect(script).not.toMatch(/^\s*\/\/ (?:node_modules|widget)\//m);
    expect(script).not.toMatch(/@(?:param|returns|summary|fires)\b/);
  });

  test('answers never become HTML: no unsafeHTML or unsafeSVG directive, no HTML sink in our code', () => {
    const modules = chunk('kb-widget.js').modules;
    const htmlSinks = /\b(?:innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|parseFromString|srcdoc)\b|\bdocument\.write/;

    expect(moduleNames('kb-widget.js').filter((name) => /unsafe-(?:html|svg|mathml)/.test(name))).toEqual([]);
    expect(script).not.toMatch(/unsafeHTML|unsafeSVG|unsafeMathML/);
    const ownModules = Object.entries(modules).filter(([id]) => !id.includes('/node_modules/'));
    expect(ownModules.length).toBeGreaterThan(0);
    for (const [id, rendered] of ownModules) {
      expect(rendered.code ?? '', `${moduleName(id)} writes HTML`).not.toMatch(htmlSinks);
    }
  });

  test("innerHTML appears once, in lit-html's template creation (a <template> filled from the literal template strings)", () => {
    const withInnerHtml = Object.entries(chunk('kb-widget.js').modules)
      .filter(([, rendered]) => rendered.code?.includes('innerHTML'))
      .map(([id]) => moduleName(id));

    expect(withInnerHtml).toEqual(['lit-html/lit-html.js']);
    expect(script.match(/innerHTML/g)).toHaveLength(1);
    expect(script).toMatch(/createElement\(`template`\);return \w+\.innerHTML=\w+,\w+/);
  });
});

describe('kb-widget.mjs, the ES module', () => {
  test('self-contained and minified: imports nothing, bundles Lit in its production build', () => {
    const module = chunk('kb-widget.mjs');
    const modules = Object.values(module.modules).reduce((total, rendered) => total + rendered.renderedLength, 0);

    expect(module.imports).toEqual([]);
    expect(module.dynamicImports).toEqual([]);
    expect(moduleNames('kb-widget.mjs')).toContain('lit-html/lit-html.js');
    expect(moduleNames('kb-widget.mjs').filter((name) => name.includes('/development/'))).toEqual([]);
    expect(module.exports).toContain('KbWidget');
    expect(module.code.length).toBeLessThan(0.75 * modules);
  });
});
