import { describe, expect, test, vi } from 'vitest';
import type { QuestionLogEntry } from '../store/store.ts';
import { createQuestionLogWriter } from './question-log-writer.ts';

function entry(question: string): QuestionLogEntry {
  return { kbId: 'docs', createdAt: 0, question, provenance: 'generated', citedDocIds: [], latencyMs: 3, channel: 'json' };
}

/** A store that records each batch it is given, and can be made to fail or to hang. */
function recordingStore() {
  const batches: string[][] = [];
  let failing = false;
  return {
    batches,
    fail() {
      failing = true;
    },
    addQuestionLogEntries: async (entries: readonly QuestionLogEntry[]) => {
      if (failing) throw new Error('database gone');
      batches.push(entries.map((item) => item.question));
    },
  };
}

describe('createQuestionLogWriter', () => {
  test('entries wait for the interval and are written together, in order; nothing is written while recording', async () => {
    vi.useFakeTimers();
    try {
      const store = recordingStore();
      const writer = createQuestionLogWriter(store, { flushIntervalMs: 1000 });

      writer.record(entry('a'));
      writer.record(entry('b'));
      expect(store.batches).toEqual([]);
      await vi.advanceTimersByTimeAsync(1000);

      expect(store.batches).toEqual([['a', 'b']]);
    } finally {
      vi.useRealTimers();
    }
  });

  test('a full batch is written at once; flush writes the rest', async () => {
    const store = recordingStore();
    const writer = createQuestionLogWriter(store, { flushIntervalMs: 60_000, maxBatch: 2 });

    for (const question of ['a', 'b', 'c']) writer.record(entry(question));
    await writer.flush();

    expect(store.batches).toEqual([['a', 'b'], ['c']]);
  });

  test('a failed write is reported and its entries dropped; entries over the pending cap are dropped, and counted', async () => {
    const store = recordingStore();
    const errors: string[] = [];
    const writer = createQuestionLogWriter(store, { flushIntervalMs: 60_000, maxPending: 2, onError: (error) => errors.push(error.message) });

    store.fail();
    writer.record(entry('a'));
    await writer.flush();
    writer.record(entry('b'));
    writer.record(entry('c'));
    writer.record(entry('d'));

    expect(errors).toEqual(['database gone']);
    expect(writer.dropped).toBe(2);
  });
});
