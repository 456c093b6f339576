import * as ort from 'onnxruntime-node';
import type { DenseIndex } from '../store/store.ts';

/**
 * The exact float32 scan: the question's vector against every passage
 * vector of a knowledge base, as one matrix-vector product run by ONNX
 * Runtime's BLAS (MLAS), which reads the vectors once at memory speed. A
 * JavaScript loop of scalar multiply-adds took about 430 ms at 313,536 ×
 * 384 (the bench's 64× Node.js docs, 2-core machine); this scan about 30
 * to 40 ms. Exact: every vector is scored and nothing is approximated, so
 * results are those of a flat index (FAISS `IndexFlatIP`), in float32
 * arithmetic. The evaluation's SciFact run, which folds every passage's
 * score into its abstract's, reads it; dense retrieval reads the 8-bit scan
 * a quarter of the bytes long and scores its candidates exactly
 * (retrieval/nearest-passages.ts), which the bench times against this one
 * (`npm run bench`, "Dense search at scale").
 *
 * The vectors are handed to ONNX Runtime as a tensor over the index's own
 * `Float32Array` (no copy), one per index, kept while the index is held.
 */

/**
 * The graph: `scores = MatMul(vectors, query)`, `vectors` float32
 * [passages, dimensions], `query` float32 [dimensions, 1], both dimensions
 * symbolic. Written by scripts/model/build-scan-graph.py (onnx 1.23.2, IR
 * version 8, opset 17), which prints these bytes; carried here rather than as
 * a file because worker threads run a bundle of this module (server/worker-module.ts),
 * from which a file beside the source cannot be found by a relative path.
 */
export const SCAN_GRAPH_BASE64 =
  'CAgSCWtiLXdpZGdldDqgAQogCgd2ZWN0b3JzCgVxdWVyeRIGc2NvcmVzIgZNYXRNdWwSCmRlbnNlLXNjYW5aKwoHdmVjdG9ycxIgCh4IARIaCgoSCHBhc3NhZ2VzCgwSCmRpbWVuc2lvbnNaIQoFcXVlcnkSGAoWCAESEgoMEgpkaW1lbnNpb25zCgIIAWIgCgZzY29yZXMSFgoUCAESEAoKEghwYXNzYWdlcwoCCAFCBAoAEBE=';

/**
 * Threads of one scan: 2. The scan is bound by memory bandwidth; on the
 * 2-core machine two threads halve one question's scan of 313,536 × 384
 * vectors (p50 55 to 32 ms). The threads do not spin-wait between scans
 * (`allow_spinning` 0): the answer pool already runs a worker per core, and
 * under load a spinning thread would only take a core from the other
 * worker.
 */
export const SCAN_THREADS = 2;

/** The thread's session of the float32 scan graph, once created. */
let floatScanSession: Promise<ort.InferenceSession> | undefined;
const tensors = new WeakMap<Float32Array, ort.Tensor>();

/**
 * Each passage's cosine similarity to the question (dot product of unit vectors).
 *
 * @param index the knowledge base's vectors (`chunkIds.length × dimensions` floats)
 * @param query the question's unit vector, `dimensions` floats
 * @returns one score per slot of the index, in slot order
 * @throws Error when the query's length is not the index's dimensions, or ONNX Runtime fails
 */
export async function scanSimilarities(index: DenseIndex, query: Float32Array): Promise<Float32Array> {
  const count = index.chunkIds.length;
  if (query.length !== index.dimensions) throw new Error(`The query vector has ${query.length} dimensions, the index ${index.dimensions}`);
  if (index.vectors.length !== count * index.dimensions) throw new Error(`The index holds ${index.vectors.length} floats for ${count} passages of ${index.dimensions} dimensions`);
  if (count === 0) return new Float32Array(0);
  let vectors = tensors.get(index.vectors);
  if (vectors === undefined) {
    vectors = new ort.Tensor('float32', index.vectors, [count, index.dimensions]);
    tensors.set(index.vectors, vectors);
  }
  const result = await (await scanSession()).run({ vectors, query: new ort.Tensor('float32', query, [index.dimensions, 1]) });
  return result.scores!.data as Float32Array;
}

/** The thread's session of the float32 scan graph, created on first use (a failed creation is tried again next time). */
function scanSession(): Promise<ort.InferenceSession> {
  if (floatScanSession === undefined) {
    floatScanSession = createScanSession(Buffer.from(SCAN_GRAPH_BASE64, 'base64'));
    floatScanSession.catch(() => (floatScanSession = undefined));
  }
  return floatScanSession;
}

/**
 * A session of a scan graph with {@link SCAN_THREADS} non-spinning threads.
 *
 * @param model the serialized ONNX model
 * @throws Error when ONNX Runtime refuses the model
 */
export function createScanSession(model: Uint8Array): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(model, {
    intraOpNumThreads: SCAN_THREADS,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
}
