import { describe, expect, onTestFinished, test } from 'vitest';
import { embedPendingPassages } from './embed-passages.ts';
import { startEmbeddingSweeper } from './embedding-sweeper.ts';
import { embeddingTextHash } from './passage-text.ts';
import type { DocumentInput, Store } from '../store/store.ts';
import { analyzedDocument } from '../testing/analyzed-document.ts';
import { openTestStore } from '../testing/test-store.ts';

/**
 * Passages get their vectors after any ingest, on the test run's backend.
 * The model is replaced by a function that records what it was asked to
 * embed (the real model: embedding/embedder.unit.test.ts).
 */

const KB_ID = 'docs';
const MODEL = 'test-model';

function page(docId: string, texts: string[]): DocumentInput {
  return analyzedDocument(KB_ID, docId, 'Guide', texts.map((text) => ({ headingPath: ['Guide', docId], text })));
}

async function openStoreWithPages(): Promise<Store> {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  await store.createKnowledgeBase({ id: KB_ID, name: 'Docs' });
  await store.putDocuments([page('install.md', ['Run the installer.', 'Restart the machine.']), page('upgrade.md', ['Download the new version.'])]);
  return store;
}

/** A stand-in model: a 2-dimensional vector per text, and the texts it was given. */
function recordingModel() {
  const embedded: string[] = [];
  return {
    embedded,
    embed: async (texts: readonly string[]) => {
      embedded.push(...texts);
      return texts.map((text) => new Float32Array([text.length, 1]));
    },
  };
}

describe('embedding passages', () => {
  test('every passage gets a vector, embedded with its place in the docs above its text', async () => {
    const store = await openStoreWithPages();
    const model = recordingModel();

    const report = await embedPendingPassages(store, { modelKey: MODEL, embed: model.embed });

    expect(report).toEqual({ embedded: 3, cached: 0, sentencesEmbedded: 3 });
    expect(await store.countPassagesWithoutVector(MODEL)).toBe(0);
    expect(model.embedded).toContain('Guide › install.md\nRun the installer.');
  });

  test("each passage's sentences are embedded led by its section heading, status lines and code left out, and cached with the passage's vector", async () => {
    const store = await openStoreWithPages();
    await store.putDocuments([page('api.md', ['Added in: v1.2.0\n\nCreates a directory. Parents are created too.\n\n```js\nmkdir(path);\n```'])]);
    const model = recordingModel();

    const report = await embedPendingPassages(store, { modelKey: MODEL, embed: model.embed });

    const sentences = ['api.md: Creates a directory.', 'api.md: Parents are created too.'];
    expect(model.embedded).toEqual(expect.arrayContaining([...sentences, 'install.md: Run the installer.']));
    expect(model.embedded.filter((text) => /Added in|mkdir\(path\)/.test(text) && !text.includes('\n'))).toEqual([]);
    expect(report.sentencesEmbedded).toBe(5);
    const cached = await store.cachedVectors(MODEL, sentences.map((text) => embeddingTextHash(text)));
    expect(sentences.map((text) => cached.get(embeddingTextHash(text))?.[0])).toEqual(sentences.map((text) => text.length));
  });

  test('re-ingesting an unchanged text runs no model: its vector comes from the cache', async () => {
    const store = await openStoreWithPages();
    const model = recordingModel();
    await embedPendingPassages(store, { modelKey: MODEL, embed: model.embed });
    model.embedded.length = 0;

    // The page is written again (new passages, new ids) with one passage changed.
    await store.putDocuments([page('install.md', ['Run the installer.', 'Reboot the machine.'])]);
    const report = await embedPendingPassages(store, { modelKey: MODEL, embed: model.embed });

    expect(report).toEqual({ embedded: 2, cached: 1, sentencesEmbedded: 1 });
    expect(model.embedded.sort()).toEqual(['Guide › install.md\nReboot the machine.', 'install.md: Reboot the machine.']);
  });

  test('the sweeper embeds what an ingest wrote after it started, once triggered', async () => {
    const store = await openStoreWithPages();
    const model = recordingModel();
    const errors: Error[] = [];
    let sweeps = 0;
    const sweeper = startEmbeddingSweeper(store, { modelKey: MODEL, embed: model.embed, onSweep: () => sweeps++, onError: (error) => errors.push(error) });
    onTestFinished(() => sweeper.stop());

    sweeper.trigger();
    await until(async () => (await store.countPassagesWithoutVector(MODEL)) === 0);
    await store.putDocuments([page('remove.md', ['Run the uninstaller.'])]);
    expect(await store.countPassagesWithoutVector(MODEL)).toBe(1);
    sweeper.trigger();
    await until(async () => (await store.countPassagesWithoutVector(MODEL)) === 0);

    expect(model.embedded).toContain('Guide › remove.md\nRun the uninstaller.');
    expect(errors).toEqual([]);
    await until(async () => sweeps === 2);
  });
});

/** Waits (at most 5 s) until the condition holds. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('The condition did not hold within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
