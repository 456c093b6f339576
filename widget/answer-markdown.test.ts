import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCitationMarkers } from '../protocol/citation-markers.ts';
import { parseAnswerMarkdown, type AnswerBlock, type AnswerInline } from './answer-markdown.ts';

/** Shorthands for expected trees. */
const text = (value: string): AnswerInline => ({ type: 'text', text: value });
const code = (value: string): AnswerInline => ({ type: 'code', text: value });
const em = (...children: AnswerInline[]): AnswerInline => ({ type: 'emphasis', children });
const strong = (...children: AnswerInline[]): AnswerInline => ({ type: 'strong', children });
const cite = (index: number): AnswerInline => ({ type: 'citation', index });
const link = (href: string, ...children: AnswerInline[]): AnswerInline => ({ type: 'link', href, children });
const paragraph = (...children: AnswerInline[]): AnswerBlock => ({ type: 'paragraph', children });

/** Inline nodes of an answer that is one paragraph. */
function inlines(answer: string): AnswerInline[] {
  const blocks = parseAnswerMarkdown(answer);
  expect(blocks).toHaveLength(1);
  const [block] = blocks;
  if (block?.type !== 'paragraph') throw new Error(`Expected one paragraph, got ${JSON.stringify(blocks)}`);
  return block.children;
}

/** Every inline node list of the blocks, in reading order. */
function inlineLists(blocks: readonly AnswerBlock[]): AnswerInline[][] {
  return blocks.flatMap((block) => {
    if (block.type === 'paragraph') return [block.children];
    if (block.type === 'list') return block.items.map((item) => item.children);
    return [];
  });
}

/** The text a reader sees, in order: text, code, citation markers, labels, code blocks (their language first). */
function visibleText(blocks: readonly AnswerBlock[]): string {
  const ofInlines = (nodes: readonly AnswerInline[]): string =>
    nodes
      .map((node) => {
        if (node.type === 'text' || node.type === 'code') return node.text;
        if (node.type === 'citation') return `[${node.index}]`;
        return ofInlines(node.children);
      })
      .join('');
  return blocks
    .map((block) => {
      if (block.type === 'paragraph') return ofInlines(block.children);
      if (block.type === 'list') return block.items.map((item) => ofInlines(item.children)).join('\n');
      return `${block.language ?? ''}\n${block.text}`;
    })
    .join('\n');
}

/** Citation indices in reading order. */
function citationIndices(blocks: readonly AnswerBlock[]): number[] {
  const ofInlines = (nodes: readonly AnswerInline[]): number[] =>
    nodes.flatMap((node) => {
      if (node.type === 'citation') return [node.index];
      if (node.type === 'emphasis' || node.type === 'strong' || node.type === 'link') return ofInlines(node.children);
      return [];
    });
  return inlineLists(blocks).flatMap(ofInlines);
}

/** Letters and digits of a string, in order. */
function lettersAndDigits(value: string): string {
  return (value.match(/[\p{L}\p{N}]/gu) ?? []).join('');
}

/** Whether `sub` is a subsequence of `sequence` (code points). */
function isSubsequence(sub: string, sequence: string): boolean {
  const characters = [...sequence];
  let position = 0;
  for (const character of sub) {
    while (position < characters.length && characters[position] !== character) position++;
    if (position === characters.length) return false;
    position++;
  }
  return true;
}

/**
 * Checks the tree's own invariants; throws with the offending node.
 * Known node types only; no empty or adjacent text nodes; citation indices
 * positive safe integers; link hrefs absolute https URLs; nothing nested in a
 * link that would render as an anchor.
 */
function checkWellFormed(blocks: readonly AnswerBlock[]): void {
  const checkInlines = (nodes: readonly AnswerInline[], insideLink: boolean): void => {
    nodes.forEach((node, position) => {
      switch (node.type) {
        case 'text':
          if (node.text === '') throw new Error('Empty text node');
          if (nodes[position - 1]?.type === 'text') throw new Error(`Adjacent text nodes at ${JSON.stringify(node)}`);
          break;
        case 'code':
          break;
        case 'citation':
          if (insideLink || !Number.isSafeInteger(node.index) || node.index < 1) throw new Error(`Bad citation ${JSON.stringify(node)}`);
          break;
        case 'link':
          if (insideLink || new URL(node.href).protocol !== 'https:') throw new Error(`Bad link ${JSON.stringify(node)}`);
          checkInlines(node.children, true);
          break;
        case 'emphasis':
        case 'strong':
          checkInlines(node.children, insideLink);
          break;
        default:
          throw new Error(`Unknown node ${JSON.stringify(node)}`);
      }
    });
  };
  for (const block of blocks) {
    if (block.type === 'code-block') {
      if (typeof block.text !== 'string') throw new Error('Code block without text');
    } else if (block.type === 'paragraph' || block.type === 'list') {
      for (const children of inlineLists([block])) checkInlines(children, false);
    } else {
      throw new Error(`Unknown block ${JSON.stringify(block)}`);
    }
  }
}

describe('parseAnswerMarkdown blocks', () => {
  it('blank text: no blocks', () => {
    expect(parseAnswerMarkdown('')).toEqual([]);
    expect(parseAnswerMarkdown(' \n\t\n')).toEqual([]);
  });

  it('lines separated by a blank line: two paragraphs; lines without one: one paragraph with a soft break', () => {
    expect(parseAnswerMarkdown('First line\n  second line\r\n\r\nNext paragraph.\n')).toEqual([
      paragraph(text('First line\nsecond line')),
      paragraph(text('Next paragraph.')),
    ]);
  });

  it('bullet lines with - and *: one bullet list each, lazy continuation joins the item, a blank line between items keeps the list', () => {
    expect(parseAnswerMarkdown('- one\n- two [2]\nstill two\n\n- three\n\n* star')).toEqual([
      {
        type: 'list',
        ordered: false,
        items: [{ children: [text('one')] }, { children: [text('two '), cite(2), text('\nstill two')] }, { children: [text('three')] }],
      },
      { type: 'list', ordered: false, items: [{ children: [text('star')] }] },
    ]);
  });

  it('ordered list starting at 3 with indented sub-items: one ordered list with start 3, sub-items flattened', () => {
    expect(parseAnswerMarkdown('3. third\n4. fourth\n   5. nested')).toEqual([
      {
        type: 'list',
        ordered: true,
        start: 3,
        items: [{ children: [text('third')] }, { children: [text('fourth')] }, { children: [text('nested')] }],
      },
    ]);
  });

  it('paragraph followed by a bullet and by "1.": the list interrupts; a number other than 1 does not', () => {
    expect(parseAnswerMarkdown('Released in\n2020. It grew.\nSteps:\n1. Install\n- Run')).toEqual([
      paragraph(text('Released in\n2020. It grew.\nSteps:')),
      { type: 'list', ordered: true, start: 1, items: [{ children: [text('Install')] }] },
      { type: 'list', ordered: false, items: [{ children: [text('Run')] }] },
    ]);
  });

  it('thematic break and a dash without space: literal paragraph text, not list items', () => {
    expect(parseAnswerMarkdown('***\n-not a list')).toEqual([paragraph(text('***\n-not a list'))]);
  });

  it('fenced code with a language: a code block holding the lines verbatim, markup and markers included', () => {
    expect(parseAnswerMarkdown('Run:\n```js\nconst a = [1];\n  **not bold** <b>\n```\nDone [1].')).toEqual([
      paragraph(text('Run:')),
      { type: 'code-block', language: 'js', text: 'const a = [1];\n  **not bold** <b>' },
      paragraph(text('Done '), cite(1), text('.')),
    ]);
  });

  it('unclosed fence while streaming: everything after it is code', () => {
    expect(parseAnswerMarkdown('Try:\n```sh\nmkdir -p a/b\nls [1]')).toEqual([
      paragraph(text('Try:')),
      { type: 'code-block', language: 'sh', text: 'mkdir -p a/b\nls [1]' },
    ]);
  });

  it('four-backtick fence containing a three-backtick line, tilde fence, indented fence: closed by its own kind', () => {
    expect(parseAnswerMarkdown('````md\n```\ninner\n```\n````\n~~~\ntilde\n~~~\n  ```\n  indented\n    more\n  ```')).toEqual([
      { type: 'code-block', language: 'md', text: '```\ninner\n```' },
      { type: 'code-block', text: 'tilde' },
      { type: 'code-block', text: 'indented\n  more' },
    ]);
  });

  it('three backticks with a backtick later on the line: not a fence but a code span', () => {
    expect(parseAnswerMarkdown('```js code```')).toEqual([paragraph(code('js code'))]);
  });
});

describe('parseAnswerMarkdown inlines', () => {
  it('emphasis and strong with * and _: em and strong nodes, nested', () => {
    expect(inlines('*a **b** c* _d_ __e__ ***f***')).toEqual([
      em(text('a '), strong(text('b')), text(' c')),
      text(' '),
      em(text('d')),
      text(' '),
      strong(text('e')),
      text(' '),
      em(strong(text('f'))),
    ]);
  });

  it('underscores inside words and spaced asterisks: literal; asterisks inside a word: emphasis', () => {
    expect(inlines('snake_case_name and 2 * 3 * 4 and un*frigging*believable')).toEqual([
      text('snake_case_name and 2 * 3 * 4 and un'),
      em(text('frigging')),
      text('believable'),
    ]);
  });

  it('unclosed strong while streaming: the asterisks stay literal text', () => {
    expect(inlines('Use **recurs')).toEqual([text('Use **recurs')]);
  });

  it('code spans of one and two backticks: code nodes, one padding space stripped, markup inside literal', () => {
    expect(inlines('`mkdir` and `` a ` b `` and `**x** [1] <b>`')).toEqual([
      code('mkdir'),
      text(' and '),
      code('a ` b'),
      text(' and '),
      code('**x** [1] <b>'),
    ]);
  });

  it('unmatched backtick run: literal backticks, the rest still parsed', () => {
    expect(inlines('a `` b `c` *d*')).toEqual([text('a `` b '), code('c'), text(' '), em(text('d'))]);
  });

  it('https link with a title and parentheses: a link node with the normalised href and its label', () => {
    expect(inlines('See [the *docs*](https://Example.com/a_(b) "Title") now')).toEqual([
      text('See '),
      link('https://example.com/a_(b)', text('the '), em(text('docs'))),
      text(' now'),
    ]);
  });

  it('links to javascript:, data:, http:, mailto: and relative destinations: only the label text remains', () => {
    expect(
      inlines('[a](javascript:alert(1)) [b](data:text/html,<script>x</script>) [c](http://x.test) [d](mailto:m@x.test) [e](/relative) [f](JAVASCRIPT:x)'),
    ).toEqual([text('a b c d e f')]);
  });

  it('destination with a quote and an attribute after a space: not a link, literal text', () => {
    expect(inlines('[x](https://evil.test" onclick="alert(1))')).toEqual([text('[x](https://evil.test" onclick="alert(1))')]);
  });

  it('destination with quotes but no space: one https link with the quotes percent-encoded', () => {
    expect(inlines('[x](https://evil.test/"onmouseover="alert(1))')).toEqual([
      link('https://evil.test/%22onmouseover=%22alert(1)', text('x')),
    ]);
  });

  it('link inside a link label: the inner link is kept, the outer brackets become text', () => {
    expect(inlines('[a [b](https://b.test)](https://a.test)')).toEqual([
      text('[a '),
      link('https://b.test/', text('b')),
      text('](https://a.test)'),
    ]);
  });

  it('citation marker inside a link label: literal text inside the link, no nested anchor', () => {
    expect(inlines('[see [1]](https://x.test)')).toEqual([link('https://x.test/', text('see [1]'))]);
  });

  it('image: only its alt text, never a link or an image', () => {
    expect(inlines('![pixel *alt*](https://evil.test/pixel.png) end')).toEqual([text('pixel alt end')]);
  });

  it('exclamation mark before a marker: a marker, not an image', () => {
    expect(inlines('It works![1]')).toEqual([text('It works!'), cite(1)]);
  });

  it('markers [1] and [12]: citation nodes, also inside emphasis and before a parenthesis', () => {
    expect(inlines('Yes [1][12]. *Sure [2]* [3](https://x.test)')).toEqual([
      text('Yes '),
      cite(1),
      cite(12),
      text('. '),
      em(text('Sure '), cite(2)),
      text(' '),
      cite(3),
      text('(https://x.test)'),
    ]);
  });

  it('escaped, in-code, zero and zero-padded bracketed numbers: literal text, never markers', () => {
    expect(inlines('\\[1] \\\\[2] `argv[3]` [0] [04] [x]')).toEqual([text('[1] \\[2] '), code('argv[3]'), text(' [0] [04] [x]')]);
  });

  it('backslash escapes of markup characters: the characters themselves', () => {
    expect(inlines('\\*not em\\* \\`not code\\` \\_x\\_ \\a')).toEqual([text('*not em* `not code` _x_ \\a')]);
  });

  it('raw HTML and entities: literal text', () => {
    expect(inlines('<script>alert(1)</script> <img src=x onerror=alert(1)> &amp; &#60;')).toEqual([
      text('<script>alert(1)</script> <img src=x onerror=alert(1)> &amp; &#60;'),
    ]);
  });

  it('every prefix of a streamed answer: parses, and the whole answer gives the expected tree', () => {
    // Arrange
    const answer = 'Use **`fs.mkdir()`** with [`recursive`](https://nodejs.org/api/fs.html) [1]:\n\n```js\nawait mkdir(p, { recursive: true });\n```\n- one *a*\n- two [2]';

    // Act
    for (let end = 0; end < answer.length; end++) checkWellFormed(parseAnswerMarkdown(answer.slice(0, end)));
    const blocks = parseAnswerMarkdown(answer);

    // Assert
    expect(blocks).toEqual([
      paragraph(
        text('Use '),
        strong(code('fs.mkdir()')),
        text(' with '),
        link('https://nodejs.org/api/fs.html', code('recursive')),
        text(' '),
        cite(1),
        text(':'),
      ),
      { type: 'code-block', language: 'js', text: 'await mkdir(p, { recursive: true });' },
      { type: 'list', ordered: false, items: [{ children: [text('one '), em(text('a'))] }, { children: [text('two '), cite(2)] }] },
    ]);
  });
});

describe('parseAnswerMarkdown properties', () => {
  /** Strings rich in markup: pieces of syntax mixed with arbitrary text. */
  const markupPiece = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.constantFrom(
      '*', '**', '_', '__', '`', '``', '```', '~~~', '[', ']', '![', '](', ')', '(', '\\', '\n', '\n\n', '- ', '* ', '1. ', '2) ',
      '[1]', '[23]', '\\[4]', 'https://x.test', 'javascript:', '<script>', '"', ' ', 'é', '😀',
    ),
  );
  const markupText = fc.array(markupPiece, { maxLength: 40 }).map((pieces) => pieces.join(''));

  it('any string: parses without throwing into a well-formed tree', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), markupText), (answer) => {
        checkWellFormed(parseAnswerMarkdown(answer));
      }),
      { numRuns: 2000 },
    );
  });

  it('any string: the letters and digits shown are a subsequence of the input\'s (nothing invented, order kept)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), markupText), (answer) => {
        expect(isSubsequence(lettersAndDigits(visibleText(parseAnswerMarkdown(answer))), lettersAndDigits(answer))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('text without link or list-number syntax and with one-word fence infos: every letter and digit is shown, in order', () => {
    // Only link destinations and titles, image URLs, ordered-list numbers and the words of a
    // fence's info string after the first are ever dropped; this alphabet cannot write them.
    const character = fc.constantFrom(...'abZé12 \n\t*_`[]!\\<>-+#&');
    const answer = fc
      .array(character, { maxLength: 60 })
      .map((characters) => characters.join(''))
      .filter((value) => !/^[ \t]*`{3,}[ \t]*\S+[ \t]+\S/m.test(value));
    fc.assert(
      fc.property(answer, (value) => {
        expect(lettersAndDigits(visibleText(parseAnswerMarkdown(value)))).toBe(lettersAndDigits(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('one-line text with single backticks: the same markers, in order, as the server\'s findCitationMarkers', () => {
    // The server's rule (protocol/citation-markers.ts) is a regular expression; CommonMark
    // parsing agrees with it wherever backtick runs are single and unescaped.
    const character = fc.constantFrom(...'a 12[]`\\*_!');
    const answer = fc
      .array(character, { maxLength: 40 })
      .map((characters) => characters.join(''))
      .filter((value) => !value.includes('``') && !value.includes('\\`'));
    fc.assert(
      fc.property(answer, (value) => {
        expect(citationIndices(parseAnswerMarkdown(value))).toEqual(findCitationMarkers(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('long runs of unmatched delimiters, brackets and backticks (100+ KB): each parses in under a second', () => {
    // Arrange: closers that find no opener must not each rescan everything before them.
    const answers = ['_a '.repeat(20_000) + 'b* '.repeat(20_000), '*a _b [c `d '.repeat(4_000) + ']'.repeat(4_000), '`a '.repeat(40_000)];

    for (const answer of answers) {
      // Act
      const started = performance.now();
      parseAnswerMarkdown(answer);
      const elapsed = performance.now() - started;

      // Assert
      expect(elapsed).toBeLessThan(1000);
    }
  });
});
