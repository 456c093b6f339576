import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createCli, type CliDeps } from './program.ts';
import { embedPendingPassages } from '../embedding/embed-passages.ts';
import { loadEmbedder, type Embedder } from '../embedding/embedder.ts';
import { modelKey, type ModelSpec } from '../embedding/model-manifest.ts';
import { openStore, type StoreLocation } from '../store/open-store.ts';
import { installedTestModel } from '../testing/installed-model.ts';
import { createTestStoreLocation } from '../testing/test-store.ts';

/**
 * `kb ask` tries the engine a visitor's question meets: with the embedding
 * model installed and the knowledge base's passages embedded, BM25F and
 * dense retrieval fused, as a server's answer worker retrieves; otherwise
 * BM25F alone - and it says which on standard error. The real model, as
 * npm install left it (the tests fail, not skip, when it is missing).
 */

let model: ModelSpec;
let modelFolder: string;
let embedder: Embedder;
let folder: string;
let location: StoreLocation;
let dispose: () => Promise<void>;
let stdout: string;
let stderr: string;

beforeAll(async () => {
  ({ model, folder: modelFolder } = await installedTestModel());
  embedder = await loadEmbedder(model, modelFolder);
});

afterAll(async () => {
  await embedder?.release();
});

/** Runs one CLI command against the test's store, the embedding model as `answerEmbedding` gives it. */
async function run(answerEmbedding: CliDeps['answerEmbedding'], ...args: string[]): Promise<void> {
  const program = createCli({
    openStore: () => openStore(location),
    tokenTtlCapMinutes: 120,
    ownerEmail: 'owner@example.com',
    abstentionThreshold: 0.5,
    now: Date.now,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    ...(answerEmbedding && { answerEmbedding }),
  });
  program.exitOverride();
  await program.parseAsync(['node', 'kb', ...args]);
}

const installedModel: CliDeps['answerEmbedding'] = async () => ({ embedding: { model, folder: modelFolder } });

/** Gives every passage of the knowledge base its vector, as a server's background sweep does. */
async function embedPassages(): Promise<void> {
  const store = openStore(location);
  try {
    await embedPendingPassages(store, { modelKey: modelKey(model), kbId: 'help', embed: (texts) => embedder.embed(texts, 'passage') });
  } finally {
    await store.close();
  }
}

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-ask-test-'));
  ({ location, dispose } = await createTestStoreLocation(folder));
  stdout = '';
  stderr = '';
  await run(undefined, 'user', 'add', 'owner@example.com');
  await run(undefined, 'knowledge-base', 'create', 'help');
  // One page says what is asked in other words than the question's; the other shares the question's words but not its meaning.
  await writeFile(
    join(folder, 'directories.md'),
    '# Directories\n\n## Reading a directory\n\nThe `readdir(path)` function reads the contents of a directory and returns the names of the entries in it.\n',
  );
  await writeFile(
    join(folder, 'folders.md'),
    '# Shared folders\n\n## Folder permissions\n\nA shared folder lists who may open it. Add a person to the list to give them access to all the folder files.\n',
  );
  await run(undefined, 'ingest', folder, '--kb', 'help');
  stdout = '';
  stderr = '';
});

afterEach(async () => {
  process.exitCode = undefined;
  await dispose();
  await rm(folder, { recursive: true, force: true });
});

describe('kb ask', () => {
  test('with the model installed and every passage embedded: retrieval is hybrid - no answer from the page that only shares the words, and the section that answers in other words named', async () => {
    await embedPassages();

    await run(installedModel, 'ask', 'How do I list all the files in a folder?', '--kb', 'help', '--json');

    expect(stderr).toContain(`retrieval: hybrid (BM25F and dense retrieval with ${model.id})`);
    const answer = JSON.parse(stdout);
    expect(answer.citations).not.toContainEqual(expect.objectContaining({ doc_id: 'folders.md' }));
    expect(answer.answer).toContain('Directories › Reading a directory');
  });

  test('without the embedding model: answered by BM25F alone, from the page sharing the words, and says why', async () => {
    await embedPassages();

    await run(async () => ({ reason: 'dense retrieval is turned off (KB_EMBEDDING=off)' }), 'ask', 'How do I list all the files in a folder?', '--kb', 'help', '--json');

    expect(stderr).toContain('retrieval: BM25F alone: dense retrieval is turned off (KB_EMBEDDING=off)');
    expect(JSON.parse(stdout).citations).toContainEqual(expect.objectContaining({ doc_id: 'folders.md' }));
  });

  test('with passages not yet embedded: says it answers by BM25F alone until a server has embedded them', async () => {
    await run(installedModel, 'ask', 'How do I list all the files in a folder?', '--kb', 'help');

    expect(stderr).toMatch(/retrieval: BM25F alone: \d+ passages have no vector yet/);
  });
});
