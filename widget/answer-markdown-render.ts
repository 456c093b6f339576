/**
 * Renders a parsed answer (`answer-markdown.ts`) as Lit templates.
 *
 * Model output is text, never HTML (STYLE.md "The widget"): every string of
 * the tree reaches the DOM through a Lit child or attribute binding, which
 * sets text content or an attribute value and never parses markup. There is
 * no `unsafeHTML`, `unsafeStatic` or `innerHTML` here, no element is created
 * from the answer's content, and no image, script, style or frame is ever
 * rendered.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { AnswerBlock, AnswerInline } from './answer-markdown.ts';

/** How citation markers link to the sources shown beside the answer. */
export interface RenderAnswerOptions {
  /**
   * Where marker `[index]` links, usually a fragment of the sources list
   * (`#kb-source-1`) or an `https:` URL; undefined when the answer has no
   * citation with that index. Any other value (a `javascript:` URL, a
   * relative path) is refused and the marker is shown as plain text.
   */
  citationHref: (index: number) => string | undefined;
  /** Accessible name of marker `[index]`, e.g. `Source 1: fs.md`. */
  citationLabel: (index: number) => string;
  /** Controls shown with each code block, given its text (a copy button); none when omitted. */
  codeActions?: (code: string) => unknown;
}

/**
 * Options for text that is not an answer (a quoted passage): bracketed
 * numbers in it are plain text, linking nowhere.
 */
export const NO_CITATION_LINKS: RenderAnswerOptions = { citationHref: () => undefined, citationLabel: () => '' };

/**
 * Renders answer blocks as `<p>`, `<ul>`/`<ol start>` with `<li>`,
 * `<pre><code data-language>` (inside `<div class="code">` after the
 * `codeActions` when given), and inline `<em>`, `<strong>`, `<code>`, `<mark>`, and
 * `<a href="https://…" rel="noopener noreferrer nofollow" target="_blank">`.
 * A citation marker renders as `<a class="citation" part="citation-marker"
 * href=… aria-label=…>[n]</a>`, or as the text `[n]` when its citation is
 * unknown. A link whose `href` is not `https:` (a hand-built tree) renders
 * as its label text.
 *
 * @param blocks the answer, from `parseAnswerMarkdown`
 * @returns one template for the whole answer, to bind into an element's `render()`
 */
export function renderAnswer(blocks: readonly AnswerBlock[], options: RenderAnswerOptions): TemplateResult {
  return html`${blocks.map((block) => renderBlock(block, options))}`;
}

function renderBlock(block: AnswerBlock, options: RenderAnswerOptions): TemplateResult {
  switch (block.type) {
    case 'paragraph':
      return html`<p>${renderInlines(block.children, options)}</p>`;
    case 'list': {
      const items = block.items.map((item) => html`<li>${renderInlines(item.children, options)}</li>`);
      if (!block.ordered) return html`<ul>${items}</ul>`;
      return html`<ol start=${block.start === undefined || block.start === 1 ? nothing : block.start}>${items}</ol>`;
    }
    case 'code-block': {
      const code = html`<pre tabindex="0"><code data-language=${block.language ?? nothing}>${block.text}</code></pre>`;
      return options.codeActions ? html`<div class="code">${options.codeActions(block.text)}${code}</div>` : code;
    }
  }
}

function renderInlines(nodes: readonly AnswerInline[], options: RenderAnswerOptions): TemplateResult[] {
  return nodes.map((node) => renderInline(node, options));
}

function renderInline(node: AnswerInline, options: RenderAnswerOptions): TemplateResult {
  switch (node.type) {
    case 'text':
      return html`${node.text}`;
    case 'code':
      return html`<code>${node.text}</code>`;
    case 'emphasis':
      return html`<em>${renderInlines(node.children, options)}</em>`;
    case 'strong':
      return html`<strong>${renderInlines(node.children, options)}</strong>`;
    case 'mark':
      return html`<mark>${renderInlines(node.children, options)}</mark>`;
    case 'link':
      if (!node.href.startsWith('https:')) return html`${renderInlines(node.children, options)}`;
      return html`<a href=${node.href} rel="noopener noreferrer nofollow" target="_blank">${renderInlines(node.children, options)}</a>`;
    case 'citation': {
      const marker = `[${node.index}]`;
      const href = options.citationHref(node.index);
      if (href === undefined || !(href.startsWith('#') || href.startsWith('https:'))) return html`${marker}`;
      return html`<a class="citation" part="citation-marker" href=${href} aria-label=${options.citationLabel(node.index)}>${marker}</a>`;
    }
  }
}
