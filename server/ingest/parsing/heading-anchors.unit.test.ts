import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { HeadingAnchors, withoutCustomId } from './heading-anchors.ts';
import { parseMarkdown } from './markdown-parser.ts';
import { DEMO_CORPUS_PATH } from '../../seed.ts';

describe('HeadingAnchors', () => {
  test('github style: GitHub slugs, repeats -1, -2', () => {
    const anchors = new HeadingAnchors('github');

    const ids = ['Before you begin', "What's next", 'Node.js & npm', 'Before you begin', 'Before you begin'].map((text) => anchors.anchor(text).anchor);

    expect(ids).toEqual(['before-you-begin', 'whats-next', 'nodejs--npm', 'before-you-begin-1', 'before-you-begin-2']);
  });

  test('node style: the ids nodejs.org gives, repeats _1, _2', () => {
    const anchors = new HeadingAnchors('node');

    const ids = ['`fs.stat(path[, options], callback)`', "Event: `'close'`", 'Class: `fs.Dirent`', "Event: `'close'`", "Event: `'close'`"].map(
      (text) => anchors.anchor(text).anchor,
    );

    expect(ids).toEqual(['fsstatpath-options-callback', 'event-close', 'class-fsdirent', 'event-close_1', 'event-close_2']);
  });

  test('a custom id: used as written, the heading text without it, and taken for later repeats', () => {
    const anchors = new HeadingAnchors('github');

    expect(anchors.anchor('Install {#setup}')).toEqual({ text: 'Install', anchor: 'setup' });
    expect(anchors.anchor('Options {: #opts .wide }')).toEqual({ text: 'Options', anchor: 'opts' });
    expect(anchors.anchor('Setup').anchor).toBe('setup-1');
    expect(withoutCustomId('Title {#t}')).toBe('Title');
  });

  test('a heading with no character a slug keeps: no anchor', () => {
    expect(new HeadingAnchors().anchor('!!!')).toEqual({ text: '!!!' });
  });

  test('node style over the bundled Node.js v18 docs: every link between their pages names an anchor the parser gives', async () => {
    // Arrange: each heading given a line of text, so every heading starts a section and carries its anchor
    const names = (await readdir(DEMO_CORPUS_PATH)).filter((name) => name.endsWith('.md'));
    const sources = new Map<string, string>();
    const anchors = new Map<string, Set<string>>();
    for (const name of names) {
      const source = await readFile(join(DEMO_CORPUS_PATH, name), 'utf8');
      sources.set(name, source);
      const everyHeadingWithText = source.replace(/^(#{1,6} .*)$/gm, '$1\n\nText.\n');
      const sections = parseMarkdown(everyHeadingWithText, name, { anchorStyle: 'node' }).sections;
      anchors.set(name, new Set(sections.flatMap((section) => (section.anchor === undefined ? [] : [section.anchor]))));
    }

    // Act: the link reference definitions of the docs, `[text]: #anchor` or `[text]: page.md#anchor`
    const links = [...sources].flatMap(([name, source]) =>
      [...source.matchAll(/^\[[^\]]+\]: ([\w-]+\.md)?#(\S+)$/gm)].map((match) => ({ page: match[1] ?? name, anchor: match[2]! })),
    );
    const unresolved = links.filter((link) => !anchors.get(link.page)?.has(link.anchor));

    // Assert
    expect(links.length).toBeGreaterThan(1_400);
    expect(unresolved).toEqual([]);
    expect(anchors.get('fs.md')).toContain('fsstatpath-options-callback');
    expect(anchors.get('process.md')).toContain('processexitcode_1');
  });
});
