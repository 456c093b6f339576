import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startHeartbeat, type HeartbeatHooks } from './sse-heartbeat.ts';

/** A stream as the heartbeat sees it: its last write time, whether it is open and busy, and the beats it got. */
function fakeStream(): HeartbeatHooks & { beats: number[]; lastWrite: number; open: boolean; draining: boolean } {
  const stream = {
    beats: [] as number[],
    lastWrite: performance.now(),
    open: true,
    draining: false,
    lastWriteAt: () => stream.lastWrite,
    active: () => stream.open,
    busy: () => stream.draining,
    beat: () => {
      stream.beats.push(performance.now());
      stream.lastWrite = performance.now();
    },
  };
  return stream;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('startHeartbeat', () => {
  it('idle stream gets a beat every interval', () => {
    // Arrange
    const stream = fakeStream();
    const start = performance.now();
    startHeartbeat(1_000, stream);

    // Act
    vi.advanceTimersByTime(3_500);

    // Assert
    expect(stream.beats.map((at) => at - start)).toEqual([1_000, 2_000, 3_000]);
  });

  it('stream written to more often than the interval gets no beat', () => {
    // Arrange
    const stream = fakeStream();
    startHeartbeat(1_000, stream);

    // Act
    for (let step = 0; step < 10; step += 1) {
      vi.advanceTimersByTime(500);
      stream.lastWrite = performance.now();
    }

    // Assert
    expect(stream.beats).toEqual([]);
  });

  it('beat comes one interval after the last write, not after the start', () => {
    // Arrange
    const stream = fakeStream();
    const start = performance.now();
    startHeartbeat(1_000, stream);
    vi.advanceTimersByTime(600);
    stream.lastWrite = performance.now();

    // Act
    vi.advanceTimersByTime(1_100);

    // Assert
    expect(stream.beats.map((at) => at - start)).toEqual([1_600]);
  });

  it('stream waiting to drain gets no beat until it drains', () => {
    // Arrange
    const stream = fakeStream();
    stream.draining = true;
    startHeartbeat(1_000, stream);
    vi.advanceTimersByTime(2_500);
    const whileDraining = stream.beats.length;

    // Act
    stream.draining = false;
    vi.advanceTimersByTime(1_000);

    // Assert
    expect(whileDraining).toBe(0);
    expect(stream.beats.length).toBeGreaterThan(0);
  });

  it('stream that ended gets no more beats, and its timer is gone', () => {
    // Arrange
    const stream = fakeStream();
    startHeartbeat(1_000, stream);
    vi.advanceTimersByTime(1_500);

    // Act
    stream.open = false;
    vi.advanceTimersByTime(5_000);

    // Assert
    expect(stream.beats).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stopped heartbeat gets no more beats, and stopping twice is harmless', () => {
    // Arrange
    const stream = fakeStream();
    const stop = startHeartbeat(1_000, stream);
    vi.advanceTimersByTime(1_500);

    // Act
    stop();
    stop();
    vi.advanceTimersByTime(5_000);

    // Assert
    expect(stream.beats).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
