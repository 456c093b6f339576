import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The text of a PDF as HTML, for the HTML parser (ingest/parsing/html-parser.ts) to
 * cut into sections like any page.
 *
 * Text comes from Mozilla's PDF.js (`pdfjs-dist`, its Node.js build): each
 * page's text items, in content order, grouped into lines by their baseline.
 * A PDF has no structure to read, so it is inferred from the layout, as text
 * extractors built for retrieval do (Unstructured's "hi_res"-less strategy,
 * GROBID's header model in far simpler form):
 *
 * - the body font size is the size most of the text is set in; a short
 *   line set at least {@link HEADING_SIZE_RATIO} times larger is a heading,
 *   larger sizes ranking higher (`<h1>` the largest), and a heading that
 *   wraps onto a second line at the same size stays one heading;
 * - a vertical gap of more than {@link PARAGRAPH_GAP_RATIO} body lines, a
 *   heading, a bullet or a new page starts a new paragraph; a line that
 *   ends in a hyphen is joined to the next without a space;
 * - running headers and footers - a line repeated on at least half the pages
 *   of a document of three pages or more, page numbers aside - and lines
 *   that are only a page number are dropped;
 * - each heading's id is `page=N`, its page, so a citation of its section
 *   links to `document.pdf#page=N`, which browsers' PDF viewers open at
 *   that page;
 * - the document's title is its metadata title (`<title>`), when it has one
 *   that is not a file name; the HTML parser prefers a first `<h1>`.
 *
 * @param bytes the PDF file (not modified)
 * @returns an HTML document
 * @throws PdfError when the bytes are not a PDF PDF.js can read, or the PDF is encrypted
 */
export async function pdfToHtml(bytes: Uint8Array): Promise<string> {
  const { getDocument, VerbosityLevel } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const loading = getDocument({
    // PDF.js may take the buffer over: it gets a copy.
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    standardFontDataUrl: STANDARD_FONTS,
    verbosity: VerbosityLevel.ERRORS,
  });
  let pdf;
  try {
    pdf = await loading.promise;
  } catch (error) {
    await loading.destroy();
    const name = (error as Error).name;
    if (name === 'PasswordException') throw new PdfError('The PDF is encrypted with a password');
    throw new PdfError(`The file is not a PDF that can be read (${(error as Error).message})`);
  }
  try {
    const pages: Line[][] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      pages.push(linesOf(content.items.filter((item) => 'str' in item) as TextItem[], number));
      page.cleanup();
    }
    const metadata = await pdf.getMetadata().catch(() => undefined);
    const info = (metadata?.info ?? {}) as { Title?: unknown };
    const title = typeof info.Title === 'string' && !FILE_NAME.test(info.Title.trim()) ? info.Title.trim() : undefined;
    return toHtml(withoutRunningLines(pages), title);
  } finally {
    await pdf.destroy();
  }
}

/** Why a PDF could not be read. */
export class PdfError extends Error {
  override name = 'PdfError';
}

/** A line at least this many times the body font size is a heading (1.2: 12 pt body text, 14.4 pt headings and up). */
export const HEADING_SIZE_RATIO = 1.2;
/** A gap between two lines' baselines of more than this many body font sizes starts a paragraph (body text is set at about 1.2). */
export const PARAGRAPH_GAP_RATIO = 1.8;
/** Longest heading, in characters: a longer line in a large font is a pull quote or a banner, kept as text. */
const MAX_HEADING_LENGTH = 150;
/** A metadata title that is a file name (`Microsoft Word - guide.docx`, `scan.pdf`) names nothing. */
const FILE_NAME = /\.(?:docx?|pdf|pptx?|xlsx?|odt|rtf|txt|indd|pages)$/i;
/** A line that opens a list item. */
const BULLET = /^(?:[•◦▪‣∙·●○■□–-]|\d{1,3}[.)])\s/u;
/** A line that is only a page number (`12`, `- 12 -`, `Page 12`, `12 of 40`). */
const PAGE_NUMBER = /^(?:page\s+)?[-–]?\s*\d{1,4}\s*[-–]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;

/** PDF.js's metrics of the 14 standard fonts, so text set in them is read without a warning. */
const STANDARD_FONTS = join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts') + '/';

/** The fields of PDF.js's `TextItem` read here (its type is not exported by the package's entry). */
interface TextItem {
  str: string;
  /** The text's transformation matrix [a, b, c, d, x, y], in points. */
  transform: number[];
  width: number;
  height: number;
  /** Whether a line break follows. */
  hasEOL: boolean;
}

interface Line {
  text: string;
  /** Font size in points (the largest of the line's items). */
  size: number;
  /** Baseline, in points from the bottom of the page. */
  y: number;
  page: number;
}

/** Groups a page's text items into lines: a new line where an item ends one (`hasEOL`) or starts on another baseline. */
function linesOf(items: readonly TextItem[], page: number): Line[] {
  const lines: Line[] = [];
  let current: Line | undefined;
  let previousEnd = 0;
  for (const item of items) {
    const size = Math.hypot(item.transform[2]!, item.transform[3]!) || item.height;
    const x = item.transform[4]!;
    const y = item.transform[5]!;
    if (item.str !== '') {
      if (current !== undefined && Math.abs(current.y - y) > Math.max(current.size, size) / 2) {
        lines.push(current);
        current = undefined;
      }
      if (current === undefined) {
        current = { text: item.str, size, y, page };
      } else {
        // Items of one line that do not touch are separate words.
        const gap = x - previousEnd > size * 0.15 && !current.text.endsWith(' ') && !item.str.startsWith(' ');
        current.text += (gap ? ' ' : '') + item.str;
        current.size = Math.max(current.size, size);
      }
      previousEnd = x + item.width;
    }
    if (item.hasEOL && current !== undefined) {
      lines.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) lines.push(current);
  return lines
    .map((line) => ({ ...line, text: line.text.replace(/\s+/g, ' ').trim() }))
    .filter((line) => line.text !== '' && !PAGE_NUMBER.test(line.text));
}

/** Drops the lines repeated on at least half the pages (running headers and footers) of a document of three pages or more. */
function withoutRunningLines(pages: readonly Line[][]): Line[] {
  if (pages.length < 3) return pages.flat();
  const pagesWith = new Map<string, number>();
  for (const lines of pages) {
    for (const key of new Set(lines.map((line) => runningKey(line.text)))) pagesWith.set(key, (pagesWith.get(key) ?? 0) + 1);
  }
  return pages.flat().filter((line) => pagesWith.get(runningKey(line.text))! < pages.length / 2);
}

/** A line's text with its numbers made alike, so `Chapter 2 - page 14` repeats `Chapter 2 - page 15`. */
function runningKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#');
}

/** The font size most characters are set in, to the half point. */
function bodySize(lines: readonly Line[]): number {
  const characters = new Map<number, number>();
  for (const line of lines) {
    const size = Math.round(line.size * 2) / 2;
    characters.set(size, (characters.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let most = -1;
  for (const [size, count] of characters) {
    if (count > most) [best, most] = [size, count];
  }
  return best;
}

function toHtml(lines: readonly Line[], title: string | undefined): string {
  const body = bodySize(lines);
  const isHeading = (line: Line) => line.size >= body * HEADING_SIZE_RATIO && line.text.length <= MAX_HEADING_LENGTH;
  // Larger heading sizes rank higher: <h1> for the largest, at most six levels.
  const headingSizes = [...new Set(lines.filter(isHeading).map((line) => Math.round(line.size * 2) / 2))].sort((a, b) => b - a);
  const levelOf = (line: Line) => Math.min(headingSizes.indexOf(Math.round(line.size * 2) / 2) + 1, 6);

  const parts: string[] = [];
  let paragraph: { text: string; list: boolean } | undefined;
  // A heading: its first line (its size and page) and its last (a wrapped heading has several).
  let heading: { first: Line; last: Line; text: string } | undefined;
  let previous: Line | undefined;
  const endParagraph = () => {
    if (paragraph !== undefined) parts.push(paragraph.list ? `<ul><li>${escape(paragraph.text)}</li></ul>` : `<p>${escape(paragraph.text)}</p>`);
    paragraph = undefined;
  };
  const endHeading = () => {
    if (heading !== undefined) {
      const level = levelOf(heading.first);
      parts.push(`<h${level} id="page=${heading.first.page}">${escape(heading.text)}</h${level}>`);
    }
    heading = undefined;
  };
  for (const line of lines) {
    if (isHeading(line)) {
      endParagraph();
      // A heading wrapped onto the next line, in the same size on the same page.
      if (heading !== undefined && previous === heading.last && line.page === previous.page && Math.abs(line.size - previous.size) < 0.5) {
        heading = { first: heading.first, last: line, text: `${heading.text} ${line.text}` };
      } else {
        endHeading();
        heading = { first: line, last: line, text: line.text };
      }
    } else {
      endHeading();
      const bullet = BULLET.test(line.text);
      const startsParagraph =
        paragraph === undefined ||
        previous === undefined ||
        line.page !== previous.page ||
        Math.abs(previous.y - line.y) > PARAGRAPH_GAP_RATIO * body ||
        bullet;
      if (startsParagraph) {
        endParagraph();
        paragraph = bullet ? { text: line.text.replace(BULLET, ''), list: true } : { text: line.text, list: false };
      } else if (paragraph !== undefined) {
        paragraph.text += paragraph.text.endsWith('-') ? line.text : ` ${line.text}`;
      }
    }
    previous = line;
  }
  endParagraph();
  endHeading();
  return `<!doctype html><html><head>${title === undefined ? '' : `<title>${escape(title)}</title>`}</head><body>${parts.join('\n')}</body></html>`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
