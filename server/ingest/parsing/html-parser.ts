/**
 * HTML source to {@link ParsedDocument}, through htmlparser2's DOM.
 */
import { DomUtils, ElementType, parseDocument } from 'htmlparser2';
import type { ParsedDocument } from './parsed-document.ts';
import {
  SectionBuilder,
  collapseWhitespace,
  formatInlineCode,
  trimBlankEdgeLines,
} from './section-builder.ts';

/** A DOM node as htmlparser2 builds it (domhandler's `ChildNode`). */
type DomNode = ReturnType<typeof parseDocument>['children'][number];
/** An element node (domhandler's `Element`). */
type DomElement = Extract<DomNode, { attribs: Record<string, string> }>;
/** A text node (domhandler's `Text`). */
type DomText = Extract<DomNode, { type: typeof ElementType.Text }>;

function isElement(node: DomNode): node is DomElement {
  return ElementType.isTag(node);
}

function isTextNode(node: DomNode): node is DomText {
  return node.type === ElementType.Text;
}

/** Elements whose whole subtree is chrome, code or media, never passage text. */
const SKIPPED_ELEMENTS = new Set([
  'head', 'script', 'style', 'noscript', 'template', 'nav', 'header', 'footer',
  'svg', 'img', 'picture', 'video', 'audio', 'canvas', 'iframe', 'object', 'embed',
]);

const HEADING_LEVELS: ReadonlyMap<string, number> = new Map([
  ['h1', 1], ['h2', 2], ['h3', 3], ['h4', 4], ['h5', 5], ['h6', 6],
]);

/**
 * Elements that start a new block. Bare text and inline elements between
 * them are gathered into paragraphs. An element not listed here is inline
 * unless it contains one of these (so `<my-card><p>…</p></my-card>` is a
 * container).
 */
const BLOCK_ELEMENTS = new Set([
  'html', 'body', 'main', 'article', 'section', 'div', 'aside', 'address', 'center',
  'hgroup', 'search', 'figure', 'figcaption', 'details', 'summary', 'form', 'fieldset',
  'legend', 'dialog', 'dl', 'dt', 'dd', 'p', 'blockquote', 'ul', 'ol', 'menu', 'li',
  'pre', 'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'hr',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
]);

/**
 * Parses an HTML page into sections.
 *
 * Title: the text of the first `<h1>` (outside skipped elements such as
 * `<header>`), else of `<title>`, else `fallbackTitle`; it is also the
 * heading-path root. `<h1>`-`<h6>` build the
 * heading path (see {@link SectionBuilder}); a section's anchor is its
 * heading's `id` (or that of an `<a id>`/`<a name>` inside it). The
 * description is `<meta name="description">`'s content. Blocks: `<p>` and bare text or
 * inline elements directly inside containers (`<body>`, `<div>`,
 * `<section>`, `<blockquote>`, ...) become paragraphs; each `<li>` becomes a
 * `list-item` with its own text, nested lists following as separate items;
 * `<pre>` becomes `code` with its text verbatim (blank edge lines dropped);
 * `<table>` becomes `table`, one line per `<tr>`, cells joined by ` | `.
 * Inline `<code>` is written as `` `code` ``, `<br>` as a space, and prose
 * whitespace is collapsed. `<head>`, `<script>`, `<style>`, `<noscript>`,
 * `<template>`, `<nav>`, `<header>`, `<footer>`, `<svg>`, `<img>`, other
 * media and comments are skipped. Entities are decoded by htmlparser2.
 *
 * Never throws: htmlparser2 recovers from malformed markup the way browsers do.
 *
 * @param source the HTML text (a full page or a fragment).
 * @param fallbackTitle title used when the page has neither `<h1>` nor `<title>` text.
 */
export function parseHtml(source: string, fallbackTitle: string): ParsedDocument {
  const document = parseDocument(source);
  const title = findTitle(document.children) ?? fallbackTitle;
  const builder = new SectionBuilder(title);
  walkChildren(document.children, builder);
  const description = findDescription(document.children);
  return { title, ...(description === undefined ? {} : { description }), sections: builder.sections() };
}

/** `<meta name="description" content="…">`, whitespace collapsed; undefined when absent or blank. */
function findDescription(nodes: DomNode[]): string | undefined {
  const meta = DomUtils.findOne(
    (element) => element.name === 'meta' && element.attribs['name']?.toLowerCase() === 'description',
    nodes,
  );
  const content = collapseWhitespace(meta?.attribs['content'] ?? '');
  return content === '' ? undefined : content;
}

/** A heading's id on the page: its own `id`, else that of an anchor inside it (`<a id>` or `<a name>`). */
function headingAnchor(heading: DomElement): string | undefined {
  const own = heading.attribs['id']?.trim();
  if (own) return own;
  const anchor = DomUtils.findOne((element) => element.name === 'a' && Boolean(element.attribs['id'] ?? element.attribs['name']), heading.children);
  return (anchor?.attribs['id'] ?? anchor?.attribs['name'])?.trim() || undefined;
}

/**
 * Adds the blocks and headings of an HTML fragment to a section builder,
 * with the rules of {@link parseHtml}. The markdown parser uses it for raw
 * HTML blocks (the Node.js docs keep constant tables and the `require()`
 * algorithm in `<table>` and `<pre>` HTML).
 */
export function appendHtmlFragment(html: string, builder: SectionBuilder): void {
  walkChildren(parseDocument(html).children, builder);
}

/** The first `<h1>` outside skipped chrome (a site `<header>` is not the page's title), else `<title>`. */
function findTitle(nodes: DomNode[]): string | undefined {
  const heading = findFirstOutsideSkipped(nodes, 'h1');
  const headingText = heading === undefined ? '' : inlineText(heading.children);
  if (headingText !== '') return headingText;
  const titleElement = DomUtils.findOne((element) => element.name === 'title', nodes);
  const titleText = titleElement === null ? '' : collapseWhitespace(DomUtils.textContent(titleElement));
  return titleText === '' ? undefined : titleText;
}

function findFirstOutsideSkipped(nodes: DomNode[], name: string): DomElement | undefined {
  for (const node of nodes) {
    if (!isElement(node) || SKIPPED_ELEMENTS.has(node.name)) continue;
    if (node.name === name) return node;
    const found = findFirstOutsideSkipped(node.children, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Walks sibling nodes, turning runs of text and inline elements into paragraphs. */
function walkChildren(nodes: DomNode[], builder: SectionBuilder): void {
  let inlineRun: DomNode[] = [];
  const flushInlineRun = (): void => {
    if (inlineRun.length === 0) return;
    builder.addBlock({ kind: 'paragraph', text: inlineText(inlineRun) });
    inlineRun = [];
  };
  for (const node of nodes) {
    if (isTextNode(node)) {
      inlineRun.push(node);
    } else if (isElement(node) && !SKIPPED_ELEMENTS.has(node.name)) {
      if (isInline(node)) {
        inlineRun.push(node);
      } else {
        flushInlineRun();
        walkBlockElement(node, builder);
      }
    }
  }
  flushInlineRun();
}

function walkBlockElement(element: DomElement, builder: SectionBuilder): void {
  const headingLevel = HEADING_LEVELS.get(element.name);
  if (headingLevel !== undefined) {
    builder.openHeading(headingLevel, inlineText(element.children), headingAnchor(element));
    return;
  }
  switch (element.name) {
    case 'ul':
    case 'ol':
    case 'menu':
      for (const child of element.children) {
        if (isElement(child) && child.name === 'li') walkListItem(child, builder);
        else walkChildren([child], builder);
      }
      return;
    case 'li':
      walkListItem(element, builder);
      return;
    case 'pre':
      builder.addBlock({ kind: 'code', text: trimBlankEdgeLines(DomUtils.textContent(element)) });
      return;
    case 'table':
      builder.addBlock({ kind: 'table', text: tableText(element) });
      return;
    case 'hr':
      return;
    default:
      walkChildren(element.children, builder);
  }
}

/**
 * A list item's own text is its leading inline content and leading
 * paragraphs; from the first other block on (a nested list, a `<pre>`),
 * its children are walked as blocks of their own.
 */
function walkListItem(item: DomElement, builder: SectionBuilder): void {
  const firstBlockIndex = item.children.findIndex(
    (child) => isElement(child) && !isInline(child) && !isSimpleParagraph(child),
  );
  const ownNodes = firstBlockIndex === -1 ? item.children : item.children.slice(0, firstBlockIndex);
  builder.addBlock({ kind: 'list-item', text: inlineText(ownNodes) });
  if (firstBlockIndex !== -1) walkChildren(item.children.slice(firstBlockIndex), builder);
}

function isSimpleParagraph(element: DomElement): boolean {
  return element.name === 'p' && !hasBlockDescendant(element);
}

function tableText(table: DomElement): string {
  const rows = DomUtils.findAll((element) => element.name === 'tr', table.children);
  return rows
    .map((row) =>
      row.children
        .filter((cell) => isElement(cell) && (cell.name === 'th' || cell.name === 'td'))
        .map((cell) => inlineText([cell]))
        .join(' | ')
        .trim(),
    )
    .filter((line) => line.replaceAll('|', '').trim() !== '')
    .join('\n');
}

function isInline(element: DomElement): boolean {
  return !BLOCK_ELEMENTS.has(element.name) && !hasBlockDescendant(element);
}

function hasBlockDescendant(element: DomElement): boolean {
  return DomUtils.findOne((descendant) => BLOCK_ELEMENTS.has(descendant.name), element.children) !== null;
}

/** Prose text of nodes: inline code in backticks, skipped elements removed, whitespace collapsed. */
function inlineText(nodes: DomNode[]): string {
  return collapseWhitespace(nodes.map(renderInline).join(''));
}

function renderInline(node: DomNode): string {
  if (isTextNode(node)) return node.data;
  if (!isElement(node) || SKIPPED_ELEMENTS.has(node.name)) return '';
  if (node.name === 'br') return ' ';
  if (node.name === 'code') {
    const code = collapseWhitespace(DomUtils.textContent(node));
    return code === '' ? '' : formatInlineCode(code);
  }
  const content = node.children.map(renderInline).join('');
  // Block boundaries inside flattened content (cells, list items) still separate words.
  return BLOCK_ELEMENTS.has(node.name) ? ` ${content} ` : content;
}
