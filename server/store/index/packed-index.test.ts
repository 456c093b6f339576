import { describe, expect, test } from 'vitest';
import { analyzeChunks } from '../../ingest/pipeline/analyze-chunks.ts';
import { INDEX_ANALYSIS_VERSION, indexPage } from '../../retrieval/index-fields.ts';
import { FIELD_COUNT, PAGE_FIELD_COUNT } from './index-data.ts';
import { fromWire, packedPostingsOf, toWire } from './packed-index.ts';
import { packSegment, type SegmentUnit } from './segment-codec.ts';
import type { DocumentInput } from '../store.ts';

/** A document of three passages (one repeating another's words), analyzed as ingest analyzes it. */
function documentInput(): DocumentInput {
  const title = 'File system';
  const texts = [
    { headingPath: [title], text: 'The `fs` module reads and writes files.' },
    { headingPath: [title, '`fs.mkdir(path[, options], callback)`'], text: 'Creates a directory. Pass `recursive: true` to create parent directories, directories and all.' },
    { headingPath: [title, '`fs.readFile(path[, options], callback)`'], text: 'Reads the entire contents of a file.' },
  ];
  return {
    kbId: 'kb',
    docId: 'fs.md',
    title,
    description: 'Files and directories',
    visibility: 'public',
    readers: [],
    quotable: true,
    contentHash: 'hash',
    analysisVersion: INDEX_ANALYSIS_VERSION,
    chunks: analyzeChunks({ title, description: 'Files and directories' }, texts),
    page: indexPage('fs.md', { title, description: 'Files and directories' }, texts),
  };
}

/** Units of a segment from a document's passages (ids from 100) or its page (id 7), maps or packed arrays as given. */
function unitsOf(input: DocumentInput, kind: 'passages' | 'page'): SegmentUnit[] {
  const indexes = kind === 'passages' ? input.chunks.map((chunk) => chunk.index) : [input.page];
  return indexes.map((index, position) => {
    const packed = packedPostingsOf(index);
    const unit = { unitId: kind === 'passages' ? 100 + position : 7, documentId: 7, lengths: index.lengths };
    return packed ? { ...unit, terms: new Map(), packed } : { ...unit, terms: index.terms };
  });
}

describe('packed document index', () => {
  test('flattened, copied between threads (a structured clone) and wrapped: every passage and the page have the same terms, counts and lengths', () => {
    const input = documentInput();

    const received = fromWire(structuredClone(toWire(input)));

    expect(received.chunks.map(({ index, ...chunk }) => ({ ...chunk, terms: index.terms, lengths: index.lengths }))).toEqual(
      input.chunks.map(({ index, ...chunk }) => ({ ...chunk, terms: index.terms, lengths: index.lengths })),
    );
    expect({ terms: received.page.terms, lengths: received.page.lengths }).toEqual({ terms: input.page.terms, lengths: input.page.lengths });
    const { chunks: _chunks, page: _page, ...document } = received;
    const { chunks: _sent, page: _sentPage, ...sentDocument } = input;
    expect(document).toEqual(sentDocument);
    expect(received.chunks[1]!.index.terms.get('recurs')).toEqual([0, 0, 0, 1]);
  });

  test('a segment packed from the flat arrays is byte for byte the one packed from the maps, for passages and the page', () => {
    const input = documentInput();
    const received = fromWire(structuredClone(toWire(input)));

    for (const [kind, fieldCount] of [['passages', FIELD_COUNT], ['page', PAGE_FIELD_COUNT]] as const) {
      const fromMaps = packSegment(fieldCount, unitsOf(input, kind));
      const fromArrays = packSegment(fieldCount, unitsOf(received, kind));
      expect(unitsOf(received, kind).every((unit) => unit.packed !== undefined)).toBe(true);
      const byTerm = (segment: typeof fromMaps) => new Map(segment.terms.map((term, index) => [term, segment.postings[index]!.toString('hex')]));
      expect(byTerm(fromArrays)).toEqual(byTerm(fromMaps));
      expect(fromArrays.postingCount).toBe(fromMaps.postingCount);
    }
  });
});
