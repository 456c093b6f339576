import { describe, expect, test } from 'vitest';
import { cachedQueryEmbedder } from './query-embedder.ts';

/**
 * Question vectors are cached per question text: a question asked again
 * runs no model, a failed run is not kept, and the least recently asked
 * question leaves first once the cache is full.
 */

/** A stand-in model that counts its runs and fails for the questions in `failing`. */
function countingModel(failing: Set<string> = new Set()) {
  const runs: string[] = [];
  return {
    runs,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      runs.push(...texts);
      if (texts.some((text) => failing.has(text))) throw new Error('model failed');
      return texts.map((text) => Float32Array.of(text.length));
    },
  };
}

describe('cachedQueryEmbedder', () => {
  test('a question asked again gets the same vector without running the model again', async () => {
    const model = countingModel();
    const embed = cachedQueryEmbedder(model);

    const first = await embed('how do I read a file?');
    const again = await embed('how do I read a file?');

    expect(again).toBe(first);
    expect(model.runs).toEqual(['how do I read a file?']);
  });

  test('a failed run is not kept: the next ask runs the model again', async () => {
    const failing = new Set(['flaky question']);
    const model = countingModel(failing);
    const embed = cachedQueryEmbedder(model);

    await expect(embed('flaky question')).rejects.toThrow('model failed');
    failing.clear();
    await expect(embed('flaky question')).resolves.toEqual(Float32Array.of('flaky question'.length));
    expect(model.runs).toEqual(['flaky question', 'flaky question']);
  });

  test('once full, the least recently asked question leaves first', async () => {
    const model = countingModel();
    const embed = cachedQueryEmbedder(model, 2);

    await embed('a');
    await embed('b');
    await embed('a'); // "b" is now the least recently asked
    await embed('c');
    await embed('a');
    await embed('b');

    expect(model.runs).toEqual(['a', 'b', 'c', 'b']);
  });
});
