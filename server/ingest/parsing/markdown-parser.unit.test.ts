import { describe, expect, test } from 'vitest';
import { FrontMatterError } from './front-matter.ts';
import { parseMarkdown } from './markdown-parser.ts';

describe('parseMarkdown', () => {
  test('headings of several levels: each section carries the path from the title down', () => {
    const source = [
      '# Guide',
      'Intro.',
      '## Install',
      'Run it.',
      '### On Windows',
      'Use the installer.',
      '## Usage',
      'Call it.',
    ].join('\n\n');

    const document = parseMarkdown(source, 'guide.md');

    expect(document.title).toBe('Guide');
    expect(document.sections.map((section) => section.headingPath)).toEqual([
      ['Guide'],
      ['Guide', 'Install'],
      ['Guide', 'Install', 'On Windows'],
      ['Guide', 'Usage'],
    ]);
  });

  test('heading with inline code: the path keeps the code in backticks', () => {
    const source = '# File system\n\n## Callback API\n\n### `fs.mkdir(path[, options], callback)`\n\nCreates a directory.';

    const document = parseMarkdown(source, 'fs.md');

    expect(document.sections[0]?.headingPath).toEqual([
      'File system',
      'Callback API',
      '`fs.mkdir(path[, options], callback)`',
    ]);
  });

  test('document without a level-1 heading: the fallback title is the title and the path root', () => {
    const source = 'Before any heading.\n\n## Details\n\nSome details.';

    const document = parseMarkdown(source, 'notes.md');

    expect(document.title).toBe('notes.md');
    expect(document.sections).toEqual([
      { headingPath: ['notes.md'], blocks: [{ kind: 'paragraph', text: 'Before any heading.' }] },
      { headingPath: ['notes.md', 'Details'], anchor: 'details', blocks: [{ kind: 'paragraph', text: 'Some details.' }] },
    ]);
  });

  test('text before a later level-1 heading: lands in a section under that title', () => {
    const source = 'Preamble.\n\n# Real title\n\nBody.';

    const document = parseMarkdown(source, 'fallback');

    expect(document.title).toBe('Real title');
    expect(document.sections.map((section) => section.headingPath)).toEqual([['Real title'], ['Real title']]);
  });

  test('skipped heading levels and a shallower heading: deeper entries are dropped, no gaps', () => {
    const source = '# T\n\n#### Deep\n\nOne.\n\n## Shallow\n\nTwo.';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections.map((section) => section.headingPath)).toEqual([
      ['T', 'Deep'],
      ['T', 'Shallow'],
    ]);
  });

  test('heading with no content before the next heading: its section is omitted', () => {
    const source = '# T\n\n## Empty\n\n## Full\n\nText.';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections.map((section) => section.headingPath)).toEqual([['T', 'Full']]);
  });

  test('YAML and introduced_in HTML comments: dropped without a trace', () => {
    const source = [
      '# File system',
      '<!--introduced_in=v0.10.0-->',
      '## `fs.access(path)`',
      '<!-- YAML\nadded: v0.11.15\nchanges:\n  - version: v6.3.0\n    description: Some change.\n-->',
      'Tests permissions.',
    ].join('\n\n');

    const document = parseMarkdown(source, 'fs.md');

    expect(document.sections).toEqual([
      {
        headingPath: ['File system', '`fs.access(path)`'],
        anchor: 'fsaccesspath',
        blocks: [{ kind: 'paragraph', text: 'Tests permissions.' }],
      },
    ]);
  });

  test('nested bullet list: each item is its own list-item block with flattened inline text', () => {
    const source = [
      '# T',
      '',
      '* `options` {Object|integer}',
      '  * `recursive` {boolean} **Default:** `false`',
      '  * `mode` {string|integer} Not supported on Windows.',
      '* `callback` {Function}',
    ].join('\n');

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'list-item', text: '`options` {Object|integer}' },
      { kind: 'list-item', text: '`recursive` {boolean} Default: `false`' },
      { kind: 'list-item', text: '`mode` {string|integer} Not supported on Windows.' },
      { kind: 'list-item', text: '`callback` {Function}' },
    ]);
  });

  test('loose list item with a code block: item text, then the code and later paragraphs in order', () => {
    const source = '- First line\n  continues.\n\n  ```js\n  run();\n  ```\n\n  After the code.\n\n- Second';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'list-item', text: 'First line continues.' },
      { kind: 'code', text: 'run();' },
      { kind: 'paragraph', text: 'After the code.' },
      { kind: 'list-item', text: 'Second' },
    ]);
  });

  test('HTML entities in text: decoded, also where marked itself re-escapes a bare ampersand', () => {
    const source = 'AT&amp;T uses &lt;tags&gt; &copy; 2024.\n\nR & D said &#39;hi&#39;.';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'paragraph', text: 'AT&T uses <tags> © 2024.' },
      { kind: 'paragraph', text: "R & D said 'hi'." },
    ]);
  });

  test('inline code with characters HTML would escape: kept literally', () => {
    const source = "Compare `a < b && c !== 'd'` and `&amp;`.";

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks[0]?.text).toBe("Compare `a < b && c !== 'd'` and `&amp;`.");
  });

  test('fenced and indented code: text kept verbatim, indentation and blank lines inside included', () => {
    const fenced = "import { mkdir } from 'node:fs';\n\nmkdir('/tmp/a', { recursive: true }, (err) => {\n  if (err) throw err;\n});";
    const source = `# T\n\n\`\`\`mjs\n${fenced}\n\`\`\`\n\n    indented <code> & stays\n`;

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'code', text: fenced },
      { kind: 'code', text: 'indented <code> & stays' },
    ]);
  });

  test('GFM table: header row then rows, cells joined by " | ", inline code kept', () => {
    const source = '| Constant | Octal |\n| --- | --- |\n| `S_IRUSR` | `0o400` |\n| `S_IWUSR` | `0o200` |';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'table', text: 'Constant | Octal\n`S_IRUSR` | `0o400`\n`S_IWUSR` | `0o200`' },
    ]);
  });

  test('inline and reference links: keep their text, definitions are dropped', () => {
    const source = [
      'See [the guide](https://example.test/guide) and [`fs.mkdir()`][].',
      '',
      '[`fs.mkdir()`]: #fsmkdirpath-options-callback',
    ].join('\n');

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([{ kind: 'paragraph', text: 'See the guide and `fs.mkdir()`.' }]);
  });

  test('images: dropped, alt text included', () => {
    const source = 'Before ![a diagram of the flow](flow.png) after.\n\n![only an image](x.png)';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([{ kind: 'paragraph', text: 'Before after.' }]);
  });

  test('emphasis, strike-through, hard breaks and inline HTML: content kept, markup gone', () => {
    const source = 'A **bold** _word_ ~~gone~~  \nnext <kbd>Ctrl</kbd>+<kbd>C</kbd> line<br>end.';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks[0]?.text).toBe('A bold word gone next Ctrl+C line end.');
  });

  test('stability blockquote: its paragraphs become paragraphs of the section', () => {
    const source = '# Buffer\n\n> Stability: 2 - Stable\n>\n> Second quoted paragraph.\n\nBody.';

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'paragraph', text: 'Stability: 2 - Stable' },
      { kind: 'paragraph', text: 'Second quoted paragraph.' },
      { kind: 'paragraph', text: 'Body.' },
    ]);
  });

  test('raw HTML table block: kept as a table block, not dropped with the comments', () => {
    const source = [
      '### File access constants',
      '',
      '<table>',
      '  <tr><th>Constant</th><th>Description</th></tr>',
      '  <tr><td><code>F_OK</code></td><td>Flag indicating that the file is visible.</td></tr>',
      '</table>',
    ].join('\n');

    const document = parseMarkdown(source, 'fallback');

    expect(document.sections).toEqual([
      {
        headingPath: ['fallback', 'File access constants'],
        anchor: 'file-access-constants',
        blocks: [{ kind: 'table', text: 'Constant | Description\n`F_OK` | Flag indicating that the file is visible.' }],
      },
    ]);
  });

  test('empty source: a document with the fallback title and no sections', () => {
    const document = parseMarkdown('', 'empty.md');

    expect(document).toEqual({ title: 'empty.md', frontMatter: { aliases: [], draft: false }, sections: [] });
  });

  test('YAML front matter: its title wins over the first heading, description kept, never body text', () => {
    const source = '---\ntitle: Volumes\ncontent_type: concept\nweight: 10\ndescription: Ways to give _Pods_ storage.\n---\n\n# Kubernetes volumes\n\nKubernetes volumes hold data.';

    const document = parseMarkdown(source, 'volumes.md');

    expect(document.title).toBe('Volumes');
    expect(document.description).toBe('Ways to give Pods storage.');
    expect(JSON.stringify(document.sections)).not.toMatch(/content_type|weight|---/);
    expect(document.sections[0]?.blocks).toEqual([{ kind: 'paragraph', text: 'Kubernetes volumes hold data.' }]);
  });

  test('TOML front matter with only linkTitle: linkTitle is the title', () => {
    const document = parseMarkdown('+++\nlinkTitle = "Storage"\n+++\nText.', '_index.md');

    expect(document.title).toBe('Storage');
    expect(document.sections).toEqual([{ headingPath: ['Storage'], blocks: [{ kind: 'paragraph', text: 'Text.' }] }]);
  });

  test('front matter without a title: the first level-1 heading, without its custom id', () => {
    const document = parseMarkdown('---\nweight: 3\n---\n# Getting started {#start}\n\nHello.', 'getting-started.md');

    expect(document.title).toBe('Getting started');
    expect(document.sections[0]).toMatchObject({ headingPath: ['Getting started'], anchor: 'start' });
  });

  test('front matter that does not parse: FrontMatterError, not a page of metadata', () => {
    expect(() => parseMarkdown('---\ntitle: [unclosed\n---\nBody.', 'bad.md')).toThrow(FrontMatterError);
  });

  test('shortcodes and admonitions in the body: their text only; code blocks verbatim', () => {
    const source = [
      '## Mount a volume',
      '',
      '{{< note >}}',
      'A {{< glossary_tooltip text="Pod" term_id="pod" >}} mounts it.',
      '{{< /note >}}',
      '',
      '```shell',
      'kubectl version # v{{< skew currentVersion >}}',
      '```',
    ].join('\n');

    const document = parseMarkdown(source, 'volumes.md');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'paragraph', text: 'A Pod mounts it.' },
      { kind: 'code', text: 'kubectl version # v{{< skew currentVersion >}}' },
    ]);
  });

  test('repeated headings: GitHub anchors get -1, -2; custom ids and headings inside lists are counted', () => {
    const source = ['## Example', 'a', '- ## Example', '## Example', 'b', '## Other {#example-3}', 'c', '## Example', 'd'].join('\n\n');

    const document = parseMarkdown(source, 'page.md');

    expect(document.sections.map((section) => section.anchor)).toEqual(['example', 'example-2', 'example-3', 'example-4']);
  });

  test('anchor style node: repeated headings get _1 as on nodejs.org', () => {
    const source = ['# Net', "## Event: `'close'`", 'a', "## Event: `'close'`", 'b', '## `net.connect(options[, connectListener])`', 'c'].join('\n\n');

    const document = parseMarkdown(source, 'net.md', { anchorStyle: 'node' });

    expect(document.sections.map((section) => section.anchor)).toEqual(['event-close', 'event-close_1', 'netconnectoptions-connectlistener']);
  });
});
