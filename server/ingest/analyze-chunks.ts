import { analyze, termFrequencies } from '../engine/analyzer.ts';
import type { ChunkInput } from '../store/store.ts';
import type { Chunk } from './parsed-document.ts';

/**
 * Analyzes chunks for the index: term frequencies and lengths of the text and
 * of the heading path, with the one analyzer of the engine.
 */
export function analyzeChunks(chunks: readonly Chunk[]): ChunkInput[] {
  return chunks.map((chunk) => {
    const bodyTerms = analyze(chunk.text);
    const headingTerms = analyze(chunk.headingPath.join('\n'));
    return {
      headingPath: chunk.headingPath,
      ...(chunk.anchor === undefined ? {} : { anchor: chunk.anchor }),
      text: chunk.text,
      bodyTerms: termFrequencies(bodyTerms),
      headingTerms: termFrequencies(headingTerms),
      bodyLength: bodyTerms.length,
      headingLength: headingTerms.length,
    };
  });
}
