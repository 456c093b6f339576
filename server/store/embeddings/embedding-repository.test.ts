import { describe, expect, onTestFinished, test } from 'vitest';
import { analyzedDocument } from '../../testing/analyzed-document.ts';
import { openTestStore } from '../../testing/test-store.ts';
import { DENSE_INDEX_PAGE } from './embedding-repository.ts';
import type { DocumentInput, PassageToEmbed, PassageVector, Store } from '../store.ts';

/** Passage vectors and the embedding cache (store/embeddings/embedding-repository.ts) on the test run's backend. */

const KB_ID = 'docs';
const OTHER_KB_ID = 'other';
const MODEL = 'model-a';
const DIMENSIONS = 4;

/** A fresh store with two knowledge bases, removed after the test. */
async function openVectorStore(): Promise<Store> {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  await store.createKnowledgeBase({ id: KB_ID, name: 'Docs' });
  await store.createKnowledgeBase({ id: OTHER_KB_ID, name: 'Other' });
  return store;
}

/** A document whose passages are `[headingPath, text]` pairs, analyzed as ingest does; `contentHash` follows the texts. */
function documentInput(kbId: string, docId: string, title: string, passages: [string[], string][], options: Partial<DocumentInput> = {}): DocumentInput {
  return analyzedDocument(kbId, docId, title, passages.map(([headingPath, text]) => ({ headingPath, text })), options);
}

/** Two documents of {@link KB_ID} (one restricted, so a public reach names the other's storage id) and one of {@link OTHER_KB_ID}. */
async function ingest(store: Store): Promise<void> {
  await store.putDocuments([
    documentInput(KB_ID, 'guide.md', 'Guide', [
      [['Guide', 'Install'], 'Run the installer.'],
      [['Guide', 'Configure'], 'Edit the settings file.'],
    ]),
    documentInput(KB_ID, 'faq.md', 'Questions', [[['Questions'], 'Ask the team.']], { visibility: 'restricted' }),
    documentInput(OTHER_KB_ID, 'other.md', 'Elsewhere', [[['Elsewhere'], 'Another knowledge base.']]),
  ]);
}

/**
 * A vector whose bits a lossy round trip would change: a negative zero, a
 * float32 subnormal, and values that are not exact in decimal.
 */
function vectorOf(seed: number): Float32Array {
  return new Float32Array([seed / 3, -0, 1e-40 * seed, Math.PI * -seed]);
}

/** The cache key of a passage in these tests. */
function hashOf(passage: PassageToEmbed): string {
  return `hash:${passage.text}`;
}

/** A vector for each passage, seeded by its chunk id. */
function vectorsFor(passages: readonly PassageToEmbed[], seed = 0): PassageVector[] {
  return passages.map((passage) => ({ chunkId: passage.chunkId, textHash: hashOf(passage), vector: vectorOf(passage.chunkId + seed) }));
}

/** Bytes of a vector, to compare bit for bit (-0 and 0 differ here). */
function bytesOf(vector: Float32Array): number[] {
  return [...new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)];
}

describe('passage vectors', () => {
  test('passagesWithoutVector on fresh passages: every passage by ascending chunk id with its title, heading path and text; of one knowledge base when given, at most limit', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);

    // Act
    const all = await store.passagesWithoutVector(MODEL, 10);
    const ofKb = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    const limited = await store.passagesWithoutVector(MODEL, 2);

    // Assert
    expect(ofKb.map(({ chunkId: _chunkId, ...passage }) => passage)).toEqual([
      { kbId: KB_ID, title: 'Guide', headingPath: ['Guide', 'Install'], text: 'Run the installer.' },
      { kbId: KB_ID, title: 'Guide', headingPath: ['Guide', 'Configure'], text: 'Edit the settings file.' },
      { kbId: KB_ID, title: 'Questions', headingPath: ['Questions'], text: 'Ask the team.' },
    ]);
    expect(all.map((passage) => passage.text)).toEqual([...ofKb.map((passage) => passage.text), 'Another knowledge base.']);
    expect(all.map((passage) => passage.chunkId)).toEqual([...all.map((passage) => passage.chunkId)].sort((left, right) => left - right));
    expect(limited).toEqual(all.slice(0, 2));
    await expect(store.countPassagesWithoutVector(MODEL)).resolves.toBe(4);
    await expect(store.countPassagesWithoutVector(MODEL, KB_ID)).resolves.toBe(3);
  });

  test('putPassageVectors then readDenseIndex: the passages no longer wait for a vector; the vectors come back bit for bit, aligned with their chunk and document ids', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const passages = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    const publicDocuments = (await store.reachStatistics({ kbId: KB_ID, userId: 'usr_nobody', visibilities: ['public'] })).readableDocuments;

    // Act
    await store.putPassageVectors(MODEL, vectorsFor(passages));
    const index = await store.readDenseIndex(KB_ID, MODEL, DIMENSIONS);

    // Assert
    await expect(store.passagesWithoutVector(MODEL, 10, KB_ID)).resolves.toEqual([]);
    await expect(store.countPassagesWithoutVector(MODEL, KB_ID)).resolves.toBe(0);
    await expect(store.countPassagesWithoutVector(MODEL)).resolves.toBe(1);
    expect(index.dimensions).toBe(DIMENSIONS);
    expect(index.chunkIds).toEqual(passages.map((passage) => passage.chunkId));
    expect(bytesOf(index.vectors)).toEqual(passages.flatMap((passage) => bytesOf(vectorOf(passage.chunkId))));
    // guide.md's two passages, then faq.md's: the public reach reads guide.md only.
    expect(publicDocuments).toHaveLength(1);
    expect(index.documentIds).toEqual([publicDocuments![0], publicDocuments![0], expect.any(Number)]);
    expect(index.documentIds[2]).not.toBe(publicDocuments![0]);
  });

  test('putPassageVectors: bumps the content version of the knowledge base whose passages got vectors, not of another', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const passages = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    const before = await store.contentVersion(KB_ID);
    const otherBefore = await store.contentVersion(OTHER_KB_ID);

    // Act
    await store.putPassageVectors(MODEL, vectorsFor(passages));

    // Assert
    expect(await store.contentVersion(KB_ID)).not.toBe(before);
    expect(await store.contentVersion(OTHER_KB_ID)).toBe(otherBefore);
  });

  test('putPassageVectors for a passage that has one: its vector is replaced; the cache keeps the first vector of a text hash', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const passages = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    await store.putPassageVectors(MODEL, vectorsFor(passages));

    // Act
    await store.putPassageVectors(MODEL, vectorsFor(passages, 100));

    // Assert
    const index = await store.readDenseIndex(KB_ID, MODEL, DIMENSIONS);
    expect(bytesOf(index.vectors)).toEqual(passages.flatMap((passage) => bytesOf(vectorOf(passage.chunkId + 100))));
    const cached = await store.cachedVectors(MODEL, [hashOf(passages[0]!)]);
    expect(bytesOf(cached.get(hashOf(passages[0]!))!)).toEqual(bytesOf(vectorOf(passages[0]!.chunkId)));
  });

  test('a document replaced (new chunk ids): its old vectors go with its old passages, the new ones wait for vectors, and the cache still finds the vectors by text hash', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const passages = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    await store.putPassageVectors(MODEL, vectorsFor(passages));

    // Act
    await store.putDocument(
      documentInput(KB_ID, 'guide.md', 'Guide', [
        [['Guide', 'Install'], 'Run the installer.'],
        [['Guide', 'Configure'], 'Edit the settings file.'],
        [['Guide', 'Upgrade'], 'Run the installer again.'],
      ]),
    );

    // Assert
    const waiting = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    expect(waiting.map((passage) => passage.text)).toEqual(['Run the installer.', 'Edit the settings file.', 'Run the installer again.']);
    expect(waiting.every((passage) => !passages.some((old) => old.chunkId === passage.chunkId))).toBe(true);
    const index = await store.readDenseIndex(KB_ID, MODEL, DIMENSIONS);
    expect(index.chunkIds).toEqual([passages[2]!.chunkId]);
    const cached = await store.cachedVectors(MODEL, [...waiting.map(hashOf), 'hash:never embedded']);
    expect([...cached.keys()].sort()).toEqual(['hash:Edit the settings file.', 'hash:Run the installer.']);
    expect(bytesOf(cached.get('hash:Run the installer.')!)).toEqual(bytesOf(vectorOf(passages[0]!.chunkId)));
  });

  test('a document removed: its vectors are removed with it, the other documents keep theirs', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const passages = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    await store.putPassageVectors(MODEL, vectorsFor(passages));

    // Act
    await store.removeDocument(KB_ID, 'faq.md');

    // Assert
    const index = await store.readDenseIndex(KB_ID, MODEL, DIMENSIONS);
    expect(index.chunkIds).toEqual([passages[0]!.chunkId, passages[1]!.chunkId]);
    expect(index.vectors).toHaveLength(2 * DIMENSIONS);
  });

  test('putPassageVectors with a chunk id no longer stored: it is skipped without error, the others are stored', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const passages = await store.passagesWithoutVector(MODEL, 10, KB_ID);
    const gone = { chunkId: 1_000_000, textHash: 'hash:gone', vector: vectorOf(7) };

    // Act
    await store.putPassageVectors(MODEL, [gone, ...vectorsFor(passages)]);

    // Assert
    await expect(store.readDenseIndex(KB_ID, MODEL, DIMENSIONS)).resolves.toMatchObject({ chunkIds: passages.map((passage) => passage.chunkId) });
    await expect(store.countPassagesWithoutVector(MODEL, KB_ID)).resolves.toBe(0);
  });

  test('putPassageVectors with more passages than one statement binds: every vector stored and cached', async () => {
    // Arrange
    const store = await openVectorStore();
    const texts = Array.from({ length: 300 }, (_, position) => `Passage number ${position}.`);
    await store.putDocument(documentInput(KB_ID, 'long.md', 'Long', texts.map((text) => [['Long'], text])));
    const passages = await store.passagesWithoutVector(MODEL, 1000, KB_ID);

    // Act
    await store.putPassageVectors(MODEL, vectorsFor(passages));

    // Assert
    const index = await store.readDenseIndex(KB_ID, MODEL, DIMENSIONS);
    expect(index.chunkIds).toHaveLength(300);
    expect(bytesOf(index.vectors)).toEqual(passages.flatMap((passage) => bytesOf(vectorOf(passage.chunkId))));
    await expect(store.cachedVectors(MODEL, passages.map(hashOf))).resolves.toHaveProperty('size', 300);
  });

  test('readDenseIndex of more vectors than one page reads: every vector, in chunk order, bit for bit, across the pages', async () => {
    // Arrange: a page and a few more, over several documents.
    const store = await openVectorStore();
    const perDocument = Math.ceil((DENSE_INDEX_PAGE + 5) / 4);
    for (let document = 0; document < 4; document++) {
      const texts = Array.from({ length: perDocument }, (_, position) => `Passage ${position} of part ${document}.`);
      await store.putDocument(documentInput(KB_ID, `part-${document}.md`, `Part ${document}`, texts.map((text) => [['Part'], text])));
    }
    const passages = await store.passagesWithoutVector(MODEL, 4 * perDocument, KB_ID);
    await store.putPassageVectors(MODEL, vectorsFor(passages));

    // Act
    const index = await store.readDenseIndex(KB_ID, MODEL, DIMENSIONS);

    // Assert
    expect(index.chunkIds).toHaveLength(4 * perDocument);
    expect(index.chunkIds).toEqual(passages.map((passage) => passage.chunkId));
    expect(new Set(index.documentIds).size).toBe(4);
    expect(bytesOf(index.vectors)).toEqual(passages.flatMap((passage) => bytesOf(vectorOf(passage.chunkId))));
  }, 120_000);

  test('readDenseIndex of another knowledge base or under another model: none of these vectors', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    await store.putPassageVectors(MODEL, vectorsFor(await store.passagesWithoutVector(MODEL, 10, KB_ID)));

    // Act
    const other = await store.readDenseIndex(OTHER_KB_ID, MODEL, DIMENSIONS);
    const otherModel = await store.readDenseIndex(KB_ID, 'model-b', DIMENSIONS);

    // Assert
    expect(other).toEqual({ chunkIds: [], documentIds: [], vectors: new Float32Array(0), dimensions: DIMENSIONS });
    expect(otherModel.chunkIds).toEqual([]);
  });

  test('readDenseIndex with dimensions the stored vectors do not have: throws, naming the passage and the sizes', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const [passage] = await store.passagesWithoutVector(MODEL, 1, KB_ID);
    await store.putPassageVectors(MODEL, vectorsFor([passage!]));

    // Act and assert
    await expect(store.readDenseIndex(KB_ID, MODEL, 8)).rejects.toThrow(`The vector of passage ${passage!.chunkId} under model "${MODEL}" has 16 bytes, not 32`);
  });

  test('removeOtherModelVectors: only the given model\'s passage vectors and cache entries remain; returns how many passage vectors it removed', async () => {
    // Arrange
    const store = await openVectorStore();
    await ingest(store);
    const passages = await store.passagesWithoutVector('model-b', 10);
    await store.putPassageVectors(MODEL, vectorsFor(passages.slice(0, 3)));
    await store.putPassageVectors('model-b', vectorsFor([passages[3]!]));
    const before = await store.contentVersion(KB_ID);

    // Act
    const removed = await store.removeOtherModelVectors('model-b');

    // Assert
    expect(removed).toBe(3);
    expect(await store.contentVersion(KB_ID)).not.toBe(before);
    await expect(store.countPassagesWithoutVector(MODEL)).resolves.toBe(4);
    await expect(store.cachedVectors(MODEL, passages.map(hashOf))).resolves.toEqual(new Map());
    await expect(store.readDenseIndex(OTHER_KB_ID, 'model-b', DIMENSIONS)).resolves.toMatchObject({ chunkIds: [passages[3]!.chunkId] });
    await expect(store.cachedVectors('model-b', passages.map(hashOf))).resolves.toHaveProperty('size', 1);
  });

  test('putPassageVectors while the same documents are replaced (PostgreSQL: on other pooled connections): no write fails (no deadlock, no vector for a passage removed meanwhile); a last round covers the passages of the last version', async () => {
    // Arrange
    const store = await openVectorStore();
    const rounds = 15;
    const version = (round: number) =>
      documentInput(KB_ID, 'guide.md', 'Guide', [
        [['Guide'], `Round ${round}, first passage.`],
        [['Guide'], `Round ${round}, second passage.`],
      ]);
    await store.putDocument(version(0));

    // Act
    const failures: unknown[] = [];
    await Promise.all([
      (async () => {
        for (let round = 1; round <= rounds; round++) await store.putDocument(version(round)).catch((error: unknown) => failures.push(error));
      })(),
      (async () => {
        for (let round = 1; round <= rounds; round++) {
          const passages = await store.passagesWithoutVector(MODEL, 10, KB_ID);
          await store.putPassageVectors(MODEL, vectorsFor(passages)).catch((error: unknown) => failures.push(error));
        }
      })(),
    ]);

    // Assert
    expect(failures).toEqual([]);
    await store.putPassageVectors(MODEL, vectorsFor(await store.passagesWithoutVector(MODEL, 10, KB_ID)));
    const index = await store.readDenseIndex(KB_ID, MODEL, DIMENSIONS);
    expect(index.chunkIds).toEqual((await store.passagesWithoutVector('model-b', 10, KB_ID)).map((passage) => passage.chunkId));
  });
});
