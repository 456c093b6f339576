/**
 * The `id` a documentation generator gives each heading of a page, so a
 * citation can link to the section (`…/volumes/#why-volumes-are-important`).
 */
import GithubSlugger, { slug as githubSlug } from 'github-slugger';
import type { AnchorStyle } from '../../store/store.ts';

/** A custom id written after a heading: `{#id}` (Hugo, Docusaurus, kramdown) or `{: #id}` (MkDocs attr_list). */
const CUSTOM_ID = /\s*\{:?\s*#([^\s}]+)[^}]*\}\s*$/;

/** A heading's text without a custom-id attribute at its end (`Install {#setup}` -> `Install`). */
export function withoutCustomId(text: string): string {
  const custom = CUSTOM_ID.exec(text);
  return custom === null ? text : text.slice(0, custom.index).trim();
}

/** A heading's text without its custom-id attribute, and its anchor. */
export interface AnchoredHeading {
  text: string;
  /** The heading's id on the built page; undefined when its text has no character a slug keeps. */
  anchor?: string;
}

/**
 * Gives the headings of one page their ids, in document order (the order
 * decides which repeat gets a suffix). Make one per page.
 *
 * Styles (store/workspace/workspace.ts `AnchorStyle`):
 * - `github`: GitHub's slugs (lower case, punctuation removed, spaces to
 *   `-`), a repeated heading gets `-1`, `-2`, … (github-slugger; the ids
 *   Hugo's goldmark `autoHeadingIDType = "github"`, Docusaurus and GitHub
 *   give);
 * - `node`: the Node.js API docs' generator (tools/doc of nodejs/node, as
 *   published on nodejs.org for v18): the same slugs, but a repeated
 *   heading gets `_1`, `_2`, … (`event-close`, `event-close_1`). Checked
 *   against every link between the bundled Node.js v18 pages.
 */
export class HeadingAnchors {
  readonly #style: AnchorStyle;
  readonly #slugger = new GithubSlugger();
  /** `node` style: how often each slug was made, and every id given out. */
  readonly #counts = new Map<string, number>();
  readonly #taken = new Set<string>();

  constructor(style: AnchorStyle = 'github') {
    this.#style = style;
  }

  /**
   * @param text the heading's plain text (inline code may keep its
   *   backticks: slugs drop them), possibly ending in a custom id
   *   `{#custom-id}`, which is then the anchor as written
   */
  anchor(text: string): AnchoredHeading {
    const custom = CUSTOM_ID.exec(text);
    if (custom !== null) {
      // Taken: a later heading whose slug is the same gets a suffix (goldmark's and github-slugger's rule).
      this.#register(custom[1]!);
      return { text: text.slice(0, custom.index).trim(), anchor: custom[1]! };
    }
    const anchor = this.#style === 'github' ? this.#slugger.slug(text) : this.#nodeSlug(text);
    return anchor === '' ? { text } : { text, anchor };
  }

  #nodeSlug(text: string): string {
    const base = githubSlug(text);
    let count = this.#counts.get(base) ?? 0;
    let anchor = count === 0 ? base : `${base}_${count}`;
    while (this.#taken.has(anchor)) anchor = `${base}_${++count}`;
    this.#counts.set(base, count + 1);
    this.#taken.add(anchor);
    return anchor;
  }

  #register(id: string): void {
    if (this.#style === 'github') this.#slugger.slug(id);
    else this.#taken.add(id);
  }
}
