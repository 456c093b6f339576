import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { describe, expect, test } from 'vitest';

/**
 * The docs a newcomer reads (docs/development.md "Tests"): the README is a
 * front door of at most 200 lines with the set-up commands on its first
 * screen and a link to every page of `docs/`, and no relative link of the
 * README, `docs/`, `eval/README.md`, `bench/README.md` or the changelog
 * leads to a file or a heading that does not exist.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const README_MAX_LINES = 200;
/** Lines a reader sees without scrolling on a laptop's terminal or a rendered page's first screen. */
const FIRST_SCREEN_LINES = 40;

/** Markdown files whose links are checked, relative to the project's root. */
async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', 'CHANGELOG.md', 'eval/README.md', 'bench/README.md', ...docs.sort()];
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^]*?^\1[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Relative link targets of a markdown text (`[text](target)`), external and in-page links left out. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target) && !target.startsWith('#'));
}

/** In-page link targets (`[text](#anchor)`) of a markdown text. */
function inPageAnchors(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(#([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** The anchors a rendered markdown page offers: its headings' GitHub slugs and explicit `id`s. */
function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const outsideCode = markdown.replace(/^(```|~~~)[^]*?^\1[ \t]*$/gm, '');
  const headings = [...outsideCode.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)].map((match) => slugger.slug(match[1]!));
  const ids = [...outsideCode.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1]!);
  return new Set([...headings, ...ids]);
}

describe('the README', () => {
  test(`is at most ${README_MAX_LINES} lines, with the set-up commands (npm install && npm start) on its first screen`, async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const lines = readme.trimEnd().split('\n');
    const firstScreen = lines.slice(0, FIRST_SCREEN_LINES).join('\n');

    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
    expect(firstScreen).toContain('npm install && npm start');
  });

  test('links to every page of docs/', async () => {
    const linked = new Set(relativeLinks(await readFile(join(ROOT, 'README.md'), 'utf8')).map((target) => target.split('#')[0]));
    const pages = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);

    expect(pages.length).toBeGreaterThan(5);
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('links between the docs', () => {
  test('every relative link leads to an existing file, and every #anchor to a heading of its page', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const markdown = await readFile(join(ROOT, file), 'utf8');
      for (const anchor of inPageAnchors(markdown)) {
        if (!anchorsOf(markdown).has(anchor)) broken.push(`${file}: #${anchor}`);
      }
      for (const target of relativeLinks(markdown)) {
        const [path = '', anchor] = target.split('#');
        const resolved = join(ROOT, dirname(file), decodeURI(path));
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no ${relative(ROOT, resolved)})`);
        } else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(await readFile(resolved, 'utf8')).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor})`);
        }
      }
    }

    expect(broken).toEqual([]);
  });
});
