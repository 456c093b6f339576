import { Tokenizer } from '@huggingface/tokenizers';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { readModelFile, verifyModelFolder } from './model-files.ts';
import type { ModelSpec } from './model-manifest.ts';

/**
 * A sentence embedding model run with ONNX Runtime on the CPU: text to one
 * unit-length vector, as sentence-transformers computes it (tokenize with
 * the model's tokenizer, truncate to `maxTokens`, run the encoder, pool the
 * last hidden state - mean over the attention mask, or the [CLS] token -
 * then L2-normalise). N. Reimers & I. Gurevych, "Sentence-BERT", EMNLP 2019.
 *
 * Runs on the calling thread; the server embeds on worker threads
 * (server/embedding/embedding-pool.ts).
 */

/** What a text is embedded as: some models prefix queries and passages differently. */
export type EmbeddingKind = 'query' | 'passage';

export interface Embedder {
  readonly model: ModelSpec;
  /**
   * @param texts texts to embed, run as one batch (padded to the longest)
   * @returns one vector of `model.dimensions` floats per text, unit length when the model normalises
   */
  embed(texts: readonly string[], kind: EmbeddingKind): Promise<Float32Array[]>;
  /** Token ids of a text as the model sees it (prefix added, truncated), for batching by length. */
  tokenize(text: string, kind: EmbeddingKind): number[];
  release(): Promise<void>;
}

export interface EmbedderOptions {
  /** ONNX Runtime intra-op threads (default 1: the server runs one embedder per worker thread). */
  threads?: number;
  /** Run this ONNX file instead of the manifest's (an evaluation comparing exports); the tokenizer stays the manifest's. */
  modelFile?: string;
}

/**
 * Loads a model from its verified folder.
 *
 * @param folder holds the manifest's files; each is checked against its sha256 first
 * @throws ModelIntegrityError naming a file whose sha256 differs
 */
export async function loadEmbedder(model: ModelSpec, folder: string, options: EmbedderOptions = {}): Promise<Embedder> {
  await verifyModelFolder(model, folder);
  const tokenizer = new Tokenizer(JSON.parse((await readModelFile(folder, 'tokenizer.json')).toString('utf8')) as object, {});
  const sessionOptions: ort.InferenceSession.SessionOptions = { intraOpNumThreads: options.threads ?? 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' };
  // Opened by path: a graph's external weights (model.onnx_data) are found beside it.
  const session = await ort.InferenceSession.create(options.modelFile ?? join(folder, 'model.onnx'), sessionOptions);
  const output = session.outputNames[0]!;

  function tokenize(text: string, kind: EmbeddingKind): number[] {
    const prefix = kind === 'query' ? model.queryPrefix : model.passagePrefix;
    const ids = tokenizer.encode(prefix + text).ids;
    if (ids.length <= model.maxTokens) return ids;
    // Truncated as the tokenizer's own truncation does: the first tokens, and the closing token ([SEP], </s>) kept.
    const kept = ids.slice(0, model.maxTokens);
    kept[model.maxTokens - 1] = ids[ids.length - 1]!;
    return kept;
  }

  return {
    model,
    tokenize,
    async embed(texts, kind) {
      if (texts.length === 0) return [];
      const sequences = texts.map((text) => tokenize(text, kind));
      const { feeds, width } = encoderFeeds(sequences, session.inputNames);
      const results = await session.run(feeds);
      const hidden = results[output]!.data as Float32Array;
      const dimensions = model.dimensions;
      return sequences.map((ids, row) => pool(hidden, row, width, ids.length, dimensions, model.pooling, model.normalize));
    },
    release: () => session.release(),
  };
}

/**
 * The encoder's inputs for a batch of token id sequences: ids and attention
 * mask (int64, [batch, width], padded with 0 to the longest), and token types
 * (all 0) when the graph takes them (BERT does, XLM-RoBERTa does not).
 */
export function encoderFeeds(sequences: readonly (readonly number[])[], inputNames: readonly string[]): { feeds: Record<string, ort.Tensor>; width: number } {
  const width = Math.max(...sequences.map((ids) => ids.length));
  const size = sequences.length * width;
  const inputIds = new BigInt64Array(size);
  const mask = new BigInt64Array(size);
  sequences.forEach((ids, row) => {
    for (let column = 0; column < ids.length; column++) {
      inputIds[row * width + column] = BigInt(ids[column]!);
      mask[row * width + column] = 1n;
    }
  });
  const shape = [sequences.length, width];
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', inputIds, shape),
    attention_mask: new ort.Tensor('int64', mask, shape),
  };
  if (inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(size), shape);
  return { feeds, width };
}

/**
 * One text's vector from the encoder's last hidden state ([batch, width,
 * dimensions], row-major): the mean of its `length` real tokens (padding
 * excluded) or its first ([CLS]) token, L2-normalised when asked.
 */
export function pool(
  hidden: Float32Array,
  row: number,
  width: number,
  length: number,
  dimensions: number,
  pooling: ModelSpec['pooling'],
  normalize: boolean,
): Float32Array {
  const vector = new Float32Array(dimensions);
  const tokens = pooling === 'cls' ? 1 : length;
  for (let token = 0; token < tokens; token++) {
    const offset = (row * width + token) * dimensions;
    for (let dimension = 0; dimension < dimensions; dimension++) vector[dimension]! += hidden[offset + dimension]!;
  }
  let norm = 0;
  for (let dimension = 0; dimension < dimensions; dimension++) {
    vector[dimension]! /= tokens;
    norm += vector[dimension]! * vector[dimension]!;
  }
  if (normalize && norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let dimension = 0; dimension < dimensions; dimension++) vector[dimension]! *= scale;
  }
  return vector;
}

/** The dot product of two vectors of one length: their cosine similarity when both are unit length. */
export function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += left[index]! * right[index]!;
  return sum;
}
