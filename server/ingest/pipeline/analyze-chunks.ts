import { indexPassages, type DocumentFields } from '../../retrieval/index-fields.ts';
import type { ChunkInput } from '../../store/store.ts';
import type { Chunk } from '../parsing/parsed-document.ts';

/**
 * Turns a document's chunks into the passages the store keeps, each with
 * its index entry (the term frequencies and lengths of its fields,
 * retrieval/index-fields.ts).
 *
 * @param document the document's title and description, indexed with every passage
 */
export function analyzeChunks(document: DocumentFields, chunks: readonly Chunk[]): ChunkInput[] {
  const indexes = indexPassages(document, chunks);
  return chunks.map((chunk, position) => ({
    headingPath: chunk.headingPath,
    ...(chunk.anchor === undefined ? {} : { anchor: chunk.anchor }),
    text: chunk.text,
    index: indexes[position]!,
  }));
}
