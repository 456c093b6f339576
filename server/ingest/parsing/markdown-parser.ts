/**
 * Markdown source to {@link ParsedDocument}, through marked's lexer (GFM).
 */
import { decodeHTMLStrict } from 'entities';
import { Lexer, type MarkedToken, type Token, type Tokens } from 'marked';
import { splitFrontMatter } from './front-matter.ts';
import { HeadingAnchors, withoutCustomId } from './heading-anchors.ts';
import { appendHtmlFragment } from './html-parser.ts';
import type { ParsedDocument } from './parsed-document.ts';
import { removeSiteMarkup } from './site-markup.ts';
import type { AnchorStyle } from '../../store/store.ts';
import {
  SectionBuilder,
  collapseWhitespace,
  formatInlineCode,
  trimBlankEdgeLines,
} from './section-builder.ts';

/** Options of {@link parseMarkdown}. */
export interface MarkdownParseOptions {
  /** How the site makes heading ids (default `github`). */
  anchorStyle?: AnchorStyle;
}

/**
 * Parses a markdown document (CommonMark + GFM, as marked reads it) into sections.
 *
 * Front matter (YAML `---` or TOML `+++`, front-matter.ts) is read and
 * removed; then the markup of static-site generators (Hugo shortcodes,
 * Docusaurus and MkDocs admonitions, MDX syntax, HTML comments;
 * site-markup.ts), so neither is ever indexed as text.
 *
 * Title: front matter `title`, else `linkTitle`, else the text of the first
 * level-1 heading, else `fallbackTitle`; it is also the heading-path root
 * until a level-1 heading replaces it, and text before the first heading
 * lands in a section with path `[title]`. Description: front matter
 * `description` as plain text. Headings build the heading path (see
 * {@link SectionBuilder}); heading text is plain text with inline code kept
 * as `` `code` ``, e.g. `` `fs.mkdir(path[, options], callback)` ``. Each
 * section carries its heading's anchor (heading-anchors.ts): a custom id
 * written after the heading (`## Install {#setup}`), else the slug of its
 * text in the site's style; headings read as paragraphs (inside lists and
 * blockquotes) are counted too, as generators count them.
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
 * Markdown itself never fails: marked reads every string as markdown.
 *
 * @param source the markdown text, front matter included.
 * @param fallbackTitle title used when neither front matter nor a level-1 heading gives one.
 * @throws FrontMatterError when the source opens a front matter block that cannot be read
 */
export function parseMarkdown(source: string, fallbackTitle: string, options: MarkdownParseOptions = {}): ParsedDocument {
  const { frontMatter, body } = splitFrontMatter(source);
  // marked without extensions only produces its own token types.
  const tokens = new Lexer().lex(removeSiteMarkup(body)) as MarkedToken[];
  const title = plainText(frontMatter.title) ?? plainText(frontMatter.linkTitle) ?? findTitle(tokens) ?? fallbackTitle;
  const builder = new SectionBuilder(title);
  walkBlocks(tokens, builder, { insideContainer: false, anchors: new HeadingAnchors(options.anchorStyle) });
  const description = plainText(frontMatter.description);
  return { title, ...(description === undefined ? {} : { description }), frontMatter, sections: builder.sections() };
}

interface WalkContext {
  /** Inside a blockquote or list item, where a heading is read as a paragraph, not a new section. */
  insideContainer: boolean;
  /** The page's heading ids, given in document order. */
  anchors: HeadingAnchors;
}

/** A front matter text as plain prose (its markdown and site markup removed); undefined when nothing is left. */
function plainText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const plain = inlineText(Lexer.lexInline(removeSiteMarkup(text)));
  return plain === '' ? undefined : plain;
}

function findTitle(tokens: MarkedToken[]): string | undefined {
  for (const token of tokens) {
    if (token.type === 'heading' && token.depth === 1) {
      const text = withoutCustomId(inlineText(token.tokens));
      if (text !== '') return text;
    }
  }
  return undefined;
}

function walkBlocks(tokens: Token[], builder: SectionBuilder, context: WalkContext): void {
  for (const token of tokens as MarkedToken[]) {
    switch (token.type) {
      case 'heading': {
        const heading = context.anchors.anchor(inlineText(token.tokens));
        if (context.insideContainer) builder.addBlock({ kind: 'paragraph', text: heading.text });
        else builder.openHeading(token.depth, heading.text, heading.anchor);
        break;
      }
      case 'paragraph':
        builder.addBlock({ kind: 'paragraph', text: inlineText(token.tokens) });
        break;
      case 'text':
        // A block-level text token: the content of a tight list item.
        builder.addBlock({ kind: 'paragraph', text: inlineText([token]) });
        break;
      case 'blockquote':
        walkBlocks(token.tokens, builder, { ...context, insideContainer: true });
        break;
      case 'list':
        for (const item of token.items) walkListItem(item, builder, context);
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
function walkListItem(item: Tokens.ListItem, builder: SectionBuilder, context: WalkContext): void {
  const children = item.tokens as MarkedToken[];
  const firstBlockIndex = children.findIndex(
    (child) => child.type !== 'text' && child.type !== 'paragraph' && child.type !== 'space',
  );
  const ownTokens = firstBlockIndex === -1 ? children : children.slice(0, firstBlockIndex);
  const ownText = collapseWhitespace(ownTokens.map((child) => inlineText([child])).join(' '));
  builder.addBlock({ kind: 'list-item', text: ownText });
  if (firstBlockIndex !== -1) {
    walkBlocks(children.slice(firstBlockIndex), builder, { ...context, insideContainer: true });
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
