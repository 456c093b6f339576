/**
 * Callout blocks of documentation generators, reduced to their content:
 * Docusaurus (`:::note Title` … `:::`) and MkDocs (`!!! note "Title"` with
 * an indented body, Python-Markdown's admonition extension; `???`
 * collapsible blocks and `=== "Tab"` content tabs of pymdownx).
 */
import { calloutTitle } from './markup-replacement.ts';

/**
 * `:::type`, `:::type Title`, `:::type[Title]` or `:::type{title="Title"}`,
 * three or more colons (more for nesting), alone on its line
 * (https://docusaurus.io/docs/markdown-features/admonitions).
 */
const DOCUSAURUS_OPENING = /^(\s*):{3,}[ \t]*([A-Za-z][\w-]*)(?:\[([^\]]*)\]|\{[^}]*?title\s*=\s*"([^"]*)"[^}]*\}|[ \t]+(.+?))?[ \t]*$/;
const DOCUSAURUS_CLOSING = /^\s*:{3,}[ \t]*$/;

/**
 * `!!! type`, `!!! type "Title"`, `??? type …` / `???+ type …`, and
 * pymdownx content tabs `=== "Tab"` (optionally `===!` / `===+`)
 * (https://python-markdown.github.io/extensions/admonition/,
 * https://facelessuser.github.io/pymdown-extensions/extensions/tabbed/).
 */
const MKDOCS_OPENING = /^(\s*)(?:(?:!!!|\?\?\?\+?)[ \t]+([\w-]+)(?:[ \t]+[\w-]+)*(?:[ \t]+"([^"]*)")?|===[!+]?[ \t]+"([^"]*)")[ \t]*$/;

/** A line that may open or close a block: most pages have none, and are returned as they are. */
const ANY_OPENING = /^[ \t]*(?::::|!!!|\?\?\?|===)/m;

/** How far an MkDocs block's body is indented beyond its opening line. */
const MKDOCS_BODY_INDENT = 4;

/**
 * Replaces admonition syntax by its content:
 * - Docusaurus: the opening line becomes the title as its own paragraph
 *   (nothing when the title only names the kind, "Note"), the closing
 *   `:::` line disappears, the content is left as it is;
 * - MkDocs: the opening line becomes the title likewise (a content tab
 *   keeps its name), and the body (the following lines indented four
 *   spaces more than the opening line, blank lines included) is dedented by
 *   four spaces, so it reads as ordinary markdown; nested blocks are
 *   handled the same way.
 *
 * Works line by line; code must be protected beforehand (protected-code.ts).
 */
export function removeAdmonitions(text: string): string {
  if (!ANY_OPENING.test(text)) return text;
  const lines = text.split('\n');
  const result: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const docusaurus = DOCUSAURUS_OPENING.exec(line);
    if (docusaurus !== null) {
      result.push(...titleLines(docusaurus[1]!, calloutTitle(docusaurus[3] ?? docusaurus[4] ?? docusaurus[5])));
      continue;
    }
    if (DOCUSAURUS_CLOSING.test(line)) {
      result.push('');
      continue;
    }
    const mkdocs = MKDOCS_OPENING.exec(line);
    if (mkdocs !== null) {
      const indentation = mkdocs[1]!;
      const title = mkdocs[4] !== undefined ? mkdocs[4].trim() : calloutTitle(mkdocs[3]);
      result.push(...titleLines(indentation, title));
      dedentBody(lines, index + 1, indentation.length);
      continue;
    }
    result.push(line);
  }
  return result.join('\n');
}

/** The title as a paragraph at the block's indentation, blank lines around it; one blank line without a title. */
function titleLines(indentation: string, title: string): string[] {
  return title === '' ? [''] : ['', `${indentation}${title}`, ''];
}

/**
 * Removes {@link MKDOCS_BODY_INDENT} columns after the opening line's
 * indentation from the body lines starting at `first`, in place. The body
 * ends before the first non-blank line indented less than that.
 */
function dedentBody(lines: string[], first: number, openingIndent: number): void {
  const bodyIndent = openingIndent + MKDOCS_BODY_INDENT;
  for (let index = first; index < lines.length; index += 1) {
    const line = lines[index]!.replace(/^(\s*)\t/, (_match, spaces: string) => spaces + ' '.repeat(MKDOCS_BODY_INDENT));
    if (line.trim() === '') continue;
    if (/^\s*/.exec(line)![0].length < bodyIndent) return;
    lines[index] = line.slice(0, openingIndent) + line.slice(bodyIndent);
  }
}
