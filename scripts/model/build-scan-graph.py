"""Build the ONNX graph of dense retrieval's exact scan (server/retrieval/dense-scan.ts).

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

It prints the graph's bytes as base64, which dense-scan.ts carries as
`SCAN_GRAPH_BASE64` (a worker thread runs a bundle of that module, so a
file beside it could not be found by a relative path).
"""

import base64

import onnx
from onnx import TensorProto, helper


def scan_graph() -> onnx.ModelProto:
    vectors = helper.make_tensor_value_info('vectors', TensorProto.FLOAT, ['passages', 'dimensions'])
    query = helper.make_tensor_value_info('query', TensorProto.FLOAT, ['dimensions', 1])
    scores = helper.make_tensor_value_info('scores', TensorProto.FLOAT, ['passages', 1])
    graph = helper.make_graph([helper.make_node('MatMul', ['vectors', 'query'], ['scores'])], 'dense-scan', [vectors, query], [scores])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)], producer_name='kb-widget')
    # IR version 8: read by every ONNX Runtime release since 1.10.
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == '__main__':
    print(base64.b64encode(scan_graph().SerializeToString()).decode('ascii'))
