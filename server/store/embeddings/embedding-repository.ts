import { bumpContentVersion } from '../documents/content-version.ts';
import type { SqlExecutor } from '../sql-executor.ts';
import type { EmbeddingRepository } from './embeddings.ts';

/**
 * Passage embedding vectors for dense retrieval, stored per passage under
 * the key of the model that computed them (`passage_vectors`), and cached by
 * the hash of the text that was embedded (`embedding_cache`): re-ingesting
 * an unchanged text gives its passage a new chunk id, and the cache gives it
 * its vector back without a model run. A vector is stored as its Float32
 * values' little-endian bytes (a `Float32Array`'s memory on every platform
 * Node.js runs on in practice; swapped on a big-endian one), 4 bytes per
 * dimension, and read back as a `Float32Array`, bit for bit.
 */

/**
 * Most parameters one statement of a batch binds: many-row statements are
 * cut to fit (SQLite's limit was 999 before 3.32; PostgreSQL's is 65,535).
 */
const MAX_PARAMETERS = 500;
/**
 * Vectors read per statement by `readDenseIndex`: 16,384 (24 MB at 384
 * dimensions), well inside PostgreSQL's query timeout (5 s by default),
 * where the 64x Node.js docs' 313,536 vectors in one statement were not.
 */
export const DENSE_INDEX_PAGE = 16_384;

/** Whether this platform's typed arrays are little-endian (a `Float32Array`'s memory is then the stored form). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A vector as stored: its Float32 values' little-endian bytes. */
function encodeVector(vector: Float32Array): Buffer {
  const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  return LITTLE_ENDIAN ? bytes : Buffer.from(bytes).swap32();
}

/**
 * Copies a stored vector's bytes into `target` from float `offset` on (a
 * driver's Buffer may start at any byte, so it is copied, never viewed).
 */
function decodeVectorInto(bytes: Uint8Array, target: Float32Array, offset: number): void {
  const destination = new Uint8Array(target.buffer, target.byteOffset + offset * Float32Array.BYTES_PER_ELEMENT, bytes.byteLength);
  destination.set(bytes);
  if (!LITTLE_ENDIAN) Buffer.from(destination.buffer, destination.byteOffset, destination.byteLength).swap32();
}

/** A stored vector as a `Float32Array` of its own. */
function decodeVector(bytes: Uint8Array, what: string): Float32Array {
  if (bytes.byteLength % Float32Array.BYTES_PER_ELEMENT !== 0) {
    throw new Error(`The stored vector of ${what} has ${bytes.byteLength} bytes, not a multiple of ${Float32Array.BYTES_PER_ELEMENT}`);
  }
  const vector = new Float32Array(bytes.byteLength / Float32Array.BYTES_PER_ELEMENT);
  decodeVectorInto(bytes, vector, 0);
  return vector;
}

/** `rows` in batches of at most {@link MAX_PARAMETERS} parameters, `parametersPerRow` each. */
function batches<T>(rows: readonly T[], parametersPerRow: number): T[][] {
  const size = Math.floor(MAX_PARAMETERS / parametersPerRow);
  const cut: T[][] = [];
  for (let start = 0; start < rows.length; start += size) cut.push(rows.slice(start, start + size));
  return cut;
}

/** `count` rows of `width` placeholders for a `VALUES` list: `(?, ?), (?, ?)`. */
function valuesList(count: number, width: number): string {
  const row = `(${Array.from({ length: width }, () => '?').join(', ')})`;
  return Array.from({ length: count }, () => row).join(', ');
}

/**
 * The embedding repository, written once for both backends over a
 * {@link SqlExecutor}. Passages are found by `chunks.kb_id` (index
 * `chunks_kb`) and their vectors by `passage_vectors`' primary key: no other
 * index is needed. Writes lock their knowledge bases' statistics rows
 * first, in a fixed order, as every writer of documents does, so a write
 * running beside an ingest neither deadlocks with it nor stores a vector
 * for a passage the ingest removed.
 */
export function embeddingRepository(sql: SqlExecutor): EmbeddingRepository {
  const { dialect } = sql;
  const withoutVector = `NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.chunk_id = c.id AND v.model_key = ?)`;

  /** The stored passages among `chunkIds`, with their knowledge bases. */
  const storedChunks = (transaction: SqlExecutor, chunkIds: readonly number[]) =>
    transaction.all<{ id: number; kb_id: string }>(`SELECT id, kb_id FROM chunks WHERE ${dialect.memberOf('id')}`, [dialect.writeList(chunkIds)]);

  /** Bumps the content versions of knowledge bases, taking their statistics rows in a fixed order (no lock-order deadlock). */
  const bumpAll = async (transaction: SqlExecutor, kbIds: Iterable<string>) => {
    for (const kbId of [...new Set(kbIds)].sort()) await bumpContentVersion(transaction, kbId);
  };

  return {
    async passagesWithoutVector(modelKey, limit, kbId) {
      const rows = await sql.all<{ chunkId: number; kbId: string; title: string; headingPath: unknown; text: string }>(
        `SELECT c.id AS "chunkId", c.kb_id AS "kbId", d.title, c.heading_path AS "headingPath", c.text
         FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE ${kbId === undefined ? '' : 'c.kb_id = ? AND '}${withoutVector}
         ORDER BY c.id LIMIT ?`,
        [...(kbId === undefined ? [] : [kbId]), modelKey, limit],
      );
      return rows.map((row) => ({
        chunkId: Number(row.chunkId),
        kbId: row.kbId,
        title: row.title,
        headingPath: dialect.readList(row.headingPath),
        text: row.text,
      }));
    },
    async countPassagesWithoutVector(modelKey, kbId) {
      const row = await sql.get<{ count: number }>(
        `SELECT COUNT(*) AS count FROM chunks c WHERE ${kbId === undefined ? '' : 'c.kb_id = ? AND '}${withoutVector}`,
        [...(kbId === undefined ? [] : [kbId]), modelKey],
      );
      return Number(row?.count ?? 0);
    },
    async cachedVectors(modelKey, textHashes) {
      const vectors = new Map<string, Float32Array>();
      if (textHashes.length === 0) return vectors;
      const rows = await sql.all<{ textHash: string; vector: Uint8Array }>(
        `SELECT text_hash AS "textHash", vector FROM embedding_cache WHERE model_key = ? AND ${dialect.memberOf('text_hash')}`,
        [modelKey, dialect.writeList([...new Set(textHashes)])],
      );
      for (const row of rows) vectors.set(row.textHash, decodeVector(row.vector, `text hash "${row.textHash}"`));
      return vectors;
    },
    async putPassageVectors(modelKey, vectors, cached = []) {
      if (vectors.length === 0 && cached.length === 0) return;
      const byChunk = new Map(vectors.map((vector) => [vector.chunkId, vector]));
      const byText = new Map([...vectors, ...cached].map((vector) => [vector.textHash, vector]));
      const chunkIds = [...byChunk.keys()];
      await sql.transaction(async (transaction) => {
        const kbIds = new Set((await storedChunks(transaction, chunkIds)).map((row) => row.kb_id));
        // The knowledge bases' rows first, as every writer of their documents takes them; then the
        // passages again: one removed before the lock was taken is skipped, none can go after it.
        await bumpAll(transaction, kbIds);
        const stored = (await storedChunks(transaction, chunkIds)).filter((row) => kbIds.has(row.kb_id));
        const passages = stored.map((row) => byChunk.get(Number(row.id))!).sort((left, right) => left.chunkId - right.chunkId);
        for (const batch of batches(passages, 4)) {
          await transaction.run(
            `INSERT INTO passage_vectors (chunk_id, model_key, text_hash, vector) VALUES ${valuesList(batch.length, 4)}
             ON CONFLICT (chunk_id) DO UPDATE SET model_key = excluded.model_key, text_hash = excluded.text_hash, vector = excluded.vector`,
            batch.flatMap((passage) => [passage.chunkId, modelKey, passage.textHash, encodeVector(passage.vector)]),
          );
        }
        for (const batch of batches([...byText.values()], 3)) {
          await transaction.run(
            `INSERT INTO embedding_cache (model_key, text_hash, vector) VALUES ${valuesList(batch.length, 3)} ON CONFLICT DO NOTHING`,
            batch.flatMap((entry) => [modelKey, entry.textHash, encodeVector(entry.vector)]),
          );
        }
      });
    },
    readDenseIndex(kbId, modelKey, dimensions) {
      // Pages of DENSE_INDEX_PAGE rows by chunk id, all in one read-only snapshot: one statement for 313,536 vectors
      // (481 MB) outlasts PostgreSQL's query timeout. Counted first, so each page is decoded into the one array.
      return sql.transaction(
        async (transaction) => {
          const bytesPerVector = dimensions * Float32Array.BYTES_PER_ELEMENT;
          const counted = await transaction.get<{ count: number | string }>(
            `SELECT COUNT(*) AS count FROM passage_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE c.kb_id = ? AND v.model_key = ?`,
            [kbId, modelKey],
          );
          const vectors = new Float32Array(Number(counted?.count ?? 0) * dimensions);
          const chunkIds: number[] = [];
          const documentIds: number[] = [];
          for (let after = 0; ; ) {
            const rows = await transaction.all<{ chunkId: number; documentId: number; vector: Uint8Array }>(
              `SELECT v.chunk_id AS "chunkId", c.document_id AS "documentId", v.vector
               FROM passage_vectors v JOIN chunks c ON c.id = v.chunk_id
               WHERE c.kb_id = ? AND v.model_key = ? AND v.chunk_id > ?
               ORDER BY v.chunk_id LIMIT ${DENSE_INDEX_PAGE}`,
              [kbId, modelKey, after],
            );
            for (const row of rows) {
              if (row.vector.byteLength !== bytesPerVector) {
                throw new Error(
                  `The vector of passage ${row.chunkId} under model "${modelKey}" has ${row.vector.byteLength} bytes, not ${bytesPerVector} (${dimensions} dimensions)`,
                );
              }
              decodeVectorInto(row.vector, vectors, chunkIds.length * dimensions);
              chunkIds.push(Number(row.chunkId));
              documentIds.push(Number(row.documentId));
            }
            if (rows.length < DENSE_INDEX_PAGE) break;
            after = chunkIds[chunkIds.length - 1]!;
          }
          return { chunkIds, documentIds, vectors, dimensions };
        },
        { readOnly: true },
      );
    },
    removeOtherModelVectors(modelKey) {
      return sql.transaction(async (transaction) => {
        const touched = await transaction.all<{ kb_id: string }>(
          'SELECT DISTINCT c.kb_id FROM passage_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE v.model_key <> ?',
          [modelKey],
        );
        await bumpAll(transaction, touched.map((row) => row.kb_id));
        const removed = await transaction.run('DELETE FROM passage_vectors WHERE model_key <> ?', [modelKey]);
        await transaction.run('DELETE FROM embedding_cache WHERE model_key <> ?', [modelKey]);
        return removed;
      });
    },
  };
}
