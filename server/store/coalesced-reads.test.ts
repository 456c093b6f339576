import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { coalescedReads } from './coalesced-reads.ts';

/** A stored value per key that writes change, and a log of the reads made of it. */
function storedValues() {
  const values = new Map<string, number>();
  const reads: string[] = [];
  const read = async (key: string) => {
    reads.push(key);
    return values.get(key) ?? 0;
  };
  return { values, reads, read };
}

describe('coalescedReads', () => {
  test('calls with one key in one turn of the event loop: one read, its value for each', async () => {
    const { values, reads, read } = storedValues();
    values.set('kb', 7);
    const coalesced = coalescedReads(read, (key) => key);

    const answers = await Promise.all([coalesced('kb'), coalesced('kb'), coalesced('kb')]);

    expect(answers).toEqual([7, 7, 7]);
    expect(reads).toEqual(['kb']);
  });

  test('calls with other keys in the same turn: a read per key, each its own value', async () => {
    const { values, reads, read } = storedValues();
    values.set('a', 1);
    values.set('b', 2);
    const coalesced = coalescedReads(read, (key) => key);

    const answers = await Promise.all([coalesced('a'), coalesced('b'), coalesced('a')]);

    expect(answers).toEqual([1, 2, 1]);
    expect(reads.sort()).toEqual(['a', 'b']);
  });

  test('a write committed while a read is in flight: a call made after the write does not join that read, it reads again and sees the write', async () => {
    const values = new Map([['token', 'valid']]);
    const inFlight: (() => void)[] = [];
    // Each read sees the value as of when it was issued (a snapshot), and answers when the test lets it.
    const coalesced = coalescedReads(
      (key: string) => {
        const snapshot = values.get(key);
        return new Promise<string | undefined>((resolve) => inFlight.push(() => resolve(snapshot)));
      },
      (key) => key,
    );
    const before = coalesced('token');
    await nextTurn();
    expect(inFlight).toHaveLength(1);

    values.set('token', 'revoked');
    const after = coalesced('token');
    await nextTurn();
    for (const answer of inFlight) answer();

    expect(await before).toBe('valid');
    expect(await after).toBe('revoked');
    expect(inFlight).toHaveLength(2);
  });

  test('a read that fails: every call that shared it fails with its error, and the next call reads again', async () => {
    let failing = true;
    const coalesced = coalescedReads(
      async (key: string) => {
        if (failing) throw new Error(`The store is unavailable (${key})`);
        return 'ok';
      },
      (key) => key,
    );

    const shared = await Promise.allSettled([coalesced('kb'), coalesced('kb')]);
    failing = false;

    expect(shared).toEqual([
      { status: 'rejected', reason: new Error('The store is unavailable (kb)') },
      { status: 'rejected', reason: new Error('The store is unavailable (kb)') },
    ]);
    expect(await coalesced('kb')).toBe('ok');
  });

  test('the arguments of the call that started the read are read; keys built from several arguments keep them apart', async () => {
    const reads: [string, string][] = [];
    const coalesced = coalescedReads(
      async (kbId: string, userId: string) => {
        reads.push([kbId, userId]);
        return `${userId}@${kbId}`;
      },
      (kbId, userId) => `${kbId}\n${userId}`,
    );

    const answers = await Promise.all([coalesced('docs', 'ada'), coalesced('docs', 'bob'), coalesced('docs', 'ada')]);

    expect(answers).toEqual(['ada@docs', 'bob@docs', 'ada@docs']);
    expect(reads).toEqual([
      ['docs', 'ada'],
      ['docs', 'bob'],
    ]);
  });
});
