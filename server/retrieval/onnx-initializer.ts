import protobuf from 'protobufjs/minimal.js';

/**
 * Adds a constant tensor (an initializer) to a serialized ONNX model, so
 * that ONNX Runtime treats it as a weight: a constant right-hand matrix of a
 * product is packed once, when the session is created, instead of at every
 * run (retrieval/quantized-scan.ts). ONNX Runtime's Node.js binding has no
 * way to add an initializer to a session (the C API's
 * `AddExternalInitializers`), so it is written into the model's bytes.
 *
 * Protocol Buffers let a message's fields come in any order and a repeated
 * field's items be written apart, so the tensor is appended to the graph
 * message as one more `initializer`, the graph's length rewritten, and
 * every other field of the model copied as it was. Field numbers from
 * onnx/onnx.proto: `ModelProto.graph` 7, `GraphProto.initializer` 5,
 * `TensorProto` `dims` 1, `data_type` 2, `name` 8, `raw_data` 9 (little-endian
 * bytes). Wire format: protobufjs.
 */

/** `TensorProto.DataType` values (onnx/onnx.proto) of the tensors written here. */
export const ONNX_DATA_TYPE = { float: 1, uint8: 2, int8: 3 } as const;

/** A tensor to add: its name in the graph, ONNX data type, shape and raw little-endian bytes. */
export interface Initializer {
  name: string;
  /** A `TensorProto.DataType` ({@link ONNX_DATA_TYPE}). */
  dataType: number;
  dims: readonly number[];
  data: Uint8Array;
}

const MODEL_GRAPH = 7;
const GRAPH_INITIALIZER = 5;
const TENSOR_DIMS = 1;
const TENSOR_DATA_TYPE = 2;
const TENSOR_NAME = 8;
const TENSOR_RAW_DATA = 9;
const VARINT = 0;
const LENGTH_DELIMITED = 2;

/**
 * @param model a serialized `ModelProto` with one graph
 * @param initializer the tensor, whose data's length must be its shape's element count times its type's size (not checked here: ONNX Runtime refuses a mismatch when it loads the model)
 * @returns the model's bytes with the tensor among the graph's initializers (its data copied once)
 * @throws Error when the bytes hold no graph
 */
export function withInitializer(model: Uint8Array, initializer: Initializer): Uint8Array {
  const reader = protobuf.Reader.create(model);
  const otherFields: Uint8Array[] = [];
  let graph: Uint8Array | undefined;
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    if (tag === key(MODEL_GRAPH, LENGTH_DELIMITED)) graph = reader.bytes();
    else {
      reader.skipType(tag & 7);
      otherFields.push(model.subarray(start, reader.pos));
    }
  }
  if (graph === undefined) throw new Error('The ONNX model holds no graph to add an initializer to');

  // The tensor's fields but its data, which follows them as written (not copied into the writer).
  const tensor = protobuf.Writer.create();
  for (const dimension of initializer.dims) tensor.uint32(key(TENSOR_DIMS, VARINT)).int64(dimension);
  tensor.uint32(key(TENSOR_DATA_TYPE, VARINT)).int32(initializer.dataType);
  tensor.uint32(key(TENSOR_NAME, LENGTH_DELIMITED)).string(initializer.name);
  tensor.uint32(key(TENSOR_RAW_DATA, LENGTH_DELIMITED)).uint32(initializer.data.length);
  const tensorFields = tensor.finish();
  const tensorLength = tensorFields.length + initializer.data.length;
  const initializerKey = protobuf.Writer.create().uint32(key(GRAPH_INITIALIZER, LENGTH_DELIMITED)).uint32(tensorLength).finish();
  const graphLength = graph.length + initializerKey.length + tensorLength;
  const graphKey = protobuf.Writer.create().uint32(key(MODEL_GRAPH, LENGTH_DELIMITED)).uint32(graphLength).finish();
  return Buffer.concat([...otherFields, graphKey, graph, initializerKey, tensorFields, initializer.data]);
}

/** A field's key: its number and wire type. */
function key(field: number, wireType: number): number {
  return (field << 3) | wireType;
}
