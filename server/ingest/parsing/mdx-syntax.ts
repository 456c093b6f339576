/**
 * The parts of MDX (https://mdxjs.com/docs/what-is-mdx/) that are program,
 * not prose: ESM `import`/`export` statements, JSX component tags and
 * `{/* … *\/}` comments. Docusaurus reads `.md` files as MDX too.
 */
import { calloutTitle, replaceMarkup } from './markup-replacement.ts';

/**
 * An ESM statement at the start of a line: `import X from '…'`, `import
 * '…'`, `import {a, b} from …`, `export const …`, `export default …`,
 * `export function …`, `export {…}`. Plain prose ("Import the module…",
 * "export KUBECONFIG=…" inside code) does not match.
 */
const ESM_START = /^(?:import\s+(?:[\w*{$][^\n]*?\s*\bfrom\s*['"]|['"])|import\s*\{|export\s+(?:default\b|const\b|let\b|var\b|function\b|async\s+function\b|class\b|\{|\*))/;

/**
 * A JSX element tag of a component: its name starts with a capital letter
 * (`<Tabs>`, `<TabItem value="a" label="A">`, `</TabItem>`, `<Image … />`,
 * `<Foo.Bar>`); attributes may be quoted or `{expressions}` (one level of
 * braces). Lower-case tags are HTML, left to the HTML rules.
 */
const COMPONENT_TAG = /<(\/)?([A-Z][\w.]*)((?:\s(?:[^<>{}"'/]|\/(?!>)|"[^"]*"|'[^']*'|\{(?:[^{}]|\{[^{}]*\})*\})*)?)\s*(\/)?>/g;

const ATTRIBUTE = /([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`)\s*\})/g;

/** Components whose opening tag shows a label before their content, and the attribute holding it. */
const COMPONENT_LABELS: Readonly<Record<string, (attributes: Record<string, string>) => string | undefined>> = {
  TabItem: (attributes) => attributes['label'] ?? attributes['value'],
  Tab: (attributes) => attributes['label'] ?? attributes['title'],
  Details: (attributes) => attributes['summary'],
  Admonition: (attributes) => calloutTitle(attributes['title']),
  Callout: (attributes) => calloutTitle(attributes['title']),
};

/**
 * Removes MDX program syntax and keeps the prose:
 * - ESM blocks: from a line starting an `import`/`export` statement (see
 *   {@link ESM_START}) to the next blank line, as MDX reads them;
 * - `{/* … *\/}` comments;
 * - component tags, keeping their content; `<TabItem label="…">` and
 *   titled admonition components leave their label as a paragraph.
 *
 * Code must be protected beforehand (protected-code.ts).
 */
export function removeMdxSyntax(text: string): string {
  const withoutEsm = removeEsmBlocks(text);
  const withoutComments = withoutEsm.replace(/\{\s*\/\*[\s\S]*?\*\/\s*\}/g, '');
  return replaceMarkup(withoutComments, COMPONENT_TAG, (match) => {
    if (match[1] !== undefined || match[4] !== undefined) return '';
    const attributes = readAttributes(match[3] ?? '');
    return COMPONENT_LABELS[match[2]!]?.(attributes)?.trim() ?? '';
  });
}

function removeEsmBlocks(text: string): string {
  if (!/^(?:import|export)\b/m.test(text)) return text;
  const lines = text.split('\n');
  const kept: string[] = [];
  let inBlock = false;
  for (const line of lines) {
    if (line.trim() === '') inBlock = false;
    else if (!inBlock && ESM_START.test(line)) inBlock = true;
    // The line stays as an empty one: line numbers and blank-line structure around it are unchanged.
    kept.push(inBlock ? '' : line);
  }
  return kept.join('\n');
}

function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  ATTRIBUTE.lastIndex = 0;
  for (let match = ATTRIBUTE.exec(text); match !== null; match = ATTRIBUTE.exec(text)) {
    attributes[match[1]!] = match[2] ?? match[3] ?? match[4] ?? match[5] ?? match[6] ?? '';
  }
  return attributes;
}
