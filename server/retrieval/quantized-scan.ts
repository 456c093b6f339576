import * as ort from 'onnxruntime-node';
import { createScanSession } from './dense-scan.ts';
import { ONNX_DATA_TYPE, withInitializer } from './onnx-initializer.ts';
import type { DenseIndex } from '../store/store.ts';

/**
 * Dense retrieval's first pass at scale: every passage vector against the
 * question's in 8-bit integers, which reads a quarter of the bytes the
 * float32 scan reads (retrieval/dense-scan.ts) - the scan is bound by memory
 * bandwidth - and comes with a bound on its error, so that the caller can
 * score exactly every passage that could matter and stay exact
 * (retrieval/nearest-passages.ts).
 *
 * Each vector is quantized symmetrically with its own scale (largest
 * component / 127, rounded to the nearest integer), the question's alike
 * but to -64..64 ({@link QUERY_LEVELS}), and ONNX Runtime sums the integer
 * products exactly (`MatMulInteger`, MLAS's uint8 × int8 kernel: the
 * question is stored with the zero point 64). This is the scalar quantization of vector search engines (FAISS
 * `IndexScalarQuantizer` with `QT_8bit`; Lucene's int8 HNSW vectors), used
 * here only to choose which passages to score exactly.
 *
 * The product is one row (the question) times a constant matrix (the
 * vectors, one column per passage), which ONNX Runtime packs for its kernel
 * once, when the index's session is created (retrieval/onnx-initializer.ts
 * writes the vectors into the graph as a weight): a scan then reads the
 * packed bytes once. With the vectors as an input instead, packed again at
 * every run and multiplied as many rows by one column, the 8-bit product of
 * 313,536 × 384 took 46 ms, no faster than the float32 scan; this way 9 ms
 * (2-core AMD EPYC, timed through ONNX Runtime's Python binding); the
 * whole exact search there 11.9 ms at p50 against 29.3 for the float32 scan
 * (`npm run bench`, "Dense search at scale").
 *
 * The error bound: with q = q̂ + e and v = v̂ + f, where q̂ and v̂ are the
 * dequantized vectors and each component of e, f is at most half a step
 * (s_q / 2, s_v / 2), `q · v − q̂ · v̂ = q̂ · f + e · v̂ + e · f`, so
 * `|q · v − q̂ · v̂| ≤ (s_v / 2) ‖q̂‖₁ + (s_q / 2) ‖v̂‖₁ + d s_q s_v / 4`;
 * the largest scale and L1 norm of the index stand in for every vector's.
 * On the demo's vectors the bound is about 0.025 and the actual error about
 * 0.002.
 */

/**
 * The graph: `scores = Cast(MatMulInteger(query, vectors, zero_point)) ×
 * scales × query_scale`, `query` uint8 [1, dimensions] (zero point 64),
 * `vectors` int8 [dimensions, passages] (the initializer added per index),
 * `scales` float32 [1, passages], `query_scale` a float32 scalar. Written by
 * scripts/model/build-scan-graph.py (onnx 1.23.2, IR version 8, opset 17),
 * carried as base64 for the reason dense-scan.ts gives.
 */
export const QUANTIZED_SCAN_GRAPH_BASE64 =
  'CAgSCWtiLXdpZGdldDrEAgoxCgVxdWVyeQoHdmVjdG9ycwoKemVyb19wb2ludBIEc3VtcyINTWF0TXVsSW50ZWdlcgoiCgRzdW1zEglyZWFsX3N1bXMiBENhc3QqCQoCdG8YAaABAgogCglyZWFsX3N1bXMKBnNjYWxlcxIGc2NhbGVkIgNNdWwKIgoGc2NhbGVkCgtxdWVyeV9zY2FsZRIGc2NvcmVzIgNNdWwSFHF1YW50aXplZC1kZW5zZS1zY2FuKhEQAioBQEIKemVyb19wb2ludFohCgVxdWVyeRIYChYIAhISCgIIAQoMEgpkaW1lbnNpb25zWiAKBnNjYWxlcxIWChQIARIQCgIIAQoKEghwYXNzYWdlc1oVCgtxdWVyeV9zY2FsZRIGCgQIARIAYiAKBnNjb3JlcxIWChQIARIQCgIIAQoKEghwYXNzYWdlc0IECgAQEQ==';

/** The largest quantized magnitude: symmetric int8 without -128, so a vector and its negation quantize alike. */
const LEVELS = 127;
/**
 * The question's largest quantized magnitude: 64, not 127, stored with the
 * zero point 64 as 0..128. MLAS's uint8 × int8 kernel on x86 CPUs without
 * VNNI (AVX2: `vpmaddubsw`) adds each two adjacent products in 16 bits with
 * saturation, so a pair must stay within 32,767: 2 × 128 × 127 = 32,512
 * does, 2 × 255 × 127 would not - on an AMD EPYC without VNNI the scan's
 * error reached 0.026 against a bound of 0.016 (quantized-scan.unit.test.ts).
 * ONNX Runtime's quantization tools reduce the range for the same reason
 * (`reduce_range`, "7-bit" weights for non-VNNI machines). The bound below
 * accounts for the coarser step (about 0.024 instead of 0.016 on 384
 * dimensions).
 */
const QUERY_LEVELS = 64;
/** The uint8 zero point of the question (the graph's `zero_point`): a component c is given as c + 64. */
const QUERY_ZERO_POINT = 64;
/**
 * Added to the bound for float32 rounding: the integer sums are exact (at
 * most 384 × 127 × 127, below 2^24, so the cast is exact too), and the two
 * scalings round each score by a relative 2^-24 at most, far below this.
 */
const ROUNDING_SLACK = 1e-6;

/** An index's 8-bit scan, made once per index read and kept while the index is held. */
interface QuantizedScan {
  /** The scan graph with the index's quantized vectors as its weight. */
  session: ort.InferenceSession;
  scales: ort.Tensor;
  /** The largest vector scale (s_v of the bound). */
  largestScale: number;
  /** The largest L1 norm of a dequantized vector. */
  largestNorm1: number;
}

const scans = new WeakMap<Float32Array, Promise<QuantizedScan>>();

/** A scan's approximate similarities and how far from exact they may be. */
export interface ApproximateScan {
  /** One approximate cosine similarity per slot of the index, in slot order. */
  scores: Float32Array;
  /** Every slot's exact similarity lies within `bound` of its score here. */
  bound: number;
}

/**
 * Each passage's approximate similarity to the question. The first scan of
 * an index quantizes its vectors and creates its session (about 1 s for
 * 313,536 × 384 on the 2-core machine).
 *
 * @param index the knowledge base's vectors (`chunkIds.length × dimensions` floats)
 * @param query the question's vector, `dimensions` floats
 * @returns approximate scores in slot order and their error bound
 * @throws Error when the query's length is not the index's dimensions, or ONNX Runtime fails
 */
export async function approximateSimilarities(index: DenseIndex, query: Float32Array): Promise<ApproximateScan> {
  const count = index.chunkIds.length;
  if (query.length !== index.dimensions) throw new Error(`The query vector has ${query.length} dimensions, the index ${index.dimensions}`);
  if (index.vectors.length !== count * index.dimensions) throw new Error(`The index holds ${index.vectors.length} floats for ${count} passages of ${index.dimensions} dimensions`);
  if (count === 0) return { scores: new Float32Array(0), bound: 0 };
  const scan = await quantizedScan(index);
  const levels = new Uint8Array(query.length);
  const { scale, norm1 } = quantize(query, 0, query.length, levels, 0, 1, QUERY_ZERO_POINT, QUERY_LEVELS);
  const result = await scan.session.run({
    query: new ort.Tensor('uint8', levels, [1, index.dimensions]),
    scales: scan.scales,
    query_scale: new ort.Tensor('float32', Float32Array.of(scale), []),
  });
  const bound =
    (scan.largestScale / 2) * norm1 + (scale / 2) * scan.largestNorm1 + (index.dimensions * scale * scan.largestScale) / 4 + ROUNDING_SLACK;
  return { scores: result.scores!.data as Float32Array, bound };
}

/**
 * A passage's exact similarity: the dot product of its float32 vector and
 * the question's, summed in double precision.
 *
 * @param slot the passage's slot in the index
 */
export function exactSimilarity(index: DenseIndex, slot: number, query: Float32Array): number {
  const { vectors, dimensions } = index;
  const start = slot * dimensions;
  let sum = 0;
  for (let component = 0; component < dimensions; component++) sum += vectors[start + component]! * query[component]!;
  return sum;
}

/** The index's {@link QuantizedScan}, made on its first scan (a failed one is tried again at the next). */
function quantizedScan(index: DenseIndex): Promise<QuantizedScan> {
  let scan = scans.get(index.vectors);
  if (scan === undefined) {
    scan = createQuantizedScan(index);
    scans.set(index.vectors, scan);
    scan.catch(() => scans.delete(index.vectors));
  }
  return scan;
}

async function createQuantizedScan(index: DenseIndex): Promise<QuantizedScan> {
  const count = index.chunkIds.length;
  const { dimensions } = index;
  // One column per passage: component c of slot s at c × count + s.
  const columns = new Int8Array(count * dimensions);
  const scales = new Float32Array(count);
  let largestScale = 0;
  let largestNorm1 = 0;
  for (let slot = 0; slot < count; slot++) {
    const { scale, norm1 } = quantize(index.vectors, slot * dimensions, dimensions, columns, slot, count, 0);
    scales[slot] = scale;
    largestScale = Math.max(largestScale, scale);
    largestNorm1 = Math.max(largestNorm1, norm1);
  }
  const model = withInitializer(Buffer.from(QUANTIZED_SCAN_GRAPH_BASE64, 'base64'), {
    name: 'vectors',
    dataType: ONNX_DATA_TYPE.int8,
    dims: [dimensions, count],
    data: new Uint8Array(columns.buffer, columns.byteOffset, columns.byteLength),
  });
  return { session: await createScanSession(model), scales: new ort.Tensor('float32', scales, [1, count]), largestScale, largestNorm1 };
}

/**
 * Quantizes `length` floats of `source` from `start` to integers in
 * -range..range, written with `offset` added into `target` from
 * `targetStart`, `stride` apart.
 *
 * @returns the scale that multiplies the integers back (1 for a zero vector) and the L1 norm of the dequantized vector
 */
function quantize(
  source: Float32Array,
  start: number,
  length: number,
  target: Int8Array | Uint8Array,
  targetStart: number,
  stride: number,
  offset: number,
  range = LEVELS,
): { scale: number; norm1: number } {
  let largest = 0;
  for (let component = 0; component < length; component++) largest = Math.max(largest, Math.abs(source[start + component]!));
  // The scale as float32, the precision the graph multiplies by, so the bound speaks of the same number.
  const scale = largest > 0 ? Math.fround(largest / range) : 1;
  let levels = 0;
  for (let component = 0; component < length; component++) {
    const level = Math.max(-range, Math.min(range, Math.round(source[start + component]! / scale)));
    target[targetStart + component * stride] = level + offset;
    levels += Math.abs(level);
  }
  return { scale, norm1: levels * scale };
}
