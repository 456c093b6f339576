import { TITLE_SEPARATOR } from '../../../protocol/query-terms.ts';
import type { ScoredPassage } from '../../store/store.ts';

/**
 * Where a passage lies, as a reader is shown it: the readable name of its
 * section and the link to it. Citations carry both (api/wire-citations.ts);
 * an abstention names the sections that came near with them
 * (engine/abstention.ts).
 */

/**
 * The section's readable place: the document's title, then the section
 * headings below it, as plain text (inline code's backticks dropped), e.g.
 * "File system › fs.stat(path[, options], callback)"; empty when the
 * document has no title and the passage no heading.
 */
export function citationTitle(passage: Pick<ScoredPassage, 'title' | 'headingPath'>): string {
  const sections = passage.headingPath[0] === passage.title ? passage.headingPath.slice(1) : passage.headingPath;
  return [passage.title, ...sections]
    .map((part) => part.replace(/`/g, '').replace(/\s+/g, ' ').trim())
    .filter((part) => part !== '')
    .join(TITLE_SEPARATOR);
}

/**
 * The section's address on the published site: the page URL with the
 * section heading's anchor as fragment (the page URL alone for text before
 * the first heading); undefined when the knowledge base has no site URL.
 */
export function sectionUrl(passage: Pick<ScoredPassage, 'url' | 'anchor'>): string | undefined {
  if (passage.url === undefined) return undefined;
  return passage.anchor === undefined ? passage.url : `${passage.url}#${passage.anchor}`;
}
