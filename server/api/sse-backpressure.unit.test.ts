import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createBackpressuredWriter } from './sse-backpressure.ts';

/**
 * A connection whose reader is slow: it takes one chunk at a time, and only
 * when the test lets it ({@link SlowReader.readOne}); its buffer holds 8 bytes.
 */
interface SlowReader {
  stream: Writable;
  /** Everything the reader has taken, in order. */
  received: string[];
  /** Lets the reader take the next chunk written; false when none is waiting. */
  readOne(): boolean;
}

function slowReader(): SlowReader {
  const pending: (() => void)[] = [];
  const received: string[] = [];
  const stream = new Writable({
    highWaterMark: 8,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      pending.push(() => {
        received.push(chunk);
        callback();
      });
    },
  });
  return {
    stream,
    received,
    readOne() {
      const next = pending.shift();
      next?.();
      return next !== undefined;
    },
  };
}

/** Whether a promise has settled by the time the pending callbacks of this turn have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('createBackpressuredWriter', () => {
  it('write below the high-water mark resolves true at once', async () => {
    // Arrange
    const reader = slowReader();
    const writer = createBackpressuredWriter(reader.stream);

    // Act
    const written = writer.write('abc');

    // Assert
    expect(await written).toBe(true);
    expect(writer.waiting).toBe(false);
  });

  it('slow reader makes writes wait until it reads, and every text arrives once, in order', async () => {
    // Arrange
    const reader = slowReader();
    const writer = createBackpressuredWriter(reader.stream);
    const texts = ['0123456789', 'second', 'third'];

    // Act
    const writes = texts.map((text) => writer.write(text));
    const waitedWhileUnread = !(await settled(Promise.race(writes)));
    const waitingWhileUnread = writer.waiting;
    while (reader.readOne()) await new Promise((resolve) => setImmediate(resolve));

    // Assert
    expect(waitedWhileUnread).toBe(true);
    expect(waitingWhileUnread).toBe(true);
    expect(await Promise.all(writes)).toEqual([true, true, true]);
    expect(writer.waiting).toBe(false);
    expect(reader.received).toEqual(texts);
  });

  it('closed while a write waits: the write resolves false, and later writes resolve false and write nothing', async () => {
    // Arrange
    const reader = slowReader();
    const writer = createBackpressuredWriter(reader.stream);
    const waiting = writer.write('0123456789');

    // Act
    writer.close();
    const later = await writer.write('after close');
    while (reader.readOne()) await new Promise((resolve) => setImmediate(resolve));

    // Assert
    expect(await waiting).toBe(false);
    expect(later).toBe(false);
    expect(reader.received).toEqual(['0123456789']);
  });

  it('write to an ended response resolves false', async () => {
    // Arrange
    const reader = slowReader();
    const writer = createBackpressuredWriter(reader.stream);
    reader.stream.end();

    // Act
    const written = await writer.write('late');

    // Assert
    expect(written).toBe(false);
    expect(reader.received).toEqual([]);
  });

  it('each write records when it was made, for the heartbeat', async () => {
    // Arrange
    const reader = slowReader();
    const writer = createBackpressuredWriter(reader.stream);
    const created = writer.lastWriteAt;
    await new Promise((resolve) => setTimeout(resolve, 5));

    // Act
    await writer.write('a');

    // Assert
    expect(writer.lastWriteAt).toBeGreaterThan(created);
  });
});
