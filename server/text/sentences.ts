import { splitBlocks } from './passage-blocks.ts';

/**
 * Splits a passage (the chunker's light markdown) into the sentences an
 * extractive answer may quote. Code blocks are never quoted: a fenced block
 * is skipped whole. A list item counts as one sentence without its `- `.
 * Sentences carrying a static-site generator's markup or a page's front
 * matter (left in the text by an ingester that did not remove it) are never
 * quotable, so they are not returned.
 */

/**
 * What a sentence is, as the answerer treats it:
 * - `prose`: a sentence of a paragraph;
 * - `list-item`: a list item in words;
 * - `option`: a sentence of a list item documenting a parameter, an option
 *   or a field: the item begins with a name in inline code
 *   (`` `filter` {Function} ... ``), a type in braces (`{number|bigint}`), a
 *   name and a type (`hint: {string} ...`), or `Returns:`/`Default:`/`Type:`;
 *   detail of an API, never an answer on its own;
 * - `status`: a status line of reference docs (`Stability: 1 - Experimental`,
 *   `Added in: v10.0.0`, `Deprecated since: ...`; the Kubernetes docs'
 *   `Feature state: Kubernetes v1.25 [stable]`, as
 *   ingest/parsing/hugo-shortcodes.ts renders their shortcode), which says
 *   nothing of what the API or the feature does.
 */
export type SentenceKind = 'prose' | 'list-item' | 'option' | 'status';

/** A quotable sentence and where it sits in its passage. */
export interface Sentence {
  text: string;
  /** 0-based position among the passage's sentences. */
  position: number;
  /** 0-based index of its block among the passage's blocks (code blocks counted). */
  block: number;
  kind: SentenceKind;
  /** For an `option` sentence, the name its item documents (`filter` of `` `filter` {Function} ... ``, `hint` of `hint: {string}`). */
  option?: string;
}

/**
 * Sentence boundary: `.`, `?` or `!` (optionally closed by a quote or
 * bracket), then whitespace, then something that can start a sentence. The
 * look-behind keeps common abbreviations ("e.g.", "i.e.", "etc.", "vs.") and
 * dotted names inside backticks from ending a sentence.
 */
const BOUNDARY = /(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx|Dr|Mr|Mrs|Ms|St|No|Fig))([.?!]["')\]]?)\s+(?=["'(\[`*]?[A-Z0-9`])/g;

/** A pronoun or determiner at the start of a sentence that points at something said before it ("It", "This", "These", ...). */
export const DANGLING_PRONOUN = /^(It|This|That|These|Those|They|Its|Their)\b/;

/** Longest sentence quoted, in characters; longer ones are cut at a word boundary with an ellipsis. */
export const MAX_SENTENCE_CHARACTERS = 400;

/** A list item that documents a parameter, option or field (see {@link SentenceKind}). */
const OPTION_ITEM = /^(?:`[^`]+`|\{[^}]+\}|(?:Returns|Default|Type):|[\w$.]+:?\s+\{[^}]+\})/;
/** The name an option item documents: its leading code span, or a leading word before a type. */
const OPTION_NAME = /^(?:`([^`]+)`|([\w$.]+):?\s+\{)/;
/** A status line of reference docs (see {@link SentenceKind}). */
const STATUS_LINE = /^(?:Stability|Added in|Deprecated since|Removed in|Introduced in|Feature state):/i;
/**
 * Markup of static-site generators: Hugo shortcodes (`{{< note >}}`,
 * `{{% x %}}`), Docusaurus/MkDocs admonition fences (`:::note`, `!!! note`),
 * MDX `import`/`export` lines and JSX component tags (`<Tabs>`).
 */
const GENERATOR_MARKUP = /\{\{[<%]|[>%]\}\}|^(?::::|!!!)|^(?:import|export)\s.+\sfrom\s|^<\/?[A-Z][\w.]*[\s/>]/;
/**
 * Keys of YAML/TOML front matter that Hugo, Jekyll, Docusaurus and MkDocs
 * pages commonly carry. A sentence holding two of them as `key:` is front
 * matter read as text, not prose.
 */
const FRONT_MATTER_KEY =
  /(?:^|\s)(?:title|linkTitle|description|content_type|weight|reviewers|aliases|date|slug|draft|id|short_description|sidebar_position|sidebar_label|layout|tags|categories|api_metadata|card|main_menu|no_list|feature):(?=\s|$)/g;

/**
 * @param passage chunk text: blocks separated by blank lines, code fenced with ```
 * @returns the quotable sentences in order
 */
export function splitSentences(passage: string): Sentence[] {
  const sentences: Sentence[] = [];
  splitBlocks(passage).forEach((block, blockIndex) => {
    if (block.kind === 'code') return;
    const isListItem = block.kind === 'list-item';
    const isOption = isListItem && OPTION_ITEM.test(block.text);
    const named = isOption ? OPTION_NAME.exec(block.text) : null;
    const option = named?.[1] ?? (named?.[2] !== undefined && !/^(?:Returns|Default|Type)$/.test(named[2]) ? named[2] : undefined);
    for (const piece of block.text.replace(BOUNDARY, '$1\u0000').split('\u0000')) {
      const text = clipAtWord(piece.replace(/\s+/g, ' ').trim(), MAX_SENTENCE_CHARACTERS);
      if (text.length <= 1 || !isQuotable(text)) continue;
      const kind: SentenceKind = isOption ? 'option' : STATUS_LINE.test(text) ? 'status' : isListItem ? 'list-item' : 'prose';
      sentences.push({ text, position: sentences.length, block: blockIndex, kind, ...(option !== undefined && { option }) });
    }
  });
  return sentences;
}

/** Whether a sentence is free of generator markup and front matter. */
function isQuotable(sentence: string): boolean {
  return !GENERATOR_MARKUP.test(sentence) && (sentence.match(FRONT_MATTER_KEY)?.length ?? 0) < 2;
}

/**
 * A text cut to at most `limit` characters, ellipsis included: cut at the
 * last space that leaves room for `…`, or mid-word when there is none.
 *
 * @returns the text itself when it is no longer than `limit`
 */
export function clipAtWord(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.lastIndexOf(' ', limit - 1);
  return `${text.slice(0, cut > 0 ? cut : limit - 1)}…`;
}
