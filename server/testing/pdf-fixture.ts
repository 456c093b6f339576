import { PDFDocument, StandardFonts } from 'pdf-lib';

/** One line of a test PDF: its text and font size in points (body text 11). */
export interface PdfLine {
  text: string;
  size?: number;
  /** Extra space above the line, in points (a paragraph break). */
  spaceBefore?: number;
}

/**
 * Writes a PDF for tests with pdf-lib, as a word processor would lay it out:
 * each page's lines top-down from a 72 pt margin, at 1.25 times their size
 * apart, in Helvetica (bold from 14 pt up).
 *
 * @param pages each page's lines
 * @param options.title the document's metadata title
 * @returns the PDF file's bytes
 */
export async function makePdf(pages: readonly (readonly PdfLine[])[], options: { title?: string } = {}): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  if (options.title !== undefined) document.setTitle(options.title);
  const regular = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  for (const lines of pages) {
    const page = document.addPage([612, 792]);
    let y = 792 - 72;
    for (const line of lines) {
      const size = line.size ?? 11;
      y -= (line.spaceBefore ?? 0) + size * 1.25;
      page.drawText(line.text, { x: 72, y, size, font: size >= 14 ? bold : regular });
    }
  }
  return document.save();
}
