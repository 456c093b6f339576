import { describe, expect, test } from 'vitest';
import { parseHtml } from './html-parser.ts';

describe('parseHtml', () => {
  test('page with <h1> and <title>: the first <h1> is the title', () => {
    const source = '<html><head><title>Site | Page</title></head><body><h1>Getting started</h1><p>Hi.</p></body></html>';

    const document = parseHtml(source, 'page.html');

    expect(document.title).toBe('Getting started');
    expect(document.sections[0]?.headingPath).toEqual(['Getting started']);
  });

  test('page without <h1>: the <title> text is the title and path root', () => {
    const source = '<html><head><title> Site  &amp; Page </title></head><body><p>Hi.</p></body></html>';

    const document = parseHtml(source, 'page.html');

    expect(document.title).toBe('Site & Page');
    expect(document.sections).toEqual([{ headingPath: ['Site & Page'], blocks: [{ kind: 'paragraph', text: 'Hi.' }] }]);
  });

  test('fragment without <h1> or <title>: the fallback title is the title and path root', () => {
    const document = parseHtml('<p>Hi.</p>', 'fragment.html');

    expect(document.title).toBe('fragment.html');
    expect(document.sections[0]?.headingPath).toEqual(['fragment.html']);
  });

  test('site <header> holding an <h1>: skipped, the article <h1> is the title', () => {
    const source = '<header><h1>Acme Docs</h1></header><article><h1>Install</h1><p>Run it.</p></article>';

    const document = parseHtml(source, 'fallback');

    expect(document.title).toBe('Install');
    expect(document.sections).toEqual([{ headingPath: ['Install'], blocks: [{ kind: 'paragraph', text: 'Run it.' }] }]);
  });

  test('h2 to h4 with inline code: build the heading path, deeper entries dropped by shallower headings', () => {
    const source = [
      '<h1>File system</h1>',
      '<h2>Callback API</h2>',
      '<h3><code>fs.mkdir(path[, options], callback)</code></h3><p>Creates a directory.</p>',
      '<h2>Sync API</h2><p>Blocks.</p>',
    ].join('');

    const document = parseHtml(source, 'fallback');

    expect(document.sections.map((section) => section.headingPath)).toEqual([
      ['File system', 'Callback API', '`fs.mkdir(path[, options], callback)`'],
      ['File system', 'Sync API'],
    ]);
  });

  test('script, style, nav, footer, noscript, template, svg and comments: skipped', () => {
    const source = [
      '<body><nav><a href="/">Home</a></nav>',
      '<script>var html = "<p>not text</p>";</script><style>p { color: red }</style>',
      '<noscript>Enable JavaScript</noscript><template><p>Template text</p></template>',
      '<svg><text>Chart label</text></svg><!-- hidden note -->',
      '<p>Visible.</p><footer>Copyright</footer></body>',
    ].join('');

    const document = parseHtml(source, 'fallback');

    expect(document.sections).toEqual([{ headingPath: ['fallback'], blocks: [{ kind: 'paragraph', text: 'Visible.' }] }]);
  });

  test('nested lists: each <li> is its own list-item with only its own text', () => {
    const source = '<ul><li><code>options</code> {Object}<ul><li><code>recursive</code> <strong>Default:</strong> <code>false</code></li></ul></li><li><p>Loose item</p></li></ul>';

    const document = parseHtml(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'list-item', text: '`options` {Object}' },
      { kind: 'list-item', text: '`recursive` Default: `false`' },
      { kind: 'list-item', text: 'Loose item' },
    ]);
  });

  test('entities and collapsed whitespace in prose: decoded and one space each', () => {
    const source = '<p>AT&amp;T\n   uses &lt;tags&gt;&nbsp;&copy; &#39;q&#39;</p>';

    const document = parseHtml(source, 'fallback');

    expect(document.sections[0]?.blocks[0]?.text).toBe("AT&T uses <tags> © 'q'");
  });

  test('<pre> code: text verbatim with indentation, entities decoded, markup inside removed', () => {
    const source = '<pre><code>if (a &lt; b) {\n  <span class="k">return</span> a;\n}\n</code></pre>';

    const document = parseHtml(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([{ kind: 'code', text: 'if (a < b) {\n  return a;\n}' }]);
  });

  test('<table> with header and body rows: one line per row, cells joined by " | "', () => {
    const source = '<table><thead><tr><th>Constant</th><th>Octal</th></tr></thead><tbody><tr><td><code>S_IRUSR</code></td><td>0o400</td></tr></tbody></table>';

    const document = parseHtml(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([{ kind: 'table', text: 'Constant | Octal\n`S_IRUSR` | 0o400' }]);
  });

  test('links and images in prose: links keep their text, images vanish with their alt text', () => {
    const source = '<p>See <a href="/guide">the guide</a> <img src="x.png" alt="a diagram">now.</p>';

    const document = parseHtml(source, 'fallback');

    expect(document.sections[0]?.blocks[0]?.text).toBe('See the guide now.');
  });

  test('<blockquote> with a paragraph and bare text: both become paragraphs', () => {
    const source = '<blockquote><p>Stability: 2 - Stable</p>Bare quoted text.</blockquote>';

    const document = parseHtml(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'paragraph', text: 'Stability: 2 - Stable' },
      { kind: 'paragraph', text: 'Bare quoted text.' },
    ]);
  });

  test('bare text and inline elements inside <div> and <main>: paragraphs split around nested blocks', () => {
    const source = '<main>Lead <em>text</em> with <code>x</code>.<br>Same paragraph.<div>Inner.</div>Tail.</main>';

    const document = parseHtml(source, 'fallback');

    expect(document.sections[0]?.blocks).toEqual([
      { kind: 'paragraph', text: 'Lead text with `x`. Same paragraph.' },
      { kind: 'paragraph', text: 'Inner.' },
      { kind: 'paragraph', text: 'Tail.' },
    ]);
  });

  test('meta description and heading ids: description kept, each section with its heading id or inner anchor', () => {
    const source = [
      '<head><meta name="Description" content=" Reading  files. "></head>',
      '<h1>File system</h1><p>Intro.</p>',
      '<h2 id="fsstatpath-options-callback"><code>fs.stat()</code></h2><p>Stats.</p>',
      '<h3><a name="legacy-anchor"></a>Old</h3><p>Old text.</p>',
    ].join('');

    const document = parseHtml(source, 'fs.html');

    expect(document.description).toBe('Reading files.');
    expect(document.sections.map((section) => section.anchor)).toEqual([undefined, 'fsstatpath-options-callback', 'legacy-anchor']);
  });
});
