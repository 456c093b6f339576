"""Build the ONNX graphs of dense retrieval's scans (server/retrieval/dense-scan.ts,
server/retrieval/quantized-scan.ts).

Run once by a maintainer, never by the product (which runs in Node.js):

    pip install onnx==1.23.2
    python scripts/model/build-scan-graph.py

The graph is one MatMul: `vectors` (float32, [passages, dimensions], the
knowledge base's unit passage vectors, row-major) times `query` (float32,
[dimensions, 1], the question's unit vector) -> `scores` (float32,
[passages, 1]), each passage's cosine similarity to the question. ONNX
Runtime runs it as one matrix-vector product of its BLAS (MLAS), which
reads the vectors once at memory speed instead of a JavaScript loop's
scalar multiply-adds. Both dimensions are symbolic, so one graph serves
every model and knowledge base.

The quantized scan's graph: `query` (uint8, [1, dimensions], the
question's vector quantized to -64..64 plus the zero point 64:
`QUERY_LEVELS` there says why) times `vectors` (int8, [dimensions,
passages], each passage's vector scaled by 127 over its largest component
and rounded, one column per passage) by `MatMulInteger` (exact int32 sums),
cast to float32 and multiplied by each passage's scale (`scales`, float32,
[1, passages]) and the query's (`query_scale`, a float32 scalar) ->
`scores` (float32, [1, passages]), each passage's approximate similarity.
`vectors` is not an input but an initializer, which the product appends to
the graph for each index it scans (retrieval/onnx-initializer.ts): ONNX
Runtime packs a constant right-hand matrix once, when the session is
created, and then runs the one-row product at memory speed over a quarter
of the float32 scan's bytes (9 ms for 313,536 x 384 where the vectors as
an input, packed again at every call, took 46). The graph printed here has
no `vectors`: it is checked with a stand-in, which is then removed.

It prints each graph's bytes as base64, which the TypeScript modules carry
as `SCAN_GRAPH_BASE64` and `QUANTIZED_SCAN_GRAPH_BASE64` (a worker thread
runs a bundle of them, so a file beside it could not be found by a relative
path).
"""

import base64

import onnx
from onnx import TensorProto, helper


def scan_graph() -> onnx.ModelProto:
    vectors = helper.make_tensor_value_info('vectors', TensorProto.FLOAT, ['passages', 'dimensions'])
    query = helper.make_tensor_value_info('query', TensorProto.FLOAT, ['dimensions', 1])
    scores = helper.make_tensor_value_info('scores', TensorProto.FLOAT, ['passages', 1])
    graph = helper.make_graph([helper.make_node('MatMul', ['vectors', 'query'], ['scores'])], 'dense-scan', [vectors, query], [scores])
    return finish(graph)


def quantized_scan_graph() -> onnx.ModelProto:
    inputs = [
        helper.make_tensor_value_info('query', TensorProto.UINT8, [1, 'dimensions']),
        helper.make_tensor_value_info('scales', TensorProto.FLOAT, [1, 'passages']),
        helper.make_tensor_value_info('query_scale', TensorProto.FLOAT, []),
    ]
    scores = helper.make_tensor_value_info('scores', TensorProto.FLOAT, [1, 'passages'])
    nodes = [
        helper.make_node('MatMulInteger', ['query', 'vectors', 'zero_point'], ['sums']),
        helper.make_node('Cast', ['sums'], ['real_sums'], to=TensorProto.FLOAT),
        helper.make_node('Mul', ['real_sums', 'scales'], ['scaled']),
        helper.make_node('Mul', ['scaled', 'query_scale'], ['scores']),
    ]
    zero_point = helper.make_tensor('zero_point', TensorProto.UINT8, [], [64])
    stand_in = helper.make_tensor('vectors', TensorProto.INT8, [2, 3], [0] * 6)
    model = finish(helper.make_graph(nodes, 'quantized-dense-scan', inputs, [scores], initializer=[zero_point, stand_in]))
    del model.graph.initializer[1]
    return model


def finish(graph: onnx.GraphProto) -> onnx.ModelProto:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)], producer_name='kb-widget')
    # IR version 8: read by every ONNX Runtime release since 1.10.
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == '__main__':
    print('SCAN_GRAPH_BASE64', base64.b64encode(scan_graph().SerializeToString()).decode('ascii'))
    print('QUANTIZED_SCAN_GRAPH_BASE64', base64.b64encode(quantized_scan_graph().SerializeToString()).decode('ascii'))
