import * as ort from 'onnxruntime-node';
import { performance } from 'node:perf_hooks';
import { quantile } from './figures.ts';
import { encoderFeeds, loadEmbedder, pool } from '../server/embedding/embedder.ts';
import { EMBED_BATCH, embedInBatches } from '../server/embedding/embed-passages.ts';
import { createEmbeddingPool } from '../server/embedding/embedding-pool.ts';
import { join } from 'node:path';
import type { ModelSpec } from '../server/embedding/model-manifest.ts';

/**
 * The embedding model's speed on this machine, each figure beside raw ONNX
 * Runtime running the same model on the same token batches in the same run
 * (the limit of this CPU):
 * - passage embedding throughput: the server's path (worker pool, batches
 *   of {@link EMBED_BATCH} texts of similar length, tokenizing, pooling)
 *   against one session given the pre-tokenized batches with every core;
 * - question embedding p50: one question at a time on one thread, as an
 *   answer worker embeds it (the query cache missed), against the session
 *   alone on the same tokens.
 */
export interface EmbeddingFigures {
  passagesPerSecond: number;
  rawPassagesPerSecond: number;
  queryP50Ms: number;
  rawQueryP50Ms: number;
}

export async function measureEmbedding(model: ModelSpec, folder: string, passages: readonly string[], questions: readonly string[], threads: number): Promise<EmbeddingFigures> {
  const embedder = await loadEmbedder(model, folder);
  // The same batches both ways: sorted by token length, EMBED_BATCH at a time.
  const tokenized = passages.map((text) => embedder.tokenize(text, 'passage'));
  const order = tokenized.map((ids, position) => ({ ids, position })).sort((left, right) => left.ids.length - right.ids.length);
  const batches: number[][][] = [];
  for (let start = 0; start < order.length; start += EMBED_BATCH) batches.push(order.slice(start, start + EMBED_BATCH).map((entry) => entry.ids));

  const session = await ort.InferenceSession.create(join(folder, 'model.onnx'), { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const run = async (sequences: number[][]) => {
    const { feeds, width } = encoderFeeds(sequences, session.inputNames);
    const output = await session.run(feeds);
    const hidden = output[session.outputNames[0]!]!.data as Float32Array;
    return sequences.map((sequence, row) => pool(hidden, row, width, sequence.length, model.dimensions, model.pooling, model.normalize));
  };
  let mark = performance.now();
  for (const batch of batches) await run(batch);
  const rawPassagesPerSecond = passages.length / ((performance.now() - mark) / 1000);

  const workers = createEmbeddingPool(model, folder, threads);
  try {
    await workers.embed(['warm up'], 'passage');
    mark = performance.now();
    await embedInBatches(passages, (texts) => workers.embed(texts, 'passage'), { length: (text) => embedder.tokenize(text, 'passage').length });
    const passagesPerSecond = passages.length / ((performance.now() - mark) / 1000);

    const single = await ort.InferenceSession.create(join(folder, 'model.onnx'), { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    const ours: number[] = [];
    const raw: number[] = [];
    for (const question of questions) {
      mark = performance.now();
      await embedder.embed([question], 'query');
      ours.push(performance.now() - mark);
      const ids = embedder.tokenize(question, 'query');
      mark = performance.now();
      await single.run(encoderFeeds([ids], single.inputNames).feeds);
      raw.push(performance.now() - mark);
    }
    await single.release();
    return { passagesPerSecond, rawPassagesPerSecond, queryP50Ms: quantile(ours, 0.5), rawQueryP50Ms: quantile(raw, 0.5) };
  } finally {
    await workers.close();
    await session.release();
    await embedder.release();
  }
}
