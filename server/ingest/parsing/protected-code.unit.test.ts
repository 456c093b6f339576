import { describe, expect, test } from 'vitest';
import { PlaceholderVault, protectFencedCode, protectInlineCode } from './protected-code.ts';

describe('protected code', () => {
  test('fenced blocks: each non-blank line set aside after its indentation, restored byte for byte', () => {
    const vault = new PlaceholderVault();
    const source = 'Text {{< note >}}\n\n  ```yaml\n  a: {{< param "x" >}}\n\n  ```\nAfter.\n~~~~\n:::note\n~~~~';

    const protectedText = protectFencedCode(source, vault);

    expect(protectedText).not.toContain('param');
    expect(protectedText).not.toContain(':::note');
    expect(protectedText.split('\n').map((line) => /^\s*/.exec(line)![0].length)).toEqual([0, 0, 2, 2, 0, 2, 0, 0, 0, 0]);
    expect(protectedText.split('\n')[4]).toBe('');
    expect(vault.restore(protectedText)).toBe(source);
  });

  test('an unclosed fence: code to the end of the text', () => {
    const vault = new PlaceholderVault();

    expect(protectFencedCode('```\n<!-- x -->', vault)).not.toContain('<!--');
  });

  test('a backtick line with a backtick in its info string: not a fence', () => {
    expect(protectFencedCode('``` a`b\n<!-- x -->', new PlaceholderVault())).toContain('<!--');
  });

  test('inline code spans: set aside; unmatched and escaped backticks and spans across paragraphs stay text', () => {
    const vault = new PlaceholderVault();
    const source = 'Use `{{< note >}}` or ``a ` b``; a \\`x and `open\n\nclose` stay.';

    const protectedText = protectInlineCode(source, vault);

    expect(protectedText).not.toContain('note');
    expect(protectedText).not.toContain('a ` b');
    expect(protectedText).toContain('\\`x');
    expect(protectedText).toContain('`open');
    expect(vault.restore(protectedText)).toBe(source);
  });
});
