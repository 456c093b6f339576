import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dot, loadEmbedder, type Embedder } from './embedder.ts';
import { ModelIntegrityError } from './model-files.ts';
import { defaultModel, networkFiles } from './model-manifest.ts';
import { installedTestModel } from '../testing/installed-model.ts';

/**
 * The real model the manifest pins, as `npm install` fetched it: these
 * tests fail (they do not skip) when it is missing, so CI always runs it.
 */

const model = defaultModel();
let folder: string;
let embedder: Embedder;

beforeAll(async () => {
  ({ folder } = await installedTestModel());
  embedder = await loadEmbedder(model, folder);
});

afterAll(async () => {
  await embedder?.release();
});

describe('the embedding model', () => {
  test('puts a question nearest the passage that answers it in other words', async () => {
    const [question] = await embedder.embed(['How do I list all the files in a folder?'], 'query');
    const passages = await embedder.embed(
      [
        'fs.readdir(path): reads the contents of a directory. The callback gets the names of the entries.',
        'process.env: an object holding the user environment, such as PATH and HOME.',
        'fs.mkdir(path): creates a directory; with recursive, its missing parents too.',
        'http.createServer(): returns a new HTTP server that listens for requests.',
      ],
      'passage',
    );
    const similarities = passages.map((passage) => dot(question!, passage));
    expect(similarities.indexOf(Math.max(...similarities))).toBe(0);
  });

  test('gives unit-length vectors of the manifest dimension, one per text, the same alone and in a batch', async () => {
    const texts = ['Create a directory and its parents', 'A much longer passage about streams, pipes, back-pressure and how readable streams are consumed in Node.js'];
    const batch = await embedder.embed(texts, 'passage');
    const alone = await embedder.embed([texts[0]!], 'passage');

    expect(batch).toHaveLength(2);
    for (const vector of batch) {
      expect(vector).toHaveLength(model.dimensions);
      expect(dot(vector, vector)).toBeCloseTo(1, 4);
    }
    expect(dot(batch[0]!, alone[0]!)).toBeGreaterThan(0.99);
  });

  test('truncates a text longer than the model takes instead of failing', async () => {
    const long = 'directory '.repeat(2000);
    const ids = embedder.tokenize(long, 'passage');
    expect(ids).toHaveLength(model.maxTokens);
    // The closing special token ([SEP], </s>) is kept, as the tokenizer's own truncation keeps it.
    expect(ids.at(-1)).toBe(embedder.tokenize('directory', 'passage').at(-1));
    const [vector] = await embedder.embed([long], 'passage');
    expect(dot(vector!, vector!)).toBeCloseTo(1, 4);
  });

  test('a model folder whose weights were changed is refused, naming the file', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'kb-model-tampered-'));
    try {
      await cp(folder, copy, { recursive: true });
      // The weights: model.onnx, or model.onnx_data beside a bundled graph.
      const weights = networkFiles(model)[0]!;
      await writeFile(join(copy, weights.name), Buffer.from('not the pinned weights'));
      const failure = await loadEmbedder(model, copy).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ModelIntegrityError);
      expect((failure as Error).message).toContain(`Model file "${weights.name}" from ${join(copy, weights.name)} has sha256 `);
      expect((failure as Error).message).toContain(`not the ${weights.sha256.slice(0, 8)}`);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
