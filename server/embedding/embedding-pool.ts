import { Piscina } from 'piscina';
import type { EmbeddingKind } from './embedder.ts';
import type { EmbeddingTask } from './embedding-worker.ts';
import type { ModelSpec } from './model-manifest.ts';
import { workerModule } from '../worker-module.ts';

/**
 * Where passages are embedded: worker threads each running the model with
 * one ONNX Runtime thread, so that embedding never stalls the event loop
 * that serves questions. Two such workers on two cores embedded 16.3
 * passages/s where one session with two intra-op threads did 15.1 on the
 * same batches (`npm run bench`, embedding rows).
 */
export interface EmbeddingPool {
  /** @returns one unit vector per text, in order */
  embed(texts: readonly string[], kind: EmbeddingKind): Promise<Float32Array[]>;
  close(): Promise<void>;
}

const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './embedding-worker.ts' : './embedding-worker.js', import.meta.url);

/**
 * @param folder the model's verified folder (embedding/model-files.ts)
 * @param threads worker threads (>= 1)
 */
export function createEmbeddingPool(model: ModelSpec, folder: string, threads: number): EmbeddingPool {
  const worker = workerModule(WORKER_URL);
  const pool = new Piscina<EmbeddingTask, Float32Array[]>({
    filename: worker.url.href,
    minThreads: threads,
    maxThreads: threads,
    recordTiming: false,
    execArgv: worker.execArgv,
  });
  return {
    embed: (texts, kind) => pool.run({ model, folder, texts: [...texts], kind }),
    close: () => pool.destroy(),
  };
}
