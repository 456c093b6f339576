import type { Citation } from '../../protocol/query-protocol.ts';
import { TITLE_SEPARATOR } from '../../protocol/query-terms.ts';
import type { EngineCitation } from '../engine/answer-events.ts';
import type { SourceSpanCodec } from './source-span.ts';
import type { ScoredPassage } from '../store/store.ts';

/**
 * Turns engine citations into wire citations (docs/specification.md "Citation",
 * with the additive `title` and `url`: the place's
 * readable name, and the page URL with the section's anchor when the
 * knowledge base has a site URL; each omitted when empty). `text` is set
 * only when `withQuotes` (streamed frames) and the passage is quotable.
 */
export function toWireCitations(
  citations: readonly EngineCitation[],
  codec: SourceSpanCodec,
  withQuotes: boolean,
): Citation[] {
  return citations.map(({ index, passage }) => {
    const citation: Citation = {
      index,
      doc_id: passage.docId,
      kb_id: passage.kbId,
      source_span: codec.encode({
        kbId: passage.kbId,
        docId: passage.docId,
        chunkId: passage.chunkId,
        version: passage.contentHash,
      }),
    };
    const title = citationTitle(passage);
    if (title !== '') citation.title = title;
    if (passage.url !== undefined) citation.url = passage.anchor === undefined ? passage.url : `${passage.url}#${passage.anchor}`;
    if (withQuotes && passage.quotable) citation.text = passage.text;
    return citation;
  });
}

/**
 * A citation's readable place: the document's title, then the section
 * headings below it, as plain text (inline code's backticks dropped), e.g.
 * "File system › fs.stat(path[, options], callback)".
 */
export function citationTitle(passage: Pick<ScoredPassage, 'title' | 'headingPath'>): string {
  const sections = passage.headingPath[0] === passage.title ? passage.headingPath.slice(1) : passage.headingPath;
  return [passage.title, ...sections]
    .map((part) => part.replace(/`/g, '').replace(/\s+/g, ' ').trim())
    .filter((part) => part !== '')
    .join(TITLE_SEPARATOR);
}
