import { describe, expect, test } from 'vitest';
import { MAX_SENTENCE_CHARACTERS, splitSentences } from './sentences.ts';

/** The sentence texts only, the shape most tests compare. */
function textsOf(passage: string): string[] {
  return splitSentences(passage).map((sentence) => sentence.text);
}

describe('splitSentences', () => {
  test('three sentences ending in . ? and !: three sentences, 0-based positions in order', () => {
    const sentences = splitSentences('Streams are buffered. Why? Because writes are slow!');

    expect(sentences).toEqual([
      { text: 'Streams are buffered.', position: 0, block: 0, kind: 'prose' },
      { text: 'Why?', position: 1, block: 0, kind: 'prose' },
      { text: 'Because writes are slow!', position: 2, block: 0, kind: 'prose' },
    ]);
  });

  test('next sentence opening with inline code or a digit: split there', () => {
    const texts = textsOf('Pass an options object. `recursive` creates parents. 0 means no limit.');

    expect(texts).toEqual(['Pass an options object.', '`recursive` creates parents.', '0 means no limit.']);
  });

  test('closing quote or bracket after the full stop: kept with the sentence it closes', () => {
    const texts = textsOf('The flag is optional (see below.) Then call it.');

    expect(texts).toEqual(['The flag is optional (see below.)', 'Then call it.']);
  });

  test('full stop followed by a lower-case word: no boundary', () => {
    const texts = textsOf('The value is 1. or more in practice.');

    expect(texts).toEqual(['The value is 1. or more in practice.']);
  });

  test('abbreviations e.g. and i.e. before a capital: do not end the sentence', () => {
    const texts = textsOf('Use a stream, e.g. Readable. Pick one mode, i.e. Flowing mode. Done.');

    expect(texts).toEqual(['Use a stream, e.g. Readable.', 'Pick one mode, i.e. Flowing mode.', 'Done.']);
  });

  test('dotted API name inside backticks: does not end the sentence', () => {
    const texts = textsOf('Call `fs.mkdir()` with a path. It returns nothing.');

    expect(texts).toEqual(['Call `fs.mkdir()` with a path.', 'It returns nothing.']);
  });

  test('fenced code block between paragraphs: skipped whole, prose on both sides kept', () => {
    const passage = [
      'Create the folder like this:',
      '```js',
      "fs.mkdir('/tmp/a'). Then.",
      '',
      'More code. With sentences.',
      '```',
      'The callback gets an error.',
    ].join('\n');

    const texts = textsOf(passage);

    expect(texts).toEqual(['Create the folder like this:', 'The callback gets an error.']);
  });

  test('passage that is only a fenced code block: no sentences', () => {
    const texts = textsOf('```\nconst a = 1. B = 2.\n```');

    expect(texts).toEqual([]);
  });

  test('unclosed fence: everything after it is treated as code', () => {
    const texts = textsOf('Before the code.\n\n```\nlooks like prose. But is code.');

    expect(texts).toEqual(['Before the code.']);
  });

  test('list items as blocks: each item one sentence, without its "- "', () => {
    const passage = '- `path` The directory to create.\n\n- `mode` Its permissions.';

    const texts = textsOf(passage);

    expect(texts).toEqual(['`path` The directory to create.', '`mode` Its permissions.']);
  });

  test('paragraph wrapped over several lines: joined with single spaces', () => {
    const passage = 'A paragraph that\nwraps over   three\nlines.';

    const texts = textsOf(passage);

    expect(texts).toEqual(['A paragraph that wraps over three lines.']);
  });

  test('blank lines between paragraphs: each paragraph ends its sentence even without punctuation', () => {
    const texts = textsOf('A heading-like line\n\nA paragraph follows');

    expect(texts).toEqual(['A heading-like line', 'A paragraph follows']);
  });

  test('one-character fragments: dropped', () => {
    const texts = textsOf('x\n\nReal sentence.');

    expect(texts).toEqual(['Real sentence.']);
  });

  test('sentence exactly MAX_SENTENCE_CHARACTERS long: kept whole', () => {
    const sentence = `${'word '.repeat(79)}ends.`;
    expect(sentence).toHaveLength(MAX_SENTENCE_CHARACTERS);

    const texts = textsOf(sentence);

    expect(texts).toEqual([sentence]);
  });

  test('longer sentence: cut at the last word boundary before the limit, ellipsis appended', () => {
    const sentence = `${'words '.repeat(100)}end.`;

    const [clipped] = textsOf(sentence);

    // Spaces sit at 6k + 5; the last one at or before index 399 is 395, so 66 whole words remain.
    expect(clipped).toBe(`${'words '.repeat(66).trimEnd()}\u2026`);
    expect(clipped).toHaveLength(396);
  });

  test('longer sentence without any space: cut hard, ellipsis appended, within the limit', () => {
    const sentence = 'a'.repeat(MAX_SENTENCE_CHARACTERS + 50);

    const [clipped] = textsOf(sentence);

    expect(clipped).toBe(`${'a'.repeat(MAX_SENTENCE_CHARACTERS - 1)}\u2026`);
    expect(clipped).toHaveLength(MAX_SENTENCE_CHARACTERS);
  });

  test('positions: count across blocks of one passage', () => {
    const sentences = splitSentences('First one. Second one.\n\n- Third one.');

    expect(sentences.map((sentence) => sentence.position)).toEqual([0, 1, 2]);
    expect(sentences[2]?.text).toBe('Third one.');
  });
});

describe('splitSentences: kinds of sentence', () => {
  test('paragraph, list item, option items and a status line: each with its kind and block', () => {
    const sentences = splitSentences(
      [
        'Stability: 1 - Experimental',
        '- `path` {string} The folder. It must exist.',
        '- hint: {string} A hint.',
        '- {number|bigint}',
        '- Returns: {Promise}',
        '- Works on every platform.',
        'Creates a folder.',
      ].join('\n\n'),
    );

    expect(sentences.map(({ text, kind, block, option }) => ({ text, kind, block, option }))).toEqual([
      { text: 'Stability: 1 - Experimental', kind: 'status', block: 0, option: undefined },
      { text: '`path` {string} The folder.', kind: 'option', block: 1, option: 'path' },
      { text: 'It must exist.', kind: 'option', block: 1, option: 'path' },
      { text: 'hint: {string} A hint.', kind: 'option', block: 2, option: 'hint' },
      { text: '{number|bigint}', kind: 'option', block: 3, option: undefined },
      { text: 'Returns: {Promise}', kind: 'option', block: 4, option: undefined },
      { text: 'Works on every platform.', kind: 'list-item', block: 5, option: undefined },
      { text: 'Creates a folder.', kind: 'prose', block: 6, option: undefined },
    ]);
  });

  test('a Kubernetes feature-state line is a status line, the paragraph after it prose', () => {
    const sentences = splitSentences('Feature state: Kubernetes v1.18 [beta]\n\nThis page explains how to add Windows worker nodes.');

    expect(sentences.map(({ text, kind }) => ({ text, kind }))).toEqual([
      { text: 'Feature state: Kubernetes v1.18 [beta]', kind: 'status' },
      { text: 'This page explains how to add Windows worker nodes.', kind: 'prose' },
    ]);
  });

  test('block index counts code blocks too', () => {
    const sentences = splitSentences('Before.\n\n```\ncode();\n```\n\nAfter.');

    expect(sentences.map((sentence) => sentence.block)).toEqual([0, 2]);
  });
});

describe('splitSentences: generator markup and front matter', () => {
  test('Hugo shortcodes, admonition fences, MDX imports and JSX tags: never returned', () => {
    const texts = textsOf(
      [
        '{{< note >}} Pods are ephemeral. {{< /note >}}',
        ':::tip Keep it short.',
        "import Tabs from '@theme/Tabs';",
        '<TabItem value="js">',
        'Pods run containers.',
      ].join('\n\n'),
    );

    expect(texts).toEqual(['Pods run containers.']);
  });

  test('front matter read as text (two or more front-matter keys): never returned; one "Note:" label is prose', () => {
    const texts = textsOf('title: Device id: device date: 2025-05-13 weight: 20\n\nNote: devices are attached to nodes.');

    expect(texts).toEqual(['Note: devices are attached to nodes.']);
  });
});
