import { describe, expect, test } from 'vitest';
import { makePdf } from '../../testing/pdf-fixture.ts';
import { parseHtml } from './html-parser.ts';
import { pdfToHtml, PdfError } from './pdf-text.ts';

describe('pdfToHtml', () => {
  test('larger lines become headings ranked by size, each with its page as id; lines of a paragraph are joined; bullets become list items', async () => {
    // Arrange
    const pdf = await makePdf(
      [
        [
          { text: 'Router Manual', size: 24 },
          { text: 'Resetting the router', size: 16, spaceBefore: 8 },
          { text: 'Hold the reset button for ten seconds until the light' },
          { text: 'blinks amber & the router restarts.' },
          { text: 'Your settings are not kept.', spaceBefore: 12 },
          { text: '• Unplug the cable first.' },
          { text: '• Keep the power on.' },
        ],
        [
          { text: 'Wi-Fi channels', size: 16 },
          { text: 'Pick the channel with the fewest neighbours.' },
        ],
      ],
      { title: 'Router Manual (2026)' },
    );

    // Act
    const parsed = parseHtml(await pdfToHtml(pdf), 'fallback');

    // Assert
    expect(parsed.title).toBe('Router Manual');
    expect(parsed.sections.map((section) => ({ path: section.headingPath, anchor: section.anchor, blocks: section.blocks }))).toEqual([
      {
        path: ['Router Manual', 'Resetting the router'],
        anchor: 'page=1',
        blocks: [
          { kind: 'paragraph', text: 'Hold the reset button for ten seconds until the light blinks amber & the router restarts.' },
          { kind: 'paragraph', text: 'Your settings are not kept.' },
          { kind: 'list-item', text: 'Unplug the cable first.' },
          { kind: 'list-item', text: 'Keep the power on.' },
        ],
      },
      {
        path: ['Router Manual', 'Wi-Fi channels'],
        anchor: 'page=2',
        blocks: [{ kind: 'paragraph', text: 'Pick the channel with the fewest neighbours.' }],
      },
    ]);
  });

  test('the metadata title names a PDF without a heading above its text; one that is a file name does not', async () => {
    // Arrange
    const body = [[{ text: 'Backups run every night at two.' }]];

    // Act
    const titled = parseHtml(await pdfToHtml(await makePdf(body, { title: 'Backup policy' })), 'backup-policy');
    const fileNamed = parseHtml(await pdfToHtml(await makePdf(body, { title: 'Microsoft Word - policy.docx' })), 'backup-policy');

    // Assert
    expect(titled.title).toBe('Backup policy');
    expect(fileNamed.title).toBe('backup-policy');
    expect(titled.sections.flatMap((section) => section.blocks)).toEqual([{ kind: 'paragraph', text: 'Backups run every night at two.' }]);
  });

  test('running headers, footers and page numbers repeated on the pages are left out', async () => {
    // Arrange
    const page = (number: number, text: string) => [
      { text: 'ACME Corp - Internal handbook', size: 9 },
      { text, spaceBefore: 20 },
      { text: `Page ${number} of 3`, size: 9, spaceBefore: 500 },
    ];

    // Act
    const html = await pdfToHtml(await makePdf([page(1, 'Holidays are booked in the portal.'), page(2, 'Expenses are paid monthly.'), page(3, 'Laptops are replaced every four years.')]));

    // Assert
    const blocks = parseHtml(html, 'handbook').sections.flatMap((section) => section.blocks.map((block) => block.text));
    expect(blocks).toEqual(['Holidays are booked in the portal.', 'Expenses are paid monthly.', 'Laptops are replaced every four years.']);
  });

  test('bytes that are not a PDF are refused with the reason', async () => {
    // Act
    const refusal = pdfToHtml(Buffer.from('# Not a PDF\n'));

    // Assert
    await expect(refusal).rejects.toThrow(PdfError);
    await expect(refusal).rejects.toThrow(/not a PDF that can be read/);
  });
});
