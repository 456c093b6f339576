import { loadEmbedder, type Embedder, type EmbeddingKind } from './embedder.ts';
import type { ModelSpec } from './model-manifest.ts';

/**
 * Worker-thread entry of the embedding pool (embedding/embedding-pool.ts):
 * runs the model on this thread, loaded once (its files verified then) and
 * kept while the tasks name the same folder.
 */

/** One batch to embed. */
export interface EmbeddingTask {
  model: ModelSpec;
  folder: string;
  texts: string[];
  kind: EmbeddingKind;
}

let loaded: { key: string; embedder: Promise<Embedder> } | undefined;

/** @returns one vector per text, as the embedder computes it */
export default async function embedBatch(task: EmbeddingTask): Promise<Float32Array[]> {
  const key = `${task.folder}\n${task.model.files.map((file) => file.sha256).join()}`;
  if (loaded?.key !== key) {
    const previous = loaded?.embedder;
    loaded = { key, embedder: loadEmbedder(task.model, task.folder) };
    await (await previous?.catch(() => undefined))?.release();
  }
  try {
    return await (await loaded.embedder).embed(task.texts, task.kind);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    throw { name: failure.name, message: failure.message };
  }
}
