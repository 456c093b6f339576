import { embeddingTextHash, passageEmbeddingText, sentenceEmbeddingTexts } from './passage-text.ts';
import type { CachedVector, PassageVector, Store } from '../store/store.ts';

/**
 * Gives every stored passage a vector of the current model: passages
 * without one are read in rounds, their embedding texts looked up in the
 * embedding cache (the same text embedded before, by any passage, costs no
 * model run), the rest embedded in batches of similar length, and the
 * vectors stored. Run at start (after a model change every passage is
 * without a vector: all are embedded again, with progress) and after each
 * ingest; passages written meanwhile are found by the next round.
 */

/** What embedding passages reads and writes of the store. */
export type PassageVectorStore = Pick<Store, 'passagesWithoutVector' | 'countPassagesWithoutVector' | 'cachedVectors' | 'putPassageVectors'>;

/** Passages read per round. */
export const EMBED_ROUND = 256;
/**
 * Texts per model run: batches are padded to their longest text, so texts
 * are sorted by length first. Measured on the 2-core development machine
 * with 256-token inputs and two intra-op threads: 12.1 texts/s in batches of
 * 8 against 8.4 in batches of 32 (the int8 file; fp32 13.6 against 10.6),
 * the attention's cost growing with the batch's memory.
 */
export const EMBED_BATCH = 8;

export interface EmbedPassagesOptions {
  modelKey: string;
  /** Only this knowledge base's passages; all when absent. */
  kbId?: string;
  /** Runs the model on a batch of passage texts (embedding/embedding-pool.ts). */
  embed: (texts: readonly string[]) => Promise<Float32Array[]>;
  /** Token count of a text, to batch texts of similar length together. */
  tokenCount?: (text: string) => number;
  /** Told after each round: passages done of those found at the start. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Asked before each round and batch: true ends the run there (a server shutting down) with {@link EmbeddingStoppedError}. */
  stopped?: () => boolean;
  /** Batches in flight at once (the pool's threads); default all of a round's. */
  concurrency?: number;
}

/** What a run did: passages given a vector, of those how many came from the cache, and the sentence texts the model embedded. */
export interface EmbedPassagesReport {
  embedded: number;
  cached: number;
  sentencesEmbedded: number;
}

/**
 * @throws StoreUnavailableError from the store; the model's errors as they are
 */
export async function embedPendingPassages(store: PassageVectorStore, options: EmbedPassagesOptions): Promise<EmbedPassagesReport> {
  const total = await store.countPassagesWithoutVector(options.modelKey, options.kbId);
  const report: EmbedPassagesReport = { embedded: 0, cached: 0, sentencesEmbedded: 0 };
  if (total === 0) return report;
  options.onProgress?.({ done: 0, total });
  let done = 0;
  for (;;) {
    if (options.stopped?.()) break;
    const passages = await store.passagesWithoutVector(options.modelKey, EMBED_ROUND, options.kbId);
    if (passages.length === 0) break;
    const texts = passages.map((passage) => passageEmbeddingText(passage));
    const hashes = texts.map((text) => embeddingTextHash(text));
    const sentences = new Map(passages.flatMap((passage) => sentenceEmbeddingTexts(passage)).map((text) => [embeddingTextHash(text), text]));
    const cached = await store.cachedVectors(options.modelKey, [...hashes, ...sentences.keys()]);
    const missing = new Map<string, string>();
    hashes.forEach((hash, position) => {
      if (!cached.has(hash)) missing.set(hash, texts[position]!);
    });
    for (const [hash, text] of sentences) if (!cached.has(hash)) missing.set(hash, text);
    const computedVectors = await embedInBatches([...missing.values()], options.embed, {
      ...(options.tokenCount && { length: options.tokenCount }),
      ...(options.concurrency && { concurrency: options.concurrency }),
      ...(options.stopped && { stopped: options.stopped }),
    });
    const computed = new Map([...missing.keys()].map((hash, position) => [hash, computedVectors[position]!]));
    const vectors: PassageVector[] = passages.map((passage, position) => ({
      chunkId: passage.chunkId,
      textHash: hashes[position]!,
      vector: cached.get(hashes[position]!) ?? computed.get(hashes[position]!)!,
    }));
    const sentenceVectors: CachedVector[] = [...sentences.keys()].filter((hash) => computed.has(hash)).map((hash) => ({ textHash: hash, vector: computed.get(hash)! }));
    await store.putPassageVectors(options.modelKey, vectors, sentenceVectors);
    report.cached += hashes.filter((hash) => cached.has(hash)).length;
    report.sentencesEmbedded += sentenceVectors.length;
    report.embedded += passages.length;
    done += passages.length;
    options.onProgress?.({ done: Math.min(done, total), total: Math.max(total, done) });
    // A round shorter than asked was the last of those waiting.
    if (passages.length < EMBED_ROUND) break;
  }
  return report;
}

/** A run of {@link embedPendingPassages} ended by its `stopped` check between batches. */
export class EmbeddingStoppedError extends Error {
  constructor() {
    super('Embedding stopped before every batch was embedded');
    this.name = 'EmbeddingStoppedError';
  }
}

/** Options of {@link embedInBatches}. */
export interface BatchOptions {
  /** Token count of a text, to batch texts of similar length; default its length in characters. */
  length?: (text: string) => number;
  /** Batches in flight at once (the pool's threads); default all. */
  concurrency?: number;
  /** Asked before each batch is sent: true sends no more and rejects with {@link EmbeddingStoppedError}. */
  stopped?: () => boolean;
}

/**
 * Embeds texts in batches of {@link EMBED_BATCH} texts of similar length
 * (sorted by `length`, so little of each batch is padding), at most
 * `concurrency` batches in flight, so that a stop waits for those alone:
 * ONNX Runtime must not be torn down while it runs a batch.
 *
 * @returns one vector per text, in the texts' order
 * @throws EmbeddingStoppedError when `stopped` says so before the last batch
 */
export async function embedInBatches(
  texts: readonly string[],
  embedBatch: (texts: readonly string[]) => Promise<Float32Array[]>,
  options: BatchOptions = {},
): Promise<Float32Array[]> {
  const length = options.length ?? ((text: string) => text.length);
  const order = texts.map((text, position) => ({ position, length: length(text) })).sort((left, right) => left.length - right.length);
  const batches: number[][] = [];
  for (let start = 0; start < order.length; start += EMBED_BATCH) batches.push(order.slice(start, start + EMBED_BATCH).map((entry) => entry.position));
  const vectors = new Array<Float32Array>(texts.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < batches.length) {
      if (options.stopped?.()) throw new EmbeddingStoppedError();
      const batch = batches[next++]!;
      const results = await embedBatch(batch.map((position) => texts[position]!));
      batch.forEach((position, offset) => (vectors[position] = results[offset]!));
    }
  };
  const lanes = Math.max(1, Math.min(options.concurrency ?? batches.length, batches.length));
  // Every lane settles before this does, so nothing is still running when a caller reacts to a failure.
  const settled = await Promise.allSettled(Array.from({ length: lanes }, lane));
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return vectors;
}
