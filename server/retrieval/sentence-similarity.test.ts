import { describe, expect, onTestFinished, test } from 'vitest';
import { createDenseRetriever } from './dense-retriever.ts';
import { createHybridRetriever } from './hybrid-retriever.ts';
import { createLexicalRetriever } from './lexical-retriever.ts';
import type { Retriever } from './retriever.ts';
import { withSentenceSimilarity } from './sentence-similarity.ts';
import { analyze } from './analyzer.ts';
import { embedPendingPassages } from '../embedding/embed-passages.ts';
import type { DocumentInput, Reach, Store } from '../store/store.ts';
import { analyzedDocument } from '../testing/analyzed-document.ts';
import { openTestStore } from '../testing/test-store.ts';

/**
 * Sentence similarity over a real store (the test run's backend), its
 * sentence vectors written by the embedding sweep. The model is a stand-in
 * that maps a text to a hand-chosen direction by a word it holds, so each
 * test knows which sentence is nearest the question; the real model is
 * tested in embedding/embedder.unit.test.ts.
 */

const KB_ID = 'docs';
const MODEL = 'test-model';
const VISITOR: Reach = { kbId: KB_ID, userId: '', visibilities: ['public'] };

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return new Float32Array(values.map((value) => value / norm));
}

/** The question's direction: parents created with a directory. */
const PARENTS = unit([1, 0, 0]);

/** The stand-in model: a passage (its breadcrumb, a newline, its text) between all directions; a sentence by its word. */
async function standInModel(texts: readonly string[]): Promise<Float32Array[]> {
  return texts.map((text) => {
    if (text.includes('\n')) return unit([1, 1, 1]);
    if (text.includes('parents')) return PARENTS;
    if (text.toLowerCase().includes('nested')) return unit([0.6, 0.8, 0]);
    return unit([0, 0, 1]);
  });
}

function page(docId: string, title: string, sections: { heading: string; text: string }[]): DocumentInput {
  return analyzedDocument(KB_ID, docId, title, sections.map(({ heading, text }) => ({ headingPath: [title, heading], text })));
}

async function openStoreWithPages(options: { embedded: boolean }): Promise<Store> {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  await store.createKnowledgeBase({ id: KB_ID, name: 'Docs' });
  await store.putDocuments([
    page('fs.md', 'File system', [
      { heading: 'fs.mkdir()', text: 'Added in: v0.1.8\n\nCreates a directory. With recursive, its parents are created too.' },
      { heading: 'fs.rmdir()', text: 'Removes a directory. Nested directories are removed with recursive.' },
      { heading: 'fs.readdir()', text: '```js\nreaddir(directory);\n```' },
    ]),
  ]);
  if (options.embedded) await embedPendingPassages(store, { modelKey: MODEL, embed: standInModel });
  return store;
}

function retrieverOver(store: Store, options: { similarityFloor?: number; depth?: number } = {}): Retriever {
  const dense = { modelKey: MODEL, dimensions: 3, embedQuery: async () => PARENTS, ...(options.similarityFloor === undefined ? {} : { similarityFloor: options.similarityFloor }) };
  const hybrid = createHybridRetriever(createLexicalRetriever(store), createDenseRetriever(store, dense));
  return withSentenceSimilarity(hybrid, store, { ...dense, ...(options.depth === undefined ? {} : { depth: options.depth }) });
}

const question = 'How do I make a directory with missing parent folders?';

async function sentenceSimilarities(retriever: Retriever): Promise<Record<string, number | undefined>> {
  const result = await retriever.search({ reach: VISITOR, terms: [...new Set(analyze(question))], topK: 10, question });
  return Object.fromEntries(result.passages.map((passage) => [passage.headingPath.at(-1)!, passage.sentenceSimilarity]));
}

describe('sentence similarity', () => {
  test("each passage scores its best sentence against the question: the section whose one sentence says what was asked scores highest, a passage of code alone none", async () => {
    const store = await openStoreWithPages({ embedded: true });

    const retriever = retrieverOver(store);

    const scores = await sentenceSimilarities(retriever);

    expect(scores['fs.mkdir()']).toBeCloseTo(1, 5);
    expect(scores['fs.rmdir()']).toBeCloseTo(0.6, 5);
    expect(scores['fs.readdir()']).toBeUndefined();
    expect(Object.keys(scores)).toHaveLength(3);
    // Asked again (the passages' sentences memoized): the same scores.
    expect(await sentenceSimilarities(retriever)).toEqual(scores);
  });

  test('each quotable sentence keeps its own similarity, in the order of the passage\'s sentences that are not status lines', async () => {
    const store = await openStoreWithPages({ embedded: true });

    const result = await retrieverOver(store).search({ reach: VISITOR, terms: [...new Set(analyze(question))], topK: 10, question });
    const mkdir = result.passages.find((passage) => passage.headingPath.at(-1) === 'fs.mkdir()');

    // "Added in: v0.1.8" is a status line, never embedded; "Creates a directory." is far from the question, the parents sentence on it.
    expect(mkdir?.sentenceSimilarities).toHaveLength(2);
    expect(mkdir?.sentenceSimilarities?.[0]).toBeCloseTo(0, 5);
    expect(mkdir?.sentenceSimilarities?.[1]).toBeCloseTo(1, 5);
  });

  test("rescaled above the model's similarity floor, as the dense retriever rescales a passage's", async () => {
    const store = await openStoreWithPages({ embedded: true });

    const scores = await sentenceSimilarities(retrieverOver(store, { similarityFloor: 0.5 }));

    expect(scores['fs.mkdir()']).toBeCloseTo(1, 5);
    expect(scores['fs.rmdir()']).toBeCloseTo((0.6 - 0.5) / 0.5, 5);
  });

  test('only the first passages, as many as the depth, are scored', async () => {
    const store = await openStoreWithPages({ embedded: true });
    const retriever = retrieverOver(store, { depth: 1 });

    const result = await retriever.search({ reach: VISITOR, terms: [...new Set(analyze(question))], topK: 10, question });

    expect(result.passages.map((passage) => passage.sentenceSimilarity !== undefined)).toEqual([true, false, false]);
  });

  test('before the sweep has embedded the passages (retrieval by BM25F alone): no sentence similarity, the same passages', async () => {
    const store = await openStoreWithPages({ embedded: false });

    const scores = await sentenceSimilarities(retrieverOver(store));

    expect(Object.values(scores)).not.toHaveLength(0);
    expect(Object.values(scores).every((score) => score === undefined)).toBe(true);
  });
});
