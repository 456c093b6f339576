import * as ort from 'onnxruntime-node';
import { describe, expect, test } from 'vitest';
import { ONNX_DATA_TYPE, withInitializer } from './onnx-initializer.ts';
import { QUANTIZED_SCAN_GRAPH_BASE64 } from './quantized-scan.ts';

describe('an initializer written into an ONNX model', () => {
  test('is the weight the graph multiplies by: the 8-bit scan graph with a 3 x 2 matrix gives each column its exact integer dot product', async () => {
    // Two passages of three dimensions, one column each: (1, -2, 127) and (-127, 0, 5).
    const columns = Int8Array.of(1, -127, -2, 0, 127, 5);
    const model = withInitializer(Buffer.from(QUANTIZED_SCAN_GRAPH_BASE64, 'base64'), {
      name: 'vectors',
      dataType: ONNX_DATA_TYPE.int8,
      dims: [3, 2],
      data: new Uint8Array(columns.buffer),
    });
    const session = await ort.InferenceSession.create(model);
    // The question (3, -1, 64) given with the graph's zero point 64; scales 1 and 0.5, the question's 2.
    const result = await session.run({
      query: new ort.Tensor('uint8', Uint8Array.of(67, 63, 128), [1, 3]),
      scales: new ort.Tensor('float32', Float32Array.of(1, 0.5), [1, 2]),
      query_scale: new ort.Tensor('float32', Float32Array.of(2), []),
    });
    const expected = [(3 * 1 + -1 * -2 + 64 * 127) * 1 * 2, (3 * -127 + 0 + 64 * 5) * 0.5 * 2];
    expect([...(result.scores!.data as Float32Array)]).toEqual(expected);
    expect(result.scores!.dims).toEqual([1, 2]);
    await session.release();
  });

  test('a model without a graph is refused, saying so', () => {
    // ir_version 8 alone.
    expect(() => withInitializer(Uint8Array.of(0x08, 0x08), { name: 'vectors', dataType: ONNX_DATA_TYPE.int8, dims: [1], data: new Uint8Array(1) })).toThrow(
      'The ONNX model holds no graph',
    );
  });
});
