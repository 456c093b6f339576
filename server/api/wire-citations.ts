import type { Citation } from '../../protocol/query-protocol.ts';
import type { EngineCitation } from '../engine/answer-events.ts';
import type { SourceSpanCodec } from '../engine/source-span.ts';

/**
 * Turns engine citations into wire citations (SPEC.md 2.3). `text` is set
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
    if (withQuotes && passage.quotable) citation.text = passage.text;
    return citation;
  });
}
