import fc from 'fast-check';
import { describe, expect, onTestFinished, test } from 'vitest';
import { inverseDocumentFrequency, PAGE_EVIDENCE_WEIGHT, PAGE_RANKING, PASSAGE_RANKING } from './bm25f.ts';
import { createLexicalRetriever } from './lexical-retriever.ts';
import { PASSAGE_POOL } from './retrieval-plan.ts';
import type { RetrievalQuery, SearchResult } from './retriever.ts';
import type { IndexedPage } from '../store/index/index-data.ts';
import type { ChunkInput, Visibility } from '../store/store.ts';
import { aboutDocument, operationArbitrary, pageOf, READERS, type Operation } from '../testing/search-test-fixtures.ts';
import { openTestStore } from '../testing/test-store.ts';

/**
 * The lexical retriever against a reference: histories of random writes and
 * searches on the test run's backend, each search answered by a retriever
 * holding the whole index in memory, by one reading only the query's terms,
 * and by a plain re-statement of the passage and page rankings (retrieval/bm25f.ts)
 * over the documents the history left, inside the search's reach.
 */

const KB_ID = 'kb';

interface ModelDocument {
  visibility: Visibility;
  readers: string[];
  contentHash: string;
  /** The passages with the order they were stored in (storage ids increase with it). */
  passages: { order: number; ordinal: number; chunk: ChunkInput }[];
  page: IndexedPage;
}

/** The documents a history left, and the order passages were stored in. */
class Model {
  readonly documents = new Map<string, ModelDocument>();
  #stored = 0;

  apply(operation: Exclude<Operation, { kind: 'search' }>, readerIds: (names: readonly string[]) => string[]): void {
    if (operation.kind === 'remove') {
      this.documents.delete(operation.docId);
      return;
    }
    const existing = this.documents.get(operation.docId);
    if (operation.kind === 'access') {
      if (existing) Object.assign(existing, { visibility: operation.visibility, readers: readerIds(operation.readers) });
      return;
    }
    const contentHash = `${operation.docId}-${operation.version}-${operation.chunks.length}`;
    if (existing?.contentHash === contentHash) return;
    this.documents.set(operation.docId, {
      visibility: operation.visibility,
      readers: readerIds(operation.readers),
      contentHash,
      passages: operation.chunks.map((chunk, ordinal) => ({ order: this.#stored++, ordinal, chunk })),
      page: pageOf(operation.docId, operation.chunks),
    });
  }

  /** The ranking, restated: each passage inside the reach scored term by term, best first, then in storage order. */
  search(query: RetrievalQuery): { passages: { docId: string; ordinal: number; score: number }[]; passageCount: number; documentFrequencies: Record<string, number> } {
    const inside = [...this.documents].flatMap(([docId, document]) =>
      query.reach.visibilities.includes(document.visibility) &&
      (document.visibility !== 'restricted' || document.readers.includes(query.reach.userId))
        ? document.passages.map((passage) => ({ docId, ...passage }))
        : [],
    );
    const terms = [...new Set(query.terms)];
    const documentFrequencies = Object.fromEntries(terms.map((term) => [term, inside.filter(({ chunk }) => chunk.index.terms.has(term)).length]));
    const { k1, fields } = PASSAGE_RANKING;
    const b = fields[0]!.b;
    const weighted = (counts: readonly number[]) => counts.reduce((sum, count, field) => sum + fields[field]!.weight * count, 0);
    const average = inside.reduce((sum, { chunk }) => sum + weighted(chunk.index.lengths), 0) / inside.length;
    const scored = inside.flatMap(({ docId, ordinal, order, chunk }) => {
      let score = 0;
      let matched = false;
      for (const term of terms) {
        const frequency = weighted(chunk.index.terms.get(term) ?? [0, 0, 0, 0]);
        if (frequency === 0) continue;
        matched = true;
        const idf = inverseDocumentFrequency(inside.length, documentFrequencies[term]!);
        const norm = average > 0 ? k1 * (1 - b + (b * weighted(chunk.index.lengths)) / average) : k1;
        score += (idf * frequency * (k1 + 1)) / (frequency + norm);
      }
      return matched ? [{ docId, ordinal, order, score }] : [];
    });
    scored.sort((left, right) => right.score - left.score || left.order - right.order);
    // Each candidate passage gains its page's score (the page ranking, BM25F per field).
    const pages = [...this.documents].filter(([docId, document]) => document.passages.length > 0 && inside.some((passage) => passage.docId === docId));
    const pageAverages = [0, 1, 2, 3, 4, 5].map((field) => pages.reduce((sum, [, document]) => sum + document.page.lengths[field]!, 0) / Math.max(pages.length, 1));
    const pageScore = (page: IndexedPage): number => {
      let score = 0;
      for (const term of terms) {
        const counts = page.terms.get(term);
        if (!counts) continue;
        const pageFrequency = pages.filter(([, document]) => document.page.terms.has(term)).length;
        let pseudo = 0;
        PAGE_RANKING.fields.forEach(({ weight, b }, field) => {
          if (counts[field] === 0) return;
          const normalization = pageAverages[field]! > 0 ? 1 - b + (b * page.lengths[field]!) / pageAverages[field]! : 1;
          pseudo += (weight * counts[field]!) / normalization;
        });
        if (pseudo > 0) score += (inverseDocumentFrequency(Math.max(pages.length, 1), pageFrequency) * pseudo * (PAGE_RANKING.k1 + 1)) / (PAGE_RANKING.k1 + pseudo);
      }
      return score;
    };
    const candidates = scored
      .slice(0, Math.max(query.topK, PASSAGE_POOL))
      .map((passage) => ({ ...passage, score: passage.score + PAGE_EVIDENCE_WEIGHT * pageScore(this.documents.get(passage.docId)!.page) }));
    candidates.sort((left, right) => right.score - left.score || left.order - right.order);
    return {
      passages: candidates.slice(0, Math.max(query.topK, 0)).map(({ docId, ordinal, score }) => ({ docId, ordinal, score })),
      passageCount: inside.length,
      documentFrequencies,
    };
  }
}

/** A search result as the reference gives it: documents, passage ordinals (from the heading), scores. */
function comparable(result: SearchResult, ordinals: Map<number, number>) {
  return {
    passages: result.passages.map((passage) => ({ docId: passage.docId, ordinal: ordinals.get(passage.chunkId)!, score: passage.score })),
    passageCount: result.passageCount,
    documentFrequencies: result.documentFrequencies,
  };
}

describe('createLexicalRetriever', () => {
  test('random histories of writes, reaches and questions: the held index, the per-search term reads and the restated ranking give the same passages, scores and statistics', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operationArbitrary, { minLength: 1, maxLength: 25 }), async (operations) => {
        const opened = await openTestStore();
        try {
          const { store } = opened;
          await store.createKnowledgeBase({ id: KB_ID, name: 'KB' });
          const users = new Map<string, string>();
          for (const name of READERS) users.set(name, (await store.createUser({ email: `${name}@example.com`, name })).id);
          const readerIds = (names: readonly string[]) => names.map((name) => users.get(name)!);
          const held = createLexicalRetriever(store, { cache: { quietMilliseconds: 0 } });
          const reading = createLexicalRetriever(store, { cache: false });
          const model = new Model();
          for (const operation of operations) {
            if (operation.kind !== 'search') {
              if (operation.kind === 'put') {
                await store.putDocument({
                  kbId: KB_ID,
                  docId: operation.docId,
                  title: `Document ${operation.docId}`,
                  visibility: operation.visibility,
                  readers: readerIds(operation.readers),
                  quotable: true,
                  contentHash: `${operation.docId}-${operation.version}-${operation.chunks.length}`,
                  analysisVersion: 'test',
                  chunks: operation.chunks,
                  page: pageOf(operation.docId, operation.chunks),
                });
              } else if (operation.kind === 'remove') {
                await store.removeDocument(KB_ID, operation.docId);
              } else if (model.documents.has(operation.docId)) {
                await store.setDocumentAccess(KB_ID, operation.docId, {
                  visibility: operation.visibility,
                  readers: readerIds(operation.readers),
                  quotable: true,
                });
              }
              model.apply(operation, readerIds);
              continue;
            }
            const query: RetrievalQuery = {
              reach: { kbId: KB_ID, userId: users.get(operation.userName) ?? 'usr_nobody', visibilities: operation.visibilities },
              terms: operation.terms,
              topK: operation.topK,
            };
            const fromHeld = await held.search(query);
            const fromReads = await reading.search(query);
            const expected = model.search(query);
            const ordinals = new Map<number, number>();
            for (const docId of new Set([...fromHeld.passages, ...fromReads.passages].map((passage) => passage.docId))) {
              const document = await store.readIndexableDocument(KB_ID, docId);
              document?.passages.forEach((passage, ordinal) => ordinals.set(passage.chunkId, ordinal));
            }
            expect(fromReads).toEqual(fromHeld);
            const actual = comparable(fromHeld, ordinals);
            expect(actual.passageCount).toBe(expected.passageCount);
            expect(actual.documentFrequencies).toEqual(expected.documentFrequencies);
            expect(actual.passages.map(({ docId, ordinal }) => `${docId}#${ordinal}`)).toEqual(expected.passages.map(({ docId, ordinal }) => `${docId}#${ordinal}`));
            actual.passages.forEach((passage, rank) => expect(passage.score).toBeCloseTo(expected.passages[rank]!.score, 9));
          }
        } finally {
          await opened.close();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  test('a document written through another connection after the index was held: found by the next search; removed: no longer found', async () => {
    const opened = await openTestStore();
    onTestFinished(() => opened.close());
    await opened.store.createKnowledgeBase({ id: KB_ID, name: 'KB' });
    await opened.store.putDocument(aboutDocument(KB_ID, 'a.md', 'alpha'));
    const other = opened.reopen();
    const retriever = createLexicalRetriever(opened.store, { cache: { quietMilliseconds: 0 } });
    const query: RetrievalQuery = { reach: { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] }, terms: ['alpha'], topK: 5 };
    expect((await retriever.search(query)).passages.map((passage) => passage.docId)).toEqual(['a.md']);

    await other.putDocument(aboutDocument(KB_ID, 'b.md', 'alpha'));
    const afterWrite = await retriever.search(query);
    await other.removeDocument(KB_ID, 'a.md');
    const afterRemoval = await retriever.search(query);

    expect(afterWrite.passages.map((passage) => passage.docId).sort()).toEqual(['a.md', 'b.md']);
    expect(afterRemoval.passages.map((passage) => passage.docId)).toEqual(['b.md']);
  });

  test('a knowledge base larger than the in-memory cap: searched by reading its terms, with the same result', async () => {
    const opened = await openTestStore();
    onTestFinished(() => opened.close());
    await opened.store.createKnowledgeBase({ id: KB_ID, name: 'KB' });
    for (const [docId, term] of [['a.md', 'alpha'], ['b.md', 'beta'], ['c.md', 'alpha']] as const) {
      await opened.store.putDocument(aboutDocument(KB_ID, docId, term));
    }
    const query: RetrievalQuery = { reach: { kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] }, terms: ['alpha', 'beta'], topK: 5 };

    const small = await createLexicalRetriever(opened.store, { cache: { maxPostings: 1, quietMilliseconds: 0 } }).search(query);
    const large = await createLexicalRetriever(opened.store, { cache: { quietMilliseconds: 0 } }).search(query);

    expect(small).toEqual(large);
    expect(small.passages).toHaveLength(3);
  });
});
