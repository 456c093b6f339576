import { describe, expect, onTestFinished, test } from 'vitest';
import { createDenseRetriever } from './dense-retriever.ts';
import { createHybridRetriever } from './hybrid-retriever.ts';
import { createLexicalRetriever } from './lexical-retriever.ts';
import { sharedReachStatistics } from './shared-statistics.ts';
import type { DocumentInput, Reach, Store } from '../store/store.ts';
import { analyzedDocument } from '../testing/analyzed-document.ts';
import { openTestStore } from '../testing/test-store.ts';

/**
 * Dense and hybrid retrieval over a real store (the test run's backend),
 * with vectors written as the embedding sweep writes them. The vectors are
 * chosen by hand (4 dimensions), so each test knows which passage the
 * question is nearest; the real model is tested in embedding/embedder.unit.test.ts.
 */

const KB_ID = 'docs';
const MODEL = 'test-model';
const DIMENSIONS = 4;
const OWNER = 'owner-1';
const VISITOR: Reach = { kbId: KB_ID, userId: '', visibilities: ['public'] };

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return new Float32Array(values.map((value) => value / norm));
}

/** Directions: what each passage is "about". */
const LIST_FILES = unit([1, 0, 0, 0]);
const SECRET_PLANS = unit([0, 1, 0, 0]);
const ENVIRONMENT = unit([0, 0, 1, 0]);

function documentInput(docId: string, title: string, text: string, options: Partial<DocumentInput> = {}): DocumentInput {
  return analyzedDocument(KB_ID, docId, title, [{ headingPath: [title], text }], options);
}

/** Three pages with a vector each: two public, one restricted to the owner. */
async function openVectorStore(): Promise<Store> {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  await store.createKnowledgeBase({ id: KB_ID, name: 'Docs' });
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  await store.setRole(KB_ID, owner.id, 'owner');
  await store.putDocuments([
    documentInput('fs.md', 'File system', 'fs.readdir reads the contents of a directory.'),
    documentInput('plans.md', 'Roadmap', 'The unreleased roadmap: directory listing gets faster.', { visibility: 'restricted', readers: [owner.id] }),
    documentInput('process.md', 'Process', 'process.env holds the user environment.'),
  ]);
  const directions = new Map([
    ['fs.md', LIST_FILES],
    ['plans.md', SECRET_PLANS],
    ['process.md', ENVIRONMENT],
  ]);
  const pending = await store.passagesWithoutVector(MODEL, 100, KB_ID);
  const docIds = new Map((await store.listDocuments(KB_ID)).map((document) => [document.title, document.docId]));
  await store.putPassageVectors(
    MODEL,
    pending.map((passage) => ({ chunkId: passage.chunkId, textHash: `hash-${passage.chunkId}`, vector: directions.get(docIds.get(passage.title)!)! })),
  );
  ownerReach = { kbId: KB_ID, userId: owner.id, visibilities: ['public', 'restricted'] };
  return store;
}

let ownerReach: Reach;

/** A dense retriever whose "model" maps each question to a direction. */
function denseOver(store: Store, questions: Record<string, Float32Array>) {
  return createDenseRetriever(store, {
    modelKey: MODEL,
    dimensions: DIMENSIONS,
    embedQuery: async (question) => questions[question] ?? unit([0, 0, 0, 1]),
  });
}

describe('dense retrieval', () => {
  test('finds the passage nearest in meaning though it shares no word with the question', async () => {
    const store = await openVectorStore();
    const dense = denseOver(store, { 'how do I list all the files in a folder?': unit([0.9, 0.1, 0.3, 0]) });

    const result = await dense.search({ reach: VISITOR, terms: ['list', 'file', 'folder'], topK: 2, question: 'how do I list all the files in a folder?' });

    expect(result.passages.map((passage) => passage.docId)).toEqual(['fs.md', 'process.md']);
    expect(result.passages[0]!.similarity).toBeGreaterThan(result.passages[1]!.similarity!);
  });

  test('reports similarities rescaled above the model\'s floor, in the same order, the page similarity too', async () => {
    const store = await openVectorStore();
    const question = 'how do I list all the files in a folder?';
    const direction: Record<string, Float32Array> = { [question]: unit([0.9, 0.1, 0.3, 0]) };
    const raw = await denseOver(store, direction).search({ reach: VISITOR, terms: [], topK: 2, question });
    const floored = await createDenseRetriever(store, { modelKey: MODEL, dimensions: DIMENSIONS, similarityFloor: 0.5, embedQuery: async (text) => direction[text]! }).search({
      reach: VISITOR,
      terms: [],
      topK: 2,
      question,
    });

    expect(floored.passages.map((passage) => passage.chunkId)).toEqual(raw.passages.map((passage) => passage.chunkId));
    floored.passages.forEach((passage, rank) => {
      // A cosine of c reads (c - 0.5) / 0.5: the floor maps to 0, a perfect match stays 1.
      expect(passage.similarity).toBeCloseTo((raw.passages[rank]!.similarity! - 0.5) / 0.5, 10);
      expect(passage.documentSimilarity).toBeCloseTo((raw.passages[rank]!.documentSimilarity! - 0.5) / 0.5, 10);
      expect(passage.score).toBe(raw.passages[rank]!.score);
    });
  });

  test('a restricted passage never takes a visitor\'s slot, even when it is the nearest', async () => {
    const store = await openVectorStore();
    const question = 'what is on the secret roadmap?';
    const dense = denseOver(store, { [question]: SECRET_PLANS });

    const visitor = await dense.search({ reach: VISITOR, terms: ['secret', 'roadmap'], topK: 3, question });
    const owner = await dense.search({ reach: ownerReach, terms: ['secret', 'roadmap'], topK: 3, question });

    expect(visitor.passages.map((passage) => passage.docId)).not.toContain('plans.md');
    expect(visitor.passages).toHaveLength(2);
    expect(owner.passages[0]!.docId).toBe('plans.md');
  });

  test('through hybrid retrieval too, the restricted page neither appears nor shows through a score', async () => {
    const store = await openVectorStore();
    const question = 'what is on the secret roadmap?';
    const hybrid = createHybridRetriever(createLexicalRetriever(store, { cache: false }), denseOver(store, { [question]: SECRET_PLANS }));

    const visitor = await hybrid.search({ reach: VISITOR, terms: ['unreleas', 'roadmap', 'directori'], topK: 5, question });

    expect(visitor.passages.map((passage) => passage.docId).sort()).toEqual(['fs.md', 'process.md']);
    // The scores a visitor sees are those of a knowledge base without the restricted page.
    expect(visitor.passages.every((passage) => (passage.similarity ?? 0) < 0.5)).toBe(true);
  });

  test('finds nothing without the question text, or before any passage has a vector', async () => {
    const store = await openVectorStore();
    const dense = denseOver(store, {});
    expect((await dense.search({ reach: VISITOR, terms: ['file'], topK: 3 })).passages).toEqual([]);

    const other = createDenseRetriever(store, { modelKey: 'another-model', dimensions: DIMENSIONS, embedQuery: async () => LIST_FILES });
    expect((await other.search({ reach: VISITOR, terms: ['file'], topK: 3, question: 'files?' })).passages).toEqual([]);
  });

  test('sees a passage ingested after its first search', async () => {
    const store = await openVectorStore();
    const question = 'how do I start a child process?';
    const dense = denseOver(store, { [question]: unit([0, 0, 0, 1]) });
    expect((await dense.search({ reach: VISITOR, terms: ['child'], topK: 1, question })).passages[0]!.docId).not.toBe('child.md');

    await store.putDocuments([documentInput('child.md', 'Child processes', 'child_process.spawn starts a process.')]);
    const [pending] = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    await store.putPassageVectors(MODEL, [{ chunkId: pending!.chunkId, textHash: 'hash-child', vector: unit([0, 0, 0, 1]) }]);

    expect((await dense.search({ reach: VISITOR, terms: ['child'], topK: 1, question })).passages[0]!.docId).toBe('child.md');
  });

  test('while a passage of the reach has no vector yet, dense retrieval finds nothing; once it has one, it takes part again', async () => {
    const store = await openVectorStore();
    const question = 'how do I list all the files in a folder?';
    const dense = denseOver(store, { [question]: LIST_FILES });
    await store.putDocuments([documentInput('child.md', 'Child processes', 'child_process.spawn starts a process.')]);

    expect((await dense.search({ reach: VISITOR, terms: ['file'], topK: 2, question })).passages).toEqual([]);

    const [pending] = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    await store.putPassageVectors(MODEL, [{ chunkId: pending!.chunkId, textHash: 'hash-child', vector: unit([0, 0, 0, 1]) }]);
    expect((await dense.search({ reach: VISITOR, terms: ['file'], topK: 2, question })).passages[0]!.docId).toBe('fs.md');
  });
});

describe('hybrid retrieval over one store', () => {
  test('reads the reach statistics once per search, shared by its two retrievers, and again for the next search', async () => {
    const store = await openVectorStore();
    let reads = 0;
    const counted = new Proxy(store, {
      get(target, property) {
        if (property === 'reachStatistics') return (reach: Reach) => (reads++, target.reachStatistics(reach));
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const shared = sharedReachStatistics(counted);
    const question = 'how do I list all the files in a folder?';
    const hybrid = createHybridRetriever(createLexicalRetriever(shared, { cache: false }), denseOver(shared as Store, { [question]: LIST_FILES }));

    const first = await hybrid.search({ reach: VISITOR, terms: ['list', 'file', 'folder'], topK: 3, question });
    expect(reads).toBe(1);
    expect(first.passages[0]!.docId).toBe('fs.md');
    await hybrid.search({ reach: VISITOR, terms: ['list', 'file', 'folder'], topK: 3, question });
    expect(reads).toBe(2);
  });
});

describe('document similarity', () => {
  test('dense retrieval gives each passage its page\'s document similarity', async () => {
    const store = await openVectorStore();
    const retriever = createDenseRetriever(store, { modelKey: MODEL, dimensions: DIMENSIONS, embedQuery: async () => LIST_FILES });

    const result = await retriever.search({ reach: VISITOR, terms: [], topK: 3, question: 'how do I list the files in a folder?' });

    // One passage per page here: a page's similarity is a third of its passage's.
    for (const found of result.passages) expect(found.documentSimilarity).toBeCloseTo(found.similarity! / 3, 6);
  });
});
