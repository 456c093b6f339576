/**
 * Hugo shortcodes (https://gohugo.io/content-management/shortcodes/) turned
 * into the text a reader of the built site sees, as far as it can be known
 * without the site's templates, data and configuration.
 */
import { calloutTitle, replacementFor } from './markup-replacement.ts';

/** One `{{< … >}}` or `{{% … %}}` tag. */
interface ShortcodeTag {
  start: number;
  end: number;
  name: string;
  /** `{{< /name >}}` */
  closing: boolean;
  /** `{{< name … />}}` */
  selfClosing: boolean;
  /** `key="value"` arguments. */
  named: Record<string, string>;
  /** Arguments without a key, in order. */
  positional: string[];
}

/**
 * Paired shortcodes whose content is not text for readers: a comment, the
 * source of a diagram. Dropped with their content.
 */
const DROPPED_WITH_CONTENT = new Set(['comment', 'mermaid']);

/**
 * Paired shortcodes whose content follows a visible label: the label is
 * kept as a paragraph before the content (a tab's name says which platform
 * its commands are for).
 */
const CONTENT_LABELS: Readonly<Record<string, (tag: Pick<ShortcodeTag, 'named' | 'positional'>) => string | undefined>> = {
  tab: (tag) => tag.named['name'] ?? tag.positional[0],
  details: (tag) => tag.named['summary'],
  table: (tag) => tag.named['caption'],
  alert: (tag) => calloutTitle(tag.named['title']),
  callout: (tag) => calloutTitle(tag.named['title']),
  admonition: (tag) => calloutTitle(tag.named['title']),
};

/**
 * Headings of the `heading` shortcode (Kubernetes' website and Docsy themes
 * write section headings through the site's translation files): the English
 * texts of kubernetes/website `data/i18n/en/en.toml`. Other keys are shown
 * as words (`"next_steps"` -> "Next steps").
 */
const HEADING_TEXTS: Readonly<Record<string, string>> = {
  prerequisites: 'Before you begin',
  whatsnext: "What's next",
  objectives: 'Objectives',
  cleanup: 'Cleaning up',
  synopsis: 'Synopsis',
  options: 'Options',
  parentoptions: 'Options inherited from parent commands',
  seealso: 'See Also',
  examples: 'Examples',
  envvars: 'Environment variables',
};

/**
 * Shortcodes without content whose visible text the tag itself holds. Every
 * other shortcode without content is dropped: those that pull in files
 * (`include`, `readfile`, `code_sample`, `codenew`, `code`, `remote-code`,
 * `api-reference`, `glossary_definition`, ...) or data, and those that
 * print site parameters (`param`, `skew`, `latest-version`), whose values
 * live in the site's configuration, not in the page.
 */
const INLINE_TEXTS: Readonly<Record<string, (tag: ShortcodeTag) => string>> = {
  // kubernetes/website: a glossary term with a tooltip; without `text`, the term's id.
  glossary_tooltip: (tag) => tag.named['text'] ?? tag.named['term_id'] ?? '',
  link: (tag) => tag.named['text'] ?? '',
  // Links to other pages: the target, so a markdown link around it stays a link.
  ref: (tag) => tag.positional[0] ?? tag.named['path'] ?? '',
  relref: (tag) => tag.positional[0] ?? tag.named['path'] ?? '',
  heading: (tag) => headingText(tag.positional[0] ?? ''),
  figure: (tag) => tag.named['caption'] ?? tag.named['title'] ?? tag.named['alt'] ?? '',
  // kubernetes/website: "FEATURE STATE: Kubernetes v1.25 [stable]".
  'feature-state': (tag) => {
    const version = tag.named['for_k8s_version'];
    const state = tag.named['state'];
    if (version === undefined || state === undefined) return '';
    return `Feature state: Kubernetes ${version.startsWith('v') ? version : `v${version}`} [${state}]`;
  },
};

const TAG = /\{\{(?:<([\s\S]*?)>|%([\s\S]*?)%)\}\}/g;
const TAG_PARTS = /^\s*(\/)?\s*([\w./-]+)([\s\S]*?)\s*(\/)?\s*$/;
const ARGUMENT = /([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`|'([^']*)'|(\S+))|"((?:[^"\\]|\\.)*)"|`([^`]*)`|(\S+)/g;

/**
 * Replaces Hugo shortcodes with their visible text:
 * - a paired shortcode (`{{< note >}}…{{< /note >}}`, `{{% tab name="Linux"
 *   %}}…{{% /tab %}}`) keeps its content, after its label for tabs,
 *   details, tables and titled alerts; `comment` and `mermaid` are dropped
 *   with their content;
 * - a shortcode without content becomes its text when the tag holds it
 *   (`glossary_tooltip text="Pod"` -> "Pod", `heading "whatsnext"` ->
 *   "What's next", `ref "x"` -> "x", `figure caption="…"`, `feature-state`)
 *   and is dropped otherwise (those that pull in files, data or site
 *   parameters);
 * - a closing tag without its opening tag is dropped.
 * Pairs are found by name, innermost first; nesting is allowed.
 *
 * Code must be protected beforehand (protected-code.ts): Hugo expands
 * shortcodes inside code too, but their output is unknown here, and code is
 * kept as written.
 *
 * @param text markdown with shortcodes
 * @returns the markdown without them
 */
export function renderHugoShortcodes(text: string): string {
  const tags = findTags(text);
  if (tags.length === 0) return text;
  return renderRange(text, tags, 0, tags.length, 0, text.length);
}

function findTags(text: string): ShortcodeTag[] {
  const tags: ShortcodeTag[] = [];
  TAG.lastIndex = 0;
  for (let match = TAG.exec(text); match !== null; match = TAG.exec(text)) {
    const parts = TAG_PARTS.exec(match[1] ?? match[2] ?? '');
    if (parts === null) continue;
    const { named, positional } = parseArguments(parts[3] ?? '');
    tags.push({
      start: match.index,
      end: match.index + match[0].length,
      name: parts[2]!,
      closing: parts[1] !== undefined,
      selfClosing: parts[4] !== undefined,
      named,
      positional,
    });
  }
  return tags;
}

/**
 * A `tab` shortcode's arguments (`name="Linux node" codelang="yaml"`), read as
 * {@link renderHugoShortcodes} reads them: the label it shows (the tab's
 * name) and the language of the code block the tab shows its content as,
 * when it has a `codelang` (site-markup.ts sets such content aside as code).
 *
 * @param argumentsText the tag's text after its name
 */
export function tabArguments(argumentsText: string): { label?: string; codeLanguage?: string } {
  const tag = parseArguments(argumentsText);
  const label = CONTENT_LABELS['tab']!(tag)?.trim();
  const codeLanguage = tag.named['codelang'];
  return { ...(label && { label }), ...(codeLanguage && { codeLanguage }) };
}

/** Hugo's argument forms: `key="value"`, `key='value'`, ``key=`raw` ``, `key=value`, and the same without keys. */
function parseArguments(text: string): { named: Record<string, string>; positional: string[] } {
  const named: Record<string, string> = {};
  const positional: string[] = [];
  ARGUMENT.lastIndex = 0;
  for (let match = ARGUMENT.exec(text); match !== null; match = ARGUMENT.exec(text)) {
    if (match[1] !== undefined) {
      named[match[1]] = unescapeQuoted(match[2]) ?? match[3] ?? match[4] ?? match[5] ?? '';
    } else {
      positional.push(unescapeQuoted(match[6]) ?? match[7] ?? match[8] ?? '');
    }
  }
  return { named, positional };
}

function unescapeQuoted(value: string | undefined): string | undefined {
  return value?.replace(/\\(.)/g, '$1');
}

/** Renders `text[from, to)`, whose shortcode tags are `tags[first, last)`. */
function renderRange(text: string, tags: readonly ShortcodeTag[], first: number, last: number, from: number, to: number): string {
  let result = '';
  let position = from;
  let index = first;
  while (index < last) {
    const tag = tags[index]!;
    result += text.slice(position, tag.start);
    const closeIndex = tag.closing || tag.selfClosing ? -1 : findClosing(tags, index, last);
    if (closeIndex === -1) {
      result += tag.closing ? '' : replacementFor(text, tag.start, tag.end, inlineText(tag));
      position = tag.end;
      index += 1;
      continue;
    }
    const close = tags[closeIndex]!;
    if (!DROPPED_WITH_CONTENT.has(tag.name)) {
      result += replacementFor(text, tag.start, tag.end, CONTENT_LABELS[tag.name]?.(tag)?.trim() ?? '');
      result += renderRange(text, tags, index + 1, closeIndex, tag.end, close.start);
    }
    position = close.end;
    index = closeIndex + 1;
  }
  return result + text.slice(position, to);
}

/** @returns the index of the tag that closes `tags[open]` (same name, nesting counted), or -1 */
function findClosing(tags: readonly ShortcodeTag[], open: number, last: number): number {
  const name = tags[open]!.name;
  let depth = 0;
  for (let index = open + 1; index < last; index += 1) {
    const tag = tags[index]!;
    if (tag.name !== name || tag.selfClosing) continue;
    if (!tag.closing) depth += 1;
    else if (depth === 0) return index;
    else depth -= 1;
  }
  return -1;
}

function inlineText(tag: ShortcodeTag): string {
  return INLINE_TEXTS[tag.name]?.(tag).trim() ?? '';
}

function headingText(key: string): string {
  const known = HEADING_TEXTS[key];
  if (known !== undefined) return known;
  const words = key.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
