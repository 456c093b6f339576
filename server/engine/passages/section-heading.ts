/**
 * What a section heading of documentation says about its section. API
 * reference pages (Node.js, Python, Javadoc-style generators) head each
 * section with the API itself: a signature (`` `fs.stat(path[, options], callback)` ``),
 * a property (`` `stats.size` ``), a command-line flag, or a labelled name
 * (`` Class: `fs.Stats` ``, `` Event: `'exit'` ``). Guides head theirs with the
 * task (`Configure a Pod to use a ConfigMap`). The answerer leads with such a
 * heading (engine/extractive/extractive-answerer.ts), the second ranking stage weighs a
 * question's match with its subject (engine/ranking/passage-rerank.ts), and follow-up
 * suggestions are phrased from it (engine/suggestions.ts).
 */

/** How a heading names its section's subject. */
export type HeadingKind =
  /** A call signature: `` `fs.stat(path[, options], callback)` ``, `` `new URL(input)` ``. */
  | 'signature'
  /** A label and a name: `` Class: `fs.Stats` ``, `` Event: `'exit'` ``, `` Static method: `Buffer.from()` ``. */
  | 'labelled'
  /**
   * Names in inline code that are not one call: `` `stats.size` ``,
   * `` `--watch` ``, `` `-c`, `--check` ``, `` `dns.resolve()` and `dns.reverse()` ``.
   */
  | 'code'
  /** Words: a topic or a task (`Caveats`, `Read file stream line-by-line`). */
  | 'prose';

/** A heading read by {@link readHeading}. */
export interface SectionHeading {
  kind: HeadingKind;
  /** The heading as the answer shows it: code kept in (or put into) backticks, a custom heading id (`{#id}`) dropped, whitespace collapsed. */
  text: string;
  /**
   * What the section is about, without a signature's parameter list or a
   * label: `fs.stat`, `fs.Stats`, `'exit'`, `stats.size`; a prose heading is
   * its own subject.
   */
  subject: string;
  /** For a `labelled` heading, its label as written (`Class`, `Event`, ...). */
  label?: string;
}

/** A custom heading id (`## Adding nodes {#join-nodes}`: Hugo, MkDocs attr_list, Docusaurus): generator markup, not shown. */
const HEADING_ID = /\s*\{#[^}]*\}\s*$/;
/** Labels API reference generators put before a name (Node.js docs, JSDoc and TypeDoc pages). */
const LABEL = /^(Class|Event|Interface|Static method|Module|Method|Property|Function|Type|Enum|Namespace):\s*(.+)$/i;
/** A call: a dotted name (optionally after `new`) then a parenthesised parameter list, nothing after. */
const SIGNATURE = /^(?:new\s+)?([\w$.[\]'"]+?)\s*\(.*\)$/s;
/** An inline code span. */
const CODE_SPAN = /`([^`]+)`/g;
/** What may stand between the names of a heading that names several (`` `-c`, `--check` ``, `` `a()` and `b()` ``): punctuation, "and"/"or"/"vs.", a remark in parentheses. */
const BETWEEN_NAMES = /\([^)]*\)|\b(?:and|or|vs)\b|[\s,./&|-]/g;
/** One inline code span and nothing else. */
const WHOLE_CODE_SPAN = /^`([^`]+)`$/;

/**
 * @param heading a heading as the ingester stores it (inline code kept in backticks)
 * @returns its kind, its display text and its subject
 */
export function readHeading(heading: string): SectionHeading {
  const text = heading.replace(HEADING_ID, '').replace(/\s+/g, ' ').trim();
  const labelled = LABEL.exec(text);
  if (labelled) {
    const name = labelled[2]!.trim();
    return { kind: 'labelled', text, subject: nameOf(unquoteCode(name)), label: labelled[1]! };
  }
  const inner = unquoteCode(text);
  const signature = SIGNATURE.exec(inner);
  // A bare call written without backticks counts only when it has no spaces before the parenthesis ("Hello world (part 2)" is prose).
  if (signature && (inner !== text || /^[\w$.]+\(/.test(inner))) {
    return { kind: 'signature', text: inner === text ? `\`${text}\`` : text, subject: signature[1]! };
  }
  if (WHOLE_CODE_SPAN.test(text)) return { kind: 'code', text, subject: inner };
  const spans = [...text.matchAll(CODE_SPAN)].map((match) => match[1]!);
  if (spans.length > 0 && text.replace(CODE_SPAN, ' ').replace(BETWEEN_NAMES, '').trim() === '') {
    return { kind: 'code', text, subject: spans.map(nameOf).join(' ') };
  }
  return { kind: 'prose', text, subject: text };
}

/** Whether the heading names an API (anything but prose). */
export function namesApi(heading: SectionHeading): boolean {
  return heading.kind !== 'prose';
}

/** Whether two heading paths are equal (the same section, when of the same document). */
export function sameHeadingPath(headingPath: readonly string[], other: readonly string[]): boolean {
  return headingPath.length === other.length && headingPath.every((heading, index) => heading === other[index]);
}

/** The text inside one whole inline code span, else the text itself. */
function unquoteCode(text: string): string {
  return WHOLE_CODE_SPAN.exec(text)?.[1] ?? text;
}

/** A signature's name without its parameter list; other text unchanged. */
function nameOf(text: string): string {
  return SIGNATURE.exec(text)?.[1] ?? text;
}
