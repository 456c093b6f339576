import { describe, expect, test } from 'vitest';
import {
  DOCUMENT_SHARE_DEPTH,
  HEADING_WEIGHT,
  PAIR_WEIGHT,
  SENTENCE_SIMILARITY_WEIGHT,
  SENTENCE_WEIGHT,
  UNOBSERVED_DOCUMENT_SHARE,
  WINDOW_WEIGHT,
  rerankPassages,
  retrievePassages,
} from './passage-rerank.ts';
import { RERANK_DEPTH } from '../../retrieval/retrieval-plan.ts';
import type { RetrievalQuery, SearchResult } from '../../retrieval/retriever.ts';
import type { ScoredPassage } from '../../store/store.ts';
import type { RetrievalSources } from './passage-rerank.ts';

function passageOf(chunkId: number, text: string, score: number, headingPath = ['Guide'], docId = `doc-${chunkId}.md`): ScoredPassage {
  return { chunkId, kbId: 'kb', docId, title: 'Guide', headingPath, text, quotable: true, contentHash: `hash-${chunkId}`, score };
}

/** Every question term with the same document frequency, so each weighs the same. */
function searchOf(passages: ScoredPassage[], terms: string[]): SearchResult {
  return { passages, passageCount: 10, documentFrequencies: Object.fromEntries(terms.map((term) => [term, 2])) };
}

describe('rerankPassages', () => {
  test('question terms side by side in one sentence beat a higher BM25 score with the terms scattered', () => {
    // Question: creat, directori (equal weights).
    // Scattered (BM25 10): 1 + 0.5 * 0.5 (best sentence holds one term) + 0.5 * 0.5 (no window of 10 terms holds both) + 1 * 0 = 1.5.
    // Adjacent (BM25 9): 0.9 + 0.5 * 1 + 0.5 * 1 + 1 * 1 = 2.9.
    const filler = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda';
    const scattered = passageOf(1, `Directories hold files. ${filler}. Files are created later.`, 10);
    const adjacent = passageOf(2, 'Use mkdir to create directories.', 9);
    const terms = ['creat', 'directori'];

    const ranked = rerankPassages(terms, searchOf([scattered, adjacent], terms));

    expect(ranked.passages).toEqual([adjacent, scattered]);
    expect(SENTENCE_WEIGHT + WINDOW_WEIGHT + PAIR_WEIGHT).toBe(2);
    expect(ranked.relevance[0]).toBe(1);
    expect(ranked.relevance[1]).toBeCloseTo(1.5 / 2.9, 10);
  });

  test('passages of equal relevance: BM25 order kept, scores unchanged', () => {
    const first = passageOf(1, 'Nothing to see here.', 4);
    const second = passageOf(2, 'Nothing to see here either.', 4);

    const ranked = rerankPassages(['stream'], searchOf([first, second], ['stream']));

    expect(ranked.passages).toEqual([first, second]);
    expect(ranked.passages.map((passage) => passage.score)).toEqual([4, 4]);
    expect(ranked.relevance).toEqual([1, 1]);
  });

  test('question term only in the heading path: counts at half weight in the best sentence', () => {
    // Question: mkdir, permiss. Body-only (BM25 5): 1 + 0.5 * 0.5 + 0.5 * 0.5 = 1.5.
    // Headed (BM25 5, later): 1 + 0.5 * (0.5 + 0.5 * 0.5) + 0.5 * 0.5 = 1.625.
    const bodyOnly = passageOf(1, 'Permissions come from the umask.', 5, ['Processes']);
    const headed = passageOf(2, 'Permissions of the new folder.', 5, ['`fs.mkdir(path)`']);
    const terms = ['mkdir', 'permiss'];

    const ranked = rerankPassages(terms, searchOf([bodyOnly, headed], terms));

    expect(ranked.passages).toEqual([headed, bodyOnly]);
    expect(ranked.relevance[1]).toBeCloseTo(1.5 / 1.625, 10);
  });

  test('section heading naming the question\'s term: its subject share adds HEADING_WEIGHT x that share', () => {
    // Question: renam, file. Both passages hold both terms in one sentence, side by side, equal BM25:
    // 1 + 0.5 + 0.5 + 1 each; the one headed `path.rename(...)` adds 0.5 x 0.5 (its subject holds renam, not file).
    const plain = passageOf(1, 'Rename file quickly.', 5, ['File system', 'Notes']);
    const headed = passageOf(2, 'Rename file quickly.', 5, ['File system', '`path.rename(oldPath, newPath)`']);
    const terms = ['renam', 'file'];

    const ranked = rerankPassages(terms, searchOf([plain, headed], terms));

    expect(ranked.passages).toEqual([headed, plain]);
    expect(ranked.relevance[1]).toBeCloseTo(3 / (3 + HEADING_WEIGHT * 0.5), 10);
  });

  test('section heading naming an abbreviation of the question\'s other term: both count', () => {
    // `fs` stands for "file system": the subject `fs.rename` holds renam and file, share 1.
    const plain = passageOf(1, 'Rename file quickly.', 5, ['File system', 'Notes']);
    const headed = passageOf(2, 'Rename file quickly.', 5, ['File system', '`fs.rename(oldPath, newPath)`']);
    const terms = ['renam', 'file'];

    const ranked = rerankPassages(terms, searchOf([plain, headed], terms));

    expect(ranked.passages).toEqual([headed, plain]);
    expect(ranked.relevance[1]).toBeCloseTo(3 / (3 + HEADING_WEIGHT * 1), 10);
  });

  test('passage directly under the document title: its title is no section heading, adds nothing', () => {
    const titled = passageOf(1, 'Rename file quickly.', 5, ['Rename']);
    const other = passageOf(2, 'Rename file quickly.', 5, ['Guide']);
    const terms = ['renam', 'file'];

    const ranked = rerankPassages(terms, searchOf([titled, other], terms));

    expect(ranked.relevance).toEqual([1, 1]);
  });

  test('no passages: an empty result with its statistics', () => {
    const ranked = rerankPassages(['stream'], searchOf([], ['stream']));

    expect(ranked).toEqual({ passages: [], passageCount: 10, documentFrequencies: { stream: 2 }, relevance: [], documentShare: 0, otherPages: { similarity: 0, documentSimilarity: 0 } });
  });

  test('documentShare: the share of the relevance of the first passages held by the first passage\'s document', () => {
    // Equal relevance (same text, same score): the first passage's document holds 2 of the 4.
    const passages = [1, 2, 3, 4].map((chunkId) => passageOf(chunkId, 'Streams.', 5, ['Guide'], chunkId % 2 === 1 ? 'streams.md' : `other-${chunkId}.md`));

    const ranked = rerankPassages(['stream'], searchOf(passages, ['stream']));

    expect(ranked.documentShare).toBe(0.5);
  });

  test(`documentShare: passages beyond the first ${DOCUMENT_SHARE_DEPTH} not counted, so top-k does not change it`, () => {
    const passages = Array.from({ length: 12 }, (_, index) =>
      passageOf(index + 1, 'Streams.', 5, ['Guide'], index < DOCUMENT_SHARE_DEPTH ? 'streams.md' : `other-${index}.md`),
    );

    const ranked = rerankPassages(['stream'], searchOf(passages, ['stream']));

    expect(ranked.documentShare).toBe(1);
  });
});

describe('rerankPassages with sentence similarities', () => {
  /** A passage of `docId` with equal text (equal relevance but for BM25) and its best sentence's similarity. */
  const sentenced = (chunkId: number, score: number, docId: string, sentenceSimilarity?: number): ScoredPassage => ({
    ...passageOf(chunkId, 'Directories hold files.', score, ['Guide'], docId),
    similarity: 0.5,
    ...(sentenceSimilarity === undefined ? {} : { sentenceSimilarity }),
  });

  test("the first page's passage whose sentence says what was asked comes first; the other pages keep their places, the relevance its positions", () => {
    // BM25 10, 9, 8, 7: relevance shares fall from 1; fs.md holds positions 0 and 2, path.md 1 and 3.
    const general = sentenced(1, 10, 'fs.md', 0.2);
    const other = sentenced(2, 9, 'path.md', 0.9);
    const answering = sentenced(3, 8, 'fs.md', 0.8);
    const last = sentenced(4, 7, 'path.md', 0.1);
    const terms = ['directori'];
    const withoutSentences = [general, other, answering, last].map(({ sentenceSimilarity: _dropped, ...passage }) => passage);
    const plain = rerankPassages(terms, searchOf(withoutSentences, terms));
    expect(plain.passages.map((passage) => passage.chunkId)).toEqual([1, 2, 3, 4]);
    expect(plain.relevance[0]! - plain.relevance[2]!).toBeLessThan(SENTENCE_SIMILARITY_WEIGHT * (0.8 - 0.2));

    const ranked = rerankPassages(terms, searchOf([general, other, answering, last], terms));

    expect(ranked.passages.map((passage) => passage.chunkId)).toEqual([3, 2, 1, 4]);
    expect(ranked.relevance).toEqual(plain.relevance);
    expect(ranked.documentShare).toBe(plain.documentShare);
  });

  test("a sentence far closer than the first page's, on another page: not moved ahead of the first page", () => {
    const first = sentenced(1, 10, 'fs.md', 0.1);
    const other = sentenced(2, 9, 'path.md', 0.95);
    const terms = ['directori'];

    const ranked = rerankPassages(terms, searchOf([first, other], terms));

    expect(ranked.passages.map((passage) => passage.chunkId)).toEqual([1, 2]);
  });

  test('without sentence similarities (no dense retrieval): the relevance order', () => {
    const terms = ['directori'];
    const passages = [passageOf(1, 'Directories hold files.', 10, ['Guide'], 'fs.md'), passageOf(2, 'Directories hold files.', 9, ['Guide'], 'fs.md')];

    expect(rerankPassages(terms, searchOf(passages, terms)).passages.map((passage) => passage.chunkId)).toEqual([1, 2]);
  });

  test("a passage of the first page with no quotable sentence counts 0 and falls behind one whose sentence is near", () => {
    const code = sentenced(1, 10, 'fs.md');
    const prose = sentenced(2, 9.5, 'fs.md', 0.4);
    const terms = ['directori'];

    expect(rerankPassages(terms, searchOf([code, prose], terms)).passages.map((passage) => passage.chunkId)).toEqual([2, 1]);
  });
});

describe('retrievePassages', () => {
  function storeReturning(result: SearchResult, documentPassages = 3): RetrievalSources & { queries: RetrievalQuery[]; counted: string[] } {
    const queries: RetrievalQuery[] = [];
    const counted: string[] = [];
    return {
      queries,
      counted,
      retriever: { search: async (query) => (queries.push(query), result) },
      store: { countPassages: async (_reach, docId) => (counted.push(docId), documentPassages) },
    };
  }

  test('top-k 2 of 3 passages: BM25 asked for RERANK_DEPTH, the first two after re-ranking returned', async () => {
    const terms = ['creat', 'directori'];
    const weak = passageOf(1, 'Directories exist. Something was created.', 9);
    const strong = passageOf(2, 'Create directories with mkdir.', 8);
    const other = passageOf(3, 'Unrelated text.', 7);
    const store = storeReturning(searchOf([weak, strong, other], terms));
    const reach = { kbId: 'kb', userId: 'user-1', visibilities: ['public' as const] };

    const result = await retrievePassages(store, reach, terms, 2);

    expect(store.queries).toEqual([{ reach, terms, topK: RERANK_DEPTH }]);
    expect(result.passages).toEqual([strong, weak]);
    expect(result.relevance).toHaveLength(2);
    expect(result.terms).toEqual(terms);
  });

  test('first passage its document\'s only passage: documentShare is the imputed mean, else the observed share', async () => {
    // Two equally relevant passages of different documents: observed share 0.5.
    const terms = ['stream'];
    const passages = [passageOf(1, 'Streams.', 5), passageOf(2, 'Streams.', 5)];
    const reach = { kbId: 'kb', userId: 'user-1', visibilities: ['public' as const] };

    const single = await retrievePassages(storeReturning(searchOf(passages, terms), 1), reach, terms, 5);
    const sectioned = await retrievePassages(storeReturning(searchOf(passages, terms), 4), reach, terms, 5);

    expect(single.documentShare).toBe(UNOBSERVED_DOCUMENT_SHARE);
    expect(sectioned.documentShare).toBe(0.5);
  });

  test('first passage retrieved with another of its document: the store is not asked to count', async () => {
    const terms = ['stream'];
    const passages = [1, 2, 3].map((chunkId) => passageOf(chunkId, 'Streams.', 5, ['Guide'], chunkId === 3 ? 'other.md' : 'streams.md'));
    const store = storeReturning(searchOf(passages, terms), 1);
    const reach = { kbId: 'kb', userId: 'user-1', visibilities: ['public' as const] };

    const result = await retrievePassages(store, reach, terms, 5);

    expect(store.counted).toEqual([]);
    expect(result.documentShare).toBeCloseTo(2 / 3, 10);
  });

  test('misspelled term in no passage of the reach: searched again with the term the retrieved passages hold', async () => {
    // "directroy" stems to `directroi`, in no passage; the first search's passages hold `directori`.
    const first = passageOf(1, 'Create directories with mkdir.', 4);
    const corrected = passageOf(2, 'Create a directory and its parents with mkdir -p.', 9);
    const queries: RetrievalQuery[] = [];
    const store: RetrievalSources = {
      retriever: {
        search: async (query): Promise<SearchResult> => {
          queries.push(query);
          return query.terms.includes('directroi')
            ? { passages: [first], passageCount: 10, documentFrequencies: { creat: 2, directroi: 0 } }
            : { passages: [corrected, first], passageCount: 10, documentFrequencies: { creat: 2, directori: 2 } };
        },
      },
      store: { countPassages: async () => 3 },
    };
    const reach = { kbId: 'kb', userId: 'user-1', visibilities: ['public' as const] };

    const result = await retrievePassages(store, reach, ['creat', 'directroi'], 5);

    expect(queries.map((query) => query.terms)).toEqual([['creat', 'directroi'], ['creat', 'directori']]);
    expect(result.terms).toEqual(['creat', 'directori']);
    expect(result.passages[0]).toEqual(corrected);
    expect(result.documentFrequencies).toEqual({ creat: 2, directori: 2 });
  });
});
