/**
 * The shape every source parser (markdown, HTML, plain text) produces and the
 * chunker consumes: a document as a title and a list of sections, each with
 * the heading path that leads to it and its blocks in order.
 */

import type { FrontMatter } from './front-matter.ts';

/** One block of a section. */
export interface Block {
  /**
   * `paragraph`: prose; `list-item`: one item of a list (nested items are
   * separate blocks); `code`: a code block; `table`: a table as text rows.
   */
  kind: 'paragraph' | 'list-item' | 'code' | 'table';
  /**
   * The block's text. Prose keeps inline code as `` `code` `` and drops other
   * markup (links keep their text, emphasis its content, images and HTML
   * comments are removed). Code keeps its lines verbatim without fences.
   * Table rows are cells joined by ` | `, one row per line.
   */
  text: string;
}

export interface Section {
  /** Heading texts from the document title (level 1) down to this section. Never empty. */
  headingPath: string[];
  /**
   * The id of the heading the section starts at, as the site's generator
   * makes it (`why-volumes-are-important`, heading-anchors.ts), for links
   * to `page#anchor`; absent for text before the first heading and for
   * formats without headings.
   */
  anchor?: string;
  blocks: Block[];
}

export interface ParsedDocument {
  /**
   * Front matter `title`, else `linkTitle`, else the first level-1 heading
   * (HTML: `<h1>`, else `<title>`), else the fallback title.
   */
  title: string;
  /** Front matter `description` (HTML: `<meta name="description">`); absent when the page has none. */
  description?: string;
  /** The page's front matter fields (URL, publication); absent for formats without front matter (HTML, text). */
  frontMatter?: FrontMatter;
  /** Sections in document order; sections without blocks are omitted. */
  sections: Section[];
}

/** A passage cut from a section, ready to analyze and index. */
export interface Chunk {
  headingPath: string[];
  /** The section's anchor (see {@link Section.anchor}). */
  anchor?: string;
  /**
   * Blocks joined by a blank line; code blocks fenced with ``` lines and list
   * items prefixed with `- `, so the answerer can tell prose from code.
   */
  text: string;
}
