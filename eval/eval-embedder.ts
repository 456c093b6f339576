import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbeddingDiskCache, type EmbeddingDiskCache } from './embedding-disk-cache.ts';
import { loadEmbedder, type Embedder } from '../server/embedding/embedder.ts';
import { embedInBatches } from '../server/embedding/embed-passages.ts';
import { createEmbeddingPool, type EmbeddingPool } from '../server/embedding/embedding-pool.ts';
import { installedModelFolder } from '../server/embedding/model-files.ts';
import { modelFetchSettings } from '../server/embedding/model-fetch.ts';
import { defaultModel, modelKey, type ModelSpec } from '../server/embedding/model-manifest.ts';

/**
 * The embedding model as the evaluation runs it: the manifest's model from
 * the cache `npm install` filled, passages embedded on the server's worker
 * pool, questions on this thread, both through a disk cache
 * (`eval/.cache/`, eval/embedding-disk-cache.ts) so that a second run of a
 * corpus embeds nothing.
 */
export interface EvalEmbedder {
  model: ModelSpec;
  modelKey: string;
  /** Passage texts to vectors (pool, disk cache). */
  embedPassages(texts: readonly string[]): Promise<Float32Array[]>;
  /** A question to its vector (this thread, disk cache). */
  embedQuery(question: string): Promise<Float32Array>;
  /** Tokens of a passage text, for batching by length. */
  tokenCount(text: string): number;
  close(): Promise<void>;
}

const CACHE_DIR = fileURLToPath(new URL('./.cache', import.meta.url));

/**
 * @param modelFile an ONNX file to run instead of the manifest's (same tokenizer), to compare exports
 * @throws Error when the model is not in the cache (run npm install)
 */
export async function openEvalEmbedder(options: { modelFile?: string; threads?: number } = {}): Promise<EvalEmbedder> {
  const model = defaultModel();
  const folder = await installedModelFolder(modelFetchSettings(process.env).cacheDir, model);
  if (!folder) throw new Error(`The embedding model ${model.id} is not in the model cache: run npm install (or npm run fetch-model)`);
  const key = options.modelFile === undefined ? modelKey(model) : `${modelKey(model)}+${options.modelFile}`;
  const cache: EmbeddingDiskCache = await openEmbeddingDiskCache(join(CACHE_DIR, `${key.replace(/[^A-Za-z0-9.-]+/g, '_')}.bin`), model.dimensions);
  const queries: Embedder = await loadEmbedder(model, folder, options.modelFile === undefined ? {} : { modelFile: options.modelFile, threads: 2 });
  let pool: EmbeddingPool | undefined;
  const batch = (texts: readonly string[]) => {
    if (options.modelFile !== undefined) return queries.embed(texts, 'passage');
    pool ??= createEmbeddingPool(model, folder, options.threads ?? 2);
    return pool.embed(texts, 'passage');
  };
  const passages = (texts: readonly string[]) => embedInBatches(texts, batch, { length: (text) => queries.tokenize(text, 'passage').length });
  return {
    model,
    modelKey: key,
    async embedPassages(texts) {
      const vectors = await cache.embed(texts, passages);
      await cache.flush();
      return vectors;
    },
    async embedQuery(question) {
      const [vector] = await cache.embed([`query: ${question}`], async ([text]) => queries.embed([text!.slice('query: '.length)], 'query'));
      return vector!;
    },
    tokenCount: (text) => queries.tokenize(text, 'passage').length,
    async close() {
      await cache.flush();
      await pool?.close();
      await queries.release();
    },
  };
}
