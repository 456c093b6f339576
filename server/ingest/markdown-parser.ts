/**
 * Markdown source to {@link ParsedDocument}, through marked's lexer (GFM).
 */
import { decodeHTMLStrict } from 'entities';
import { Lexer, type MarkedToken, type Token, type Tokens } from 'marked';
import { appendHtmlFragment } from './html-parser.ts';
import type { ParsedDocument } from './parsed-document.ts';
import {
  SectionBuilder,
  collapseWhitespace,
  formatInlineCode,
  trimBlankEdgeLines,
} from './section-builder.ts';

/**
 * Parses a markdown document (CommonMark + GFM, as marked reads it) into sections.
 *
 * Title: the text of the first level-1 heading, else `fallbackTitle`; it is
 * also the heading-path root, and text before the first heading lands in a
 * section with path `[title]`. Headings build the heading path (see
 * {@link SectionBuilder}); heading text is plain text with inline code kept
 * as `` `code` ``, e.g. `` `fs.mkdir(path[, options], callback)` ``.
 *
 * Blocks: paragraphs (also those inside blockquotes) become `paragraph`;
 * each list item becomes a `list-item` with its own text, nested items
 * following as separate items; fenced and indented code becomes `code`
 * verbatim (blank edge lines dropped); GFM tables become `table`. Raw HTML
 * blocks go through the HTML parser's rules, so comments (`<!-- YAML -->`,
 * `<!--introduced_in=...-->`) vanish while HTML `<table>`s and `<pre>`s
 * keep their text. Link reference definitions, images, `hr` and blank
 * space are dropped.
 *
 * Inline text: entities decoded (`&amp;` to `&`), code spans as
 * `` `code` `` (literal, as CommonMark reads them), emphasis and strike
 * through reduced to their content, links to their text, images and inline
 * HTML tags removed, line breaks as spaces, whitespace collapsed.
 *
 * Never throws on any input string: marked reads every string as markdown.
 *
 * @param source the markdown text.
 * @param fallbackTitle title used when the document has no level-1 heading with text.
 */
export function parseMarkdown(source: string, fallbackTitle: string): ParsedDocument {
  // marked without extensions only produces its own token types.
  const tokens = new Lexer().lex(source) as MarkedToken[];
  const title = findTitle(tokens) ?? fallbackTitle;
  const builder = new SectionBuilder(title);
  walkBlocks(tokens, builder, { insideContainer: false });
  return { title, sections: builder.sections() };
}

interface WalkContext {
  /** Inside a blockquote or list item, where a heading is read as a paragraph, not a new section. */
  insideContainer: boolean;
}

function findTitle(tokens: MarkedToken[]): string | undefined {
  for (const token of tokens) {
    if (token.type === 'heading' && token.depth === 1) {
      const text = inlineText(token.tokens);
      if (text !== '') return text;
    }
  }
  return undefined;
}

function walkBlocks(tokens: Token[], builder: SectionBuilder, context: WalkContext): void {
  for (const token of tokens as MarkedToken[]) {
    switch (token.type) {
      case 'heading':
        if (context.insideContainer) builder.addBlock({ kind: 'paragraph', text: inlineText(token.tokens) });
        else builder.openHeading(token.depth, inlineText(token.tokens));
        break;
      case 'paragraph':
        builder.addBlock({ kind: 'paragraph', text: inlineText(token.tokens) });
        break;
      case 'text':
        // A block-level text token: the content of a tight list item.
        builder.addBlock({ kind: 'paragraph', text: inlineText([token]) });
        break;
      case 'blockquote':
        walkBlocks(token.tokens, builder, { insideContainer: true });
        break;
      case 'list':
        for (const item of token.items) walkListItem(item, builder);
        break;
      case 'code':
        builder.addBlock({ kind: 'code', text: trimBlankEdgeLines(token.text) });
        break;
      case 'table':
        builder.addBlock({ kind: 'table', text: tableText(token) });
        break;
      case 'html':
        appendHtmlFragment(token.text, builder);
        break;
      default:
        // space, hr, def (link reference definitions) and inline-only types carry no block text.
        break;
    }
  }
}

/**
 * A list item's own text is its leading paragraphs (a tight item's text
 * token, or a loose item's paragraphs); from the first other block on (a
 * nested list, a code block) its children become blocks of their own.
 */
function walkListItem(item: Tokens.ListItem, builder: SectionBuilder): void {
  const children = item.tokens as MarkedToken[];
  const firstBlockIndex = children.findIndex(
    (child) => child.type !== 'text' && child.type !== 'paragraph' && child.type !== 'space',
  );
  const ownTokens = firstBlockIndex === -1 ? children : children.slice(0, firstBlockIndex);
  const ownText = collapseWhitespace(ownTokens.map((child) => inlineText([child])).join(' '));
  builder.addBlock({ kind: 'list-item', text: ownText });
  if (firstBlockIndex !== -1) {
    walkBlocks(children.slice(firstBlockIndex), builder, { insideContainer: true });
  }
}

function tableText(table: Tokens.Table): string {
  return [table.header, ...table.rows]
    .map((cells) => cells.map((cell) => inlineText(cell.tokens)).join(' | ').trim())
    .join('\n');
}

/** Plain prose text of inline tokens, whitespace collapsed. */
function inlineText(tokens: Token[]): string {
  return collapseWhitespace(tokens.map(renderInline).join(''));
}

function renderInline(token: Token): string {
  const markedToken = token as MarkedToken;
  switch (markedToken.type) {
    case 'text':
      // A tight list item's text token nests inline tokens; an inline one does not.
      if (markedToken.tokens !== undefined) return markedToken.tokens.map(renderInline).join('');
      // marked's own `text` resolves numeric references only, and then
      // re-escapes bare `&` as `&amp;`; `raw` is the source, so decode that.
      return decodeHTMLStrict(markedToken.raw);
    case 'escape':
      return markedToken.text;
    case 'codespan':
      return formatInlineCode(markedToken.text);
    case 'link':
      // Autolinks are literal: their text has no references to resolve.
      return markedToken.autolink === true ? markedToken.text : markedToken.tokens.map(renderInline).join('');
    case 'strong':
    case 'em':
    case 'del':
    case 'paragraph':
    case 'heading':
      return markedToken.tokens.map(renderInline).join('');
    case 'br':
      return ' ';
    case 'html':
      return /^<br\b/i.test(markedToken.text) ? ' ' : '';
    default:
      // image, checkbox and block types that cannot occur inline.
      return '';
  }
}
