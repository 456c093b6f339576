import type { Citation } from '../../protocol/query-protocol.ts';
import type { EngineCitation } from '../engine/answer-events.ts';
import { citationTitle, sectionUrl } from '../engine/passages/section-link.ts';
import type { SourceSpanCodec } from './source-span.ts';

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
    const url = sectionUrl(passage);
    if (url !== undefined) citation.url = url;
    if (withQuotes && passage.quotable) citation.text = passage.text;
    return citation;
  });
}
