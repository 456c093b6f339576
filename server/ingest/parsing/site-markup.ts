/**
 * The markup static-site generators add to markdown, removed before the
 * markdown parser reads a page, so that neither passages nor answers show
 * `{{< note >}}`, `:::tip`, `!!! warning`, `import Tabs from …` or
 * `<TabItem>` to a visitor.
 */
import { removeAdmonitions } from './admonitions.ts';
import { renderHugoShortcodes, tabArguments } from './hugo-shortcodes.ts';
import { removeMdxSyntax } from './mdx-syntax.ts';
import { holdsPlaceholder, PlaceholderVault, protectFencedCode, protectInlineCode } from './protected-code.ts';

/**
 * Hugo's escaped shortcode, `{{</* note *\/>}}`, which a Hugo site shows as
 * the literal `{{< note >}}` (pages that document shortcodes use it).
 */
const ESCAPED_SHORTCODE = /\{\{([<%])\/\*([\s\S]*?)\*\/([>%])\}\}/g;

/** `{{< highlight lang "options" >}}` … `{{< /highlight >}}`: Hugo's code block shortcode. */
const HIGHLIGHT = /\{\{[<%]\s*highlight(?:\s+([\w+#.-]+))?[^}]*?[>%]\}\}\r?\n?([\s\S]*?)\{\{[<%]\s*\/\s*highlight\s*[>%]\}\}/g;

/**
 * `{{< tab name="Linux node" codelang="yaml" >}}` … `{{< /tab >}}`, each tag
 * alone on its line. With a `codelang`, the Kubernetes website and Docsy
 * themes show the tab's content as a highlighted code block in that
 * language (their `tab` shortcode passes it to Hugo's `highlight`); without
 * this, a manifest's comments would read as sentences of the page. Its
 * arguments are read as the shortcode rendering reads them
 * (hugo-shortcodes.ts `tabArguments`).
 */
const CODE_TAB = /^([ \t]*)\{\{[<%]\s*tab\b([^}]*?\bcodelang\b[^}]*?)[>%]\}\}[ \t]*\r?\n([\s\S]*?)^[ \t]*\{\{[<%]\s*\/\s*tab\s*[>%]\}\}/gm;

const HTML_COMMENT = /<!--[\s\S]*?-->/g;

/**
 * Removes site-generator markup from a markdown page (front matter already
 * split off, front-matter.ts), keeping the text a reader of the built site
 * sees:
 * 1. Hugo's escaped shortcodes (`{{</* x *\/>}}`) become the literal
 *    `{{< x >}}` they show, and are never expanded;
 * 2. fenced code blocks and inline code spans are set aside verbatim
 *    (protected-code.ts), and Hugo's `highlight` shortcode and a `tab`
 *    shortcode with a `codelang` (its name kept as a paragraph before it)
 *    become fenced code blocks, set aside the same way;
 * 3. HTML comments (`<!-- … -->`) are removed;
 * 4. Hugo shortcodes are replaced by their visible text (hugo-shortcodes.ts);
 * 5. MDX import/export blocks, `{/* … *\/}` comments and component tags are
 *    removed, keeping component content (mdx-syntax.ts);
 * 6. Docusaurus and MkDocs admonitions and content tabs are reduced to
 *    their title and content (admonitions.ts);
 * 7. the code set aside is put back as it was.
 *
 * Markdown without such markup comes back unchanged. Never throws.
 *
 * @param markdown the page body, `\n` or `\r\n` line ends
 */
export function removeSiteMarkup(markdown: string): string {
  const vault = new PlaceholderVault();
  let text = markdown.replace(ESCAPED_SHORTCODE, (_match, open: string, inner: string, close: string) =>
    vault.keep(`{{${open}${inner}${close}}}`),
  );
  text = protectFencedCode(text, vault);
  text = text.replace(HIGHLIGHT, (_match, language: string | undefined, code: string) => protectFencedCode(fencedBlock(code, language ?? ''), vault));
  text = text.replace(CODE_TAB, (match: string, indentation: string, argumentsText: string, code: string) => {
    const { label, codeLanguage } = tabArguments(argumentsText);
    // A tab whose language is empty, or holding fenced code already (set aside above), is markdown: left to the shortcode rendering.
    if (codeLanguage === undefined || holdsPlaceholder(code)) return match;
    return `${label === undefined ? '' : `${indentation}${label}\n\n`}${protectFencedCode(fencedBlock(code, codeLanguage, indentation), vault)}`;
  });
  text = protectInlineCode(text, vault);
  text = text.replace(HTML_COMMENT, '');
  text = renderHugoShortcodes(text);
  text = removeMdxSyntax(text);
  text = removeAdmonitions(text);
  return vault.restore(text);
}

/**
 * Code as a fenced block in `language`, its fence longer than any backtick
 * run that starts one of its lines, at `indentation` (the code's own lines
 * are kept as written, already indented where the block sits in a list item).
 */
function fencedBlock(code: string, language: string, indentation = ''): string {
  const longestRun = Math.max(2, ...(code.match(/^\s*`+/gm) ?? []).map((run) => run.trim().length));
  const fence = indentation + '`'.repeat(longestRun + 1);
  return [fence + language, code.replace(/\r?\n$/, ''), fence].join('\n');
}
