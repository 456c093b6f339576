/**
 * How removed site markup leaves its visible words behind: a tab's name, a
 * figure's caption, a glossary link's text. Shared by the Hugo, MDX and
 * admonition rewriting (site-markup.ts).
 */

/**
 * The text that replaces the markup at `source[start, end)`.
 *
 * Markup that stands alone on its line(s) - only whitespace before it on its
 * first line and after it on its last, as `{{% tab name="Linux" %}}` or
 * `<TabItem label="npm">` usually do - becomes a paragraph of its own at the
 * line's indentation (blank lines around it, so it neither joins the text
 * before it nor the text after it, and stays inside a list item it is
 * indented into). Markup inside a line of text (`a {{< glossary_tooltip
 * text="Pod" >}} runs`) is replaced by the text itself.
 *
 * @param label the visible text; `''` removes the markup and leaves nothing
 */
export function replacementFor(source: string, start: number, end: number, label: string): string {
  if (label === '') return '';
  const lineStart = source.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = source.indexOf('\n', end);
  const before = source.slice(lineStart, start);
  const after = source.slice(end, lineEnd === -1 ? source.length : lineEnd);
  if (before.trim() !== '' || after.trim() !== '') return label;
  return `\n${before}${label}\n\n${before}`;
}

/**
 * Replaces every match of a global pattern with {@link replacementFor} the
 * text `render` gives it.
 *
 * @param pattern a regular expression with the `g` flag
 * @param render the visible text of one match (`''`: none)
 */
export function replaceMarkup(source: string, pattern: RegExp, render: (match: RegExpExecArray) => string): string {
  let result = '';
  let position = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(source); match !== null; match = pattern.exec(source)) {
    const end = match.index + match[0].length;
    result += source.slice(position, match.index) + replacementFor(source, match.index, end, render(match));
    position = end;
    if (match[0] === '') pattern.lastIndex += 1;
  }
  return result + source.slice(position);
}

/** Words that only name a kind of callout ("Note", "Warning"): not worth keeping as a heading-like paragraph. */
const CALLOUT_KINDS = new Set([
  'note', 'notes', 'info', 'information', 'tip', 'tips', 'hint', 'important', 'warning', 'caution', 'danger', 'error',
  'attention', 'success', 'check', 'done', 'failure', 'fail', 'missing', 'bug', 'example', 'quote', 'cite', 'abstract',
  'summary', 'tldr', 'todo', 'question', 'help', 'faq', 'seealso', 'secondary', 'primary', 'experimental', 'deprecated',
]);

/**
 * A callout's title as a paragraph: kept when it says something ("Before
 * you upgrade"), dropped when it only names the kind of callout ("Note",
 * "warning:"), which every admonition syntax shows without it too.
 */
export function calloutTitle(title: string | undefined): string {
  const trimmed = (title ?? '').trim();
  return CALLOUT_KINDS.has(trimmed.toLowerCase().replace(/[:!.]+$/, '')) ? '' : trimmed;
}
