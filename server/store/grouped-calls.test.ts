import { describe, expect, test } from 'vitest';
import { GROUP_WAIT_MILLISECONDS, groupedCalls, groupedReads } from './grouped-calls.ts';

/** A read whose answers the test releases: each sees the stored value as of when it was made (a snapshot). */
function heldReads(values: Map<string, string>) {
  const made: { key: string; release: () => void }[] = [];
  const read = (key: string) => {
    const snapshot = values.get(key);
    return new Promise<string | undefined>((resolve) => made.push({ key, release: () => resolve(snapshot) }));
  };
  return { made, read };
}

/** Lets pending promise callbacks run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('groupedReads', () => {
  test('a call with no read of its key running: read at once, alone', async () => {
    const { made, read } = heldReads(new Map([['kb', 'v1']]));
    const grouped = groupedReads(read, (key) => key);

    const answer = grouped('kb');

    expect(made.map((call) => call.key)).toEqual(['kb']);
    made[0]!.release();
    expect(await answer).toBe('v1');
  });

  test('calls made while a read of their key runs: one read for all of them, made when it is done', async () => {
    const values = new Map([['kb', 'v1']]);
    const { made, read } = heldReads(values);
    const grouped = groupedReads(read, (key) => key);
    const first = grouped('kb');

    const waiting = [grouped('kb'), grouped('kb'), grouped('kb')];
    expect(made).toHaveLength(1);
    made[0]!.release();
    await settled();

    expect(made).toHaveLength(2);
    made[1]!.release();
    expect(await Promise.all([first, ...waiting])).toEqual(['v1', 'v1', 'v1', 'v1']);
  });

  test('a write committed while a read runs: a call made after it does not join that read, and sees the write', async () => {
    const values = new Map([['token', 'valid']]);
    const { made, read } = heldReads(values);
    const grouped = groupedReads(read, (key) => key);
    const before = grouped('token');

    values.set('token', 'revoked');
    const after = grouped('token');
    made[0]!.release();
    await settled();
    made[1]!.release();

    expect(await before).toBe('valid');
    expect(await after).toBe('revoked');
  });

  test('calls with other keys: read at once, each its own read', () => {
    const { made, read } = heldReads(new Map());
    const grouped = groupedReads(read, (key) => key);

    void grouped('a');
    void grouped('b');

    expect(made.map((call) => call.key)).toEqual(['a', 'b']);
  });

  test('a read that fails: its call fails with its error; the calls made meanwhile share the next read all the same', async () => {
    let reads = 0;
    let release: (() => void) | undefined;
    const grouped = groupedReads(
      (key: string) => {
        reads += 1;
        if (reads === 1) return new Promise<string>((_, reject) => (release = () => reject(new Error(`The store is unavailable (${key})`))));
        return Promise.resolve('ok');
      },
      (key) => key,
    );
    const failing = grouped('kb');
    const waiting = [grouped('kb'), grouped('kb')];

    release!();

    await expect(failing).rejects.toThrow('The store is unavailable (kb)');
    expect(await Promise.all(waiting)).toEqual(['ok', 'ok']);
    expect(reads).toBe(2);
  });

  test(`a read that hangs: the calls made meanwhile wait for it ${GROUP_WAIT_MILLISECONDS} ms at most, then are read beside it`, async () => {
    const reads: string[] = [];
    const grouped = groupedReads(
      (key: string) => {
        reads.push(key);
        // The first read never answers, as from a database that stopped answering.
        return reads.length === 1 ? new Promise<string>(() => undefined) : Promise.resolve('ok');
      },
      (key) => key,
    );
    void grouped('kb');
    const started = performance.now();

    const answer = await grouped('kb');

    expect(answer).toBe('ok');
    expect(performance.now() - started).toBeGreaterThanOrEqual(GROUP_WAIT_MILLISECONDS - 1);
    expect(reads).toEqual(['kb', 'kb']);
  });
});

describe('groupedCalls', () => {
  test('a group of calls: one run with their inputs in call order, each call its own output', async () => {
    const runs: number[][] = [];
    let total = 0;
    // A counter that adds a group's hits at once and answers each hit with its position in the count.
    const hit = groupedCalls<number, number>(
      async (_key, inputs) => {
        runs.push(inputs);
        total += inputs.length;
        return inputs.map((_, position) => total - inputs.length + position + 1);
      },
      () => 'counter',
    );

    const counts = await Promise.all([hit(1), hit(2), hit(3), hit(4)]);

    expect(counts).toEqual([1, 2, 3, 4]);
    expect(runs).toEqual([[1], [2, 3, 4]]);
  });
});
