import { createHash } from 'node:crypto';
import { mkdir, readFile, appendFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Embeddings kept on disk between evaluation runs, by the sha256 of the
 * embedded text and the model key: embedding a corpus takes minutes on a
 * 2-core machine (the Kubernetes docs: about 20), the figures need seconds.
 * One file per model key, records appended: 32 bytes of hash, then the
 * vector's float32s. Only the evaluation uses it; the server's cache is the
 * store's (store/embedding-repository.ts).
 */
export interface EmbeddingDiskCache {
  /** Embeds the texts not cached with `embed`, caches them, and returns every text's vector in order. */
  embed(texts: readonly string[], embed: (texts: readonly string[]) => Promise<Float32Array[]>): Promise<Float32Array[]>;
  /** Writes the vectors computed since the last flush. */
  flush(): Promise<void>;
  readonly size: number;
}

/** @param file the cache file (created when missing) */
export async function openEmbeddingDiskCache(file: string, dimensions: number): Promise<EmbeddingDiskCache> {
  const record = 32 + dimensions * 4;
  const vectors = new Map<string, Float32Array>();
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return Buffer.alloc(0);
    throw error;
  });
  for (let offset = 0; offset + record <= bytes.length; offset += record) {
    const hash = bytes.subarray(offset, offset + 32).toString('hex');
    const vector = new Float32Array(dimensions);
    for (let dimension = 0; dimension < dimensions; dimension++) vector[dimension] = bytes.readFloatLE(offset + 32 + dimension * 4);
    vectors.set(hash, vector);
  }
  let pending: Buffer[] = [];
  const keyOf = (text: string) => createHash('sha256').update(text).digest('hex');
  return {
    get size() {
      return vectors.size;
    },
    async embed(texts, embed) {
      const keys = texts.map(keyOf);
      const missing = [...new Set(keys.filter((key) => !vectors.has(key)))];
      if (missing.length > 0) {
        const textOf = new Map(keys.map((key, position) => [key, texts[position]!]));
        const computed = await embed(missing.map((key) => textOf.get(key)!));
        missing.forEach((key, position) => {
          const vector = computed[position]!;
          vectors.set(key, vector);
          const entry = Buffer.alloc(record);
          Buffer.from(key, 'hex').copy(entry, 0);
          for (let dimension = 0; dimension < dimensions; dimension++) entry.writeFloatLE(vector[dimension]!, 32 + dimension * 4);
          pending.push(entry);
        });
      }
      return keys.map((key) => vectors.get(key)!);
    },
    async flush() {
      if (pending.length === 0) return;
      await mkdir(dirname(file), { recursive: true });
      const data = Buffer.concat(pending);
      pending = [];
      await appendFile(file, data);
    },
  };
}
