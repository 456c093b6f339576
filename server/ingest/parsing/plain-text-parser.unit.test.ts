import { describe, expect, test } from 'vitest';
import { parsePlainText } from './plain-text-parser.ts';

describe('parsePlainText', () => {
  test('paragraphs separated by blank lines: one section of paragraphs, inner newlines as spaces', () => {
    const source = 'First line\nsecond line.\n\n\nNext   paragraph.\n  \nLast.\n';

    const document = parsePlainText(source, 'notes.txt');

    expect(document).toEqual({
      title: 'notes.txt',
      sections: [
        {
          headingPath: ['notes.txt'],
          blocks: [
            { kind: 'paragraph', text: 'First line second line.' },
            { kind: 'paragraph', text: 'Next paragraph.' },
            { kind: 'paragraph', text: 'Last.' },
          ],
        },
      ],
    });
  });

  test('Windows line ends: paragraphs split and joined the same way', () => {
    const source = 'One\r\ntwo.\r\n\r\nThree.';

    const document = parsePlainText(source, 'notes.txt');

    expect(document.sections[0]?.blocks.map((block) => block.text)).toEqual(['One two.', 'Three.']);
  });

  test('only whitespace: no sections', () => {
    const document = parsePlainText(' \n\n\t\n', 'blank.txt');

    expect(document).toEqual({ title: 'blank.txt', sections: [] });
  });
});
