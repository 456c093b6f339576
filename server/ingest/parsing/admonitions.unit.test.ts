import { describe, expect, test } from 'vitest';
import { removeAdmonitions } from './admonitions.ts';

/** Non-blank lines, trimmed: what markdown will read as text. */
function textLines(text: string): string[] {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
}

describe('removeAdmonitions', () => {
  test('Docusaurus note without title: fences removed, content untouched', () => {
    const result = removeAdmonitions('Intro.\n\n:::note\n\nRun `npm ci` first.\n\n:::\n\nOutro.');

    expect(result).toBe('Intro.\n\n\n\nRun `npm ci` first.\n\n\n\nOutro.');
  });

  test('Docusaurus titles in each form: kept as a paragraph; nested blocks with more colons', () => {
    const source = [
      ':::tip Use the cache',
      'Faster builds.',
      ':::',
      '::::warning[Data loss]',
      ':::info{title="Details"}',
      'Inner.',
      ':::',
      '::::',
      '::: danger',
      'Careful.',
      ':::',
    ].join('\n');

    expect(textLines(removeAdmonitions(source))).toEqual(['Use the cache', 'Faster builds.', 'Data loss', 'Details', 'Inner.', 'Careful.']);
  });

  test('MkDocs admonition with a title: title paragraph, body dedented four spaces, text after it untouched', () => {
    const source = '!!! note "Before you upgrade"\n    Back up the database.\n\n        indented code stays indented\n\nNot part of it.';

    expect(removeAdmonitions(source)).toBe('\nBefore you upgrade\n\nBack up the database.\n\n    indented code stays indented\n\nNot part of it.');
  });

  test('MkDocs collapsible, untitled and nested blocks inside a list item: each level dedented once', () => {
    const source = ['- Step', '', '    ??? warning', '        Outer.', '', '        !!! tip "Shortcut"', '            Inner.'].join('\n');

    expect(removeAdmonitions(source)).toBe(['- Step', '', '', '    Outer.', '', '', '    Shortcut', '', '    Inner.'].join('\n'));
  });

  test('pymdownx content tabs: the tab name kept before its dedented content', () => {
    const source = '=== "macOS"\n    brew install kb\n\n=== "Linux"\n    apt install kb';

    expect(textLines(removeAdmonitions(source))).toEqual(['macOS', 'brew install kb', 'Linux', 'apt install kb']);
  });

  test('a setext heading underline and prose with colons: not admonitions', () => {
    const source = 'Title\n===\n\nRatio 3:::4 and !!! wow.';

    expect(removeAdmonitions(source)).toBe(source);
  });
});
