import { describe, expect, test } from 'vitest';
import { removeMdxSyntax } from './mdx-syntax.ts';

describe('removeMdxSyntax', () => {
  test('import and export statements, one-line and multi-line: removed up to the blank line', () => {
    const source = [
      "import Tabs from '@theme/Tabs';",
      'import {',
      '  TabItem,',
      "} from '@theme/TabItem';",
      '',
      'export const meta = {',
      '  tags: ["a"],',
      '};',
      '',
      'Import the module before use; export KUBECONFIG first.',
    ].join('\n');

    expect(removeMdxSyntax(source).trim()).toBe('Import the module before use; export KUBECONFIG first.');
  });

  test('component tags: removed with content kept; tab labels become paragraphs', () => {
    const source = [
      '<Tabs groupId="os">',
      '  <TabItem value="mac" label="macOS" default>',
      '',
      'Use Homebrew.',
      '',
      '  </TabItem>',
      '  <TabItem value="linux">',
      '',
      'Use apt.',
      '',
      '  </TabItem>',
      '</Tabs>',
    ].join('\n');

    const paragraphs = removeMdxSyntax(source).split(/\n\s*\n/).map((paragraph) => paragraph.trim()).filter(Boolean);

    expect(paragraphs).toEqual(['macOS', 'Use Homebrew.', 'linux', 'Use apt.']);
  });

  test('inline and self-closing components, expressions in attributes, MDX comments: removed', () => {
    const source = 'Press <Kbd>Ctrl</Kbd>+<Kbd>C</Kbd>.{/* editor note */} <Image src={require("./a.png")} alt="x" /> <Admonition type="note" title="Heads up">Done.</Admonition>';

    expect(removeMdxSyntax(source)).toBe('Press Ctrl+C.  Heads upDone.');
  });

  test('lower-case HTML and comparisons in prose: left alone', () => {
    const source = '<details><summary>More</summary>Text</details> if a <b and C> d';

    expect(removeMdxSyntax(source)).toBe(source);
  });
});
