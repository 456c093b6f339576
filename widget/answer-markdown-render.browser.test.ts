import { expect, fixture, html } from '@open-wc/testing';
import { render } from 'lit';
import { parseAnswerMarkdown, type AnswerBlock } from './answer-markdown.ts';
import { renderAnswer, type RenderAnswerOptions } from './answer-markdown-render.ts';

/** Citations 1 and 2 are known and link to the sources list; any other index is unknown. */
const OPTIONS: RenderAnswerOptions = {
  citationHref: (index) => (index === 1 || index === 2 ? `#kb-source-${index}` : undefined),
  citationLabel: (index) => `Source ${index}: guide.md`,
};

/** Renders answer text into a fresh `<div>` in the document. */
async function renderText(answer: string, options: RenderAnswerOptions = OPTIONS): Promise<HTMLElement> {
  return fixture<HTMLElement>(html`<div>${renderAnswer(parseAnswerMarkdown(answer), options)}</div>`);
}

/** The element's markup without Lit's marker comments, for exact comparisons. */
function markup(element: Element): string {
  const copy = element.cloneNode(true) as Element;
  const walker = document.createTreeWalker(copy, NodeFilter.SHOW_COMMENT);
  const comments: Node[] = [];
  while (walker.nextNode()) comments.push(walker.currentNode);
  for (const comment of comments) comment.parentNode?.removeChild(comment);
  return copy.innerHTML;
}

/** URLs of resources the page has requested so far whose URL contains `part`. */
function requestedResources(part: string): string[] {
  return performance
    .getEntriesByType('resource')
    .map((entry) => entry.name)
    .filter((name) => name.includes(part));
}

/** Lets the browser start any load an element could trigger (images load asynchronously). */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  await new Promise((resolve) => requestAnimationFrame(resolve));
}

describe('renderAnswer', () => {
  it('code block with codeActions: the actions, then the block, inside <div class="code">; without them, the bare block', async () => {
    const element = await renderText('```\nnpm test\n```', { ...OPTIONS, codeActions: (code) => html`<button>Copy ${code}</button>` });

    expect(markup(element)).to.equal('<div class="code"><button>Copy npm test</button><pre tabindex="0"><code>npm test</code></pre></div>');
    expect(markup(await renderText('```\nnpm test\n```'))).to.equal('<pre tabindex="0"><code>npm test</code></pre>');
  });

  it('mark nodes (added to quotes by quote-marks.ts): <mark> around their children', async () => {
    const blocks: AnswerBlock[] = [{ type: 'paragraph', children: [{ type: 'mark', children: [{ type: 'text', text: 'Used ' }, { type: 'code', text: 'x' }] }] }];

    const element = await fixture<HTMLElement>(html`<div>${renderAnswer(blocks, OPTIONS)}</div>`);

    expect(markup(element)).to.equal('<p><mark>Used <code>x</code></mark></p>');
  });

  it('paragraphs with emphasis, strong and inline code: <p>, <em>, <strong>, <code>', async () => {
    const element = await renderText('Use *a* **b** `c <d>`.\n\nSecond.');

    expect(markup(element)).to.equal('<p>Use <em>a</em> <strong>b</strong> <code>c &lt;d&gt;</code>.</p><p>Second.</p>');
  });

  it('bullet list and ordered list from 3: <ul><li> and <ol start="3"><li>; a list from 1 has no start', async () => {
    const element = await renderText('- one\n- *two*\n\n3. three\n4. four\n\n* x\n\n1. first');

    expect(markup(element)).to.equal(
      '<ul><li>one</li><li><em>two</em></li></ul><ol start="3"><li>three</li><li>four</li></ol><ul><li>x</li></ul><ol><li>first</li></ol>',
    );
  });

  it('fenced code block with a language: <pre><code data-language> with the exact text, tags and markers literal', async () => {
    const element = await renderText('```html\n<b>bold</b> [1]\n  **x**\n```');

    const code = element.querySelector('pre > code');
    expect(code?.getAttribute('data-language')).to.equal('html');
    expect(code?.textContent).to.equal('<b>bold</b> [1]\n  **x**');
    expect(element.querySelector('b, a')).to.equal(null);
  });

  it('https link: <a> with the URL, rel noopener noreferrer nofollow and target _blank', async () => {
    const element = await renderText('Read [the *docs*](https://nodejs.org/api/fs.html).');

    const anchor = element.querySelector('a');
    expect(anchor?.getAttribute('href')).to.equal('https://nodejs.org/api/fs.html');
    expect(anchor?.getAttribute('rel')).to.equal('noopener noreferrer nofollow');
    expect(anchor?.getAttribute('target')).to.equal('_blank');
    expect(markup(anchor!)).to.equal('the <em>docs</em>');
  });

  it('known citation marker: <a class="citation" part="citation-marker"> with the href, label and text [n]', async () => {
    const element = await renderText('Yes [1].');

    const marker = element.querySelector('a');
    expect(marker?.className).to.equal('citation');
    expect(marker?.getAttribute('part')).to.equal('citation-marker');
    expect(marker?.getAttribute('href')).to.equal('#kb-source-1');
    expect(marker?.getAttribute('aria-label')).to.equal('Source 1: guide.md');
    expect(marker?.textContent).to.equal('[1]');
    expect(element.textContent).to.equal('Yes [1].');
  });

  it('marker of an unknown citation: plain text [n], no anchor', async () => {
    const element = await renderText('Maybe [7].');

    expect(markup(element)).to.equal('<p>Maybe [7].</p>');
  });

  it('citationHref returning a javascript: URL: the marker stays plain text', async () => {
    const element = await renderText('See [1].', { ...OPTIONS, citationHref: () => 'javascript:alert(1)' });

    expect(markup(element)).to.equal('<p>See [1].</p>');
  });

  it('hand-built link node with a non-https href: rendered as its label text only', async () => {
    const blocks: AnswerBlock[] = [
      { type: 'paragraph', children: [{ type: 'link', href: 'javascript:alert(1)', children: [{ type: 'text', text: 'label' }] }] },
    ];

    const element = await fixture<HTMLElement>(html`<div>${renderAnswer(blocks, OPTIONS)}</div>`);

    expect(markup(element)).to.equal('<p>label</p>');
  });

  it('answer re-rendered on every streamed character into the same container: ends equal to a fresh render', async () => {
    // Arrange
    const answer = 'Use **`mkdir`** [1]:\n\n```sh\nmkdir -p a/b\n```\n- [docs](https://nodejs.org/) [2]\n- *done*';
    const container = document.createElement('div');
    document.body.append(container);

    // Act
    for (let end = 1; end <= answer.length; end++) render(renderAnswer(parseAnswerMarkdown(answer.slice(0, end)), OPTIONS), container);

    // Assert
    const fresh = await renderText(answer);
    expect(markup(container)).to.equal(markup(fresh));
    container.remove();
  });

  it('rendered answer with code, list, link and markers: no accessibility violations', async () => {
    const element = await renderText('Use `mkdir` [1]:\n\n- [docs](https://nodejs.org/) [2]\n- *done*\n\n```js\nmkdir()\n```');

    await expect(element).to.be.accessible();
  });
});

describe('renderAnswer with hostile answers', () => {
  /** Answers a hostile or broken model or document could produce; each must render as inert text. */
  const HOSTILE = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<img src="/hostile-canary-1.png" onerror="alert(1)">',
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '![x](https://evil.test/pixel.png)',
    '![y](/hostile-canary-2.png)',
    '<a href="https://evil.test">x</a>',
    '[x](data:text/html,<script>alert(1)</script>)',
    '[x](https://evil.test" onclick="alert(1))',
    '[x](https://evil.test/"onmouseover="alert(1))',
    '``<img src=x onerror=alert(1)> <script>alert(1)</script>``',
    '```html\n<iframe src="https://evil.test/frame"></iframe>\n<style>*{display:none}</style>\n```',
    '<iframe src="https://evil.test/frame"></iframe><style>body{display:none}</style>',
    '<svg onload=alert(1)><use href="https://evil.test/s.svg#x"/></svg>',
    '*<b onmouseover=alert(1)>bold</b>* **<link rel=stylesheet href=https://evil.test/s.css>** [1]',
    '&lt;script&gt;alert(1)&lt;/script&gt; &#x3C;img src=x onerror=alert(1)&#x3E;',
  ];
  const ALLOWED_TAGS = new Set(['DIV', 'P', 'UL', 'OL', 'LI', 'EM', 'STRONG', 'CODE', 'PRE', 'A']);

  it('detector control: an image that does load is seen in the resource timing entries', async () => {
    // The check below can only fail if a load shows up here; prove that it does
    // (with a file the test server has, so the run logs no 404).
    await fixture(html`<div><img alt="" src="/node_modules/lit/logo.svg?hostile-canary-control" /></div>`);
    await settle();

    expect(requestedResources('hostile-canary-control')).to.have.length(1);
  });

  it('each hostile answer: only text elements, no on* attribute, https or fragment hrefs, nothing loaded, no script run', async () => {
    // Arrange
    const originalAlert = window.alert;
    let alerts = 0;
    window.alert = () => {
      alerts++;
    };
    const before = requestedResources('evil.test').length + requestedResources('/hostile-canary-').length;
    try {
      // Act
      const rendered: [string, HTMLElement][] = [];
      for (const answer of HOSTILE) rendered.push([answer, await renderText(answer)]);
      await settle();

      // Assert
      for (const [answer, element] of rendered) {
        const elements = [element, ...element.querySelectorAll('*')];
        for (const node of elements) {
          expect(ALLOWED_TAGS.has(node.tagName), `${node.tagName} in ${JSON.stringify(answer)}`).to.equal(true);
          for (const attribute of node.getAttributeNames()) {
            expect(attribute.toLowerCase().startsWith('on'), `${attribute} in ${JSON.stringify(answer)}`).to.equal(false);
          }
        }
        for (const anchor of element.querySelectorAll('a')) {
          const href = anchor.getAttribute('href') ?? '';
          expect(href.startsWith('https:') || href.startsWith('#'), `href ${href} in ${JSON.stringify(answer)}`).to.equal(true);
        }
      }
      expect(requestedResources('evil.test').length + requestedResources('/hostile-canary-').length).to.equal(before);
      expect(alerts).to.equal(0);
    } finally {
      window.alert = originalAlert;
    }
  });

  it('hostile answers: the visible text shows the literal characters', async () => {
    const expectations: [string, string][] = [
      ['<script>alert(1)</script>', '<script>alert(1)</script>'],
      ['<img src=x onerror=alert(1)>', '<img src=x onerror=alert(1)>'],
      ['[click](javascript:alert(1))', 'click'],
      ['![x](https://evil.test/pixel.png)', 'x'],
      ['<a href="https://evil.test">x</a>', '<a href="https://evil.test">x</a>'],
      ['[x](data:text/html,<script>alert(1)</script>)', 'x'],
      ['``<img src=x onerror=alert(1)>``', '<img src=x onerror=alert(1)>'],
      ['&lt;b&gt;', '&lt;b&gt;'],
    ];
    for (const [answer, visible] of expectations) {
      const element = await renderText(answer);

      expect(element.textContent, answer).to.equal(visible);
    }
  });

  it('https link to a hostile host: an anchor that opens in a new context without opener or referrer', async () => {
    const element = await renderText('[prize](https://evil.test/win)');

    const anchor = element.querySelector('a');
    expect(anchor?.getAttribute('href')).to.equal('https://evil.test/win');
    expect(anchor?.relList.contains('noopener')).to.equal(true);
    expect(anchor?.relList.contains('noreferrer')).to.equal(true);
    expect(requestedResources('evil.test')).to.deep.equal([]);
  });
});
