/**
 * Passages' embedding vectors for dense retrieval (retrieval/dense-retriever.ts):
 * the passages still to embed, their vectors under the key of the model
 * that computed them, the cache of vectors by the hash of the embedded
 * text, and a knowledge base's vectors read for search. Their SQL is in
 * embedding-repository.ts.
 */

/** A passage to embed: its storage id, knowledge base, and what its embedding is computed from. */
export interface PassageToEmbed {
  chunkId: number;
  kbId: string;
  /** The document's title. */
  title: string;
  /** Headings from the page title down to the passage's section, as a ScoredPassage (store/passages/passages.ts) has them. */
  headingPath: string[];
  text: string;
}

/** A passage's vector, with the hash of the text it was computed from (the cache key). */
export interface PassageVector {
  chunkId: number;
  textHash: string;
  vector: Float32Array;
}

/** A vector for the embedding cache alone (a passage's sentence, embedding/passage-text.ts `sentenceEmbeddingTexts`), by the hash of its text. */
export interface CachedVector {
  textHash: string;
  vector: Float32Array;
}

/** A knowledge base's passage vectors, for exact search in memory. */
export interface DenseIndex {
  /** Storage ids of the passages that have a vector under the model, ascending. */
  chunkIds: number[];
  /** Their documents' storage ids (documents.id, the ids ReachStatistics.readableDocuments holds), aligned with chunkIds. */
  documentIds: number[];
  /** chunkIds.length × dimensions floats, row-major, aligned with chunkIds. */
  vectors: Float32Array;
  dimensions: number;
}

/** Passage vectors and the embedding cache (dense retrieval), each under the key of the model that computed it. */
export interface EmbeddingRepository {
  /**
   * Up to `limit` passages with no vector under `modelKey`, by ascending
   * chunk id; of one knowledge base when `kbId` is given. `title` is the
   * document's title; `headingPath` as a ScoredPassage (store/passages/passages.ts) has it.
   */
  passagesWithoutVector(modelKey: string, limit: number, kbId?: string): Promise<PassageToEmbed[]>;
  /** How many passages have no vector under `modelKey` (all knowledge bases, or one). */
  countPassagesWithoutVector(modelKey: string, kbId?: string): Promise<number>;
  /** Cached vectors under `modelKey` for these text hashes, by hash (those absent are left out). */
  cachedVectors(modelKey: string, textHashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /**
   * In one transaction: stores each vector for its passage (a chunk id no
   * longer stored is skipped; an existing row for the chunk is replaced;
   * of a chunk id given twice, the last) and every vector in the cache
   * (insert or ignore: a text hash already cached keeps its vector; a
   * skipped passage's vector is cached too, its text may come back), and
   * bumps the content version (store/documents/content-version.ts) of every knowledge
   * base whose passages got a vector, so cached answers are recomputed.
   * `cached` (the passages' sentence vectors) goes into the cache in the
   * same transaction, also insert or ignore: once a passage has its vector,
   * its sentences' vectors are cached too.
   */
  putPassageVectors(modelKey: string, vectors: readonly PassageVector[], cached?: readonly CachedVector[]): Promise<void>;
  /**
   * A knowledge base's passage vectors under `modelKey` (only passages that
   * have one), by ascending chunk id, read in pages within one read-only
   * transaction (one snapshot).
   *
   * @throws Error when a stored vector's length is not `dimensions` × 4 bytes
   */
  readDenseIndex(kbId: string, modelKey: string, dimensions: number): Promise<DenseIndex>;
  /**
   * Removes every passage vector and cache entry of any other model key (a
   * model change must never mix two models' vectors), in one transaction
   * that bumps the content version of every knowledge base whose passages
   * lost a vector.
   *
   * @returns the passage vectors removed
   */
  removeOtherModelVectors(modelKey: string): Promise<number>;
}
