/**
 * Calls to the store grouped per key, as a database groups commits: the
 * first call with a key runs at once, alone; the calls with that key made
 * while it runs wait, and run together as one group as soon as it is done,
 * and so on. An idle server thus waits for nothing, and a busy one makes
 * one round trip for a burst of requests that each needed one (on
 * PostgreSQL: the client's and the server's CPU for a statement, per
 * request).
 *
 * A group starts after every one of its calls was made, so each call sees
 * every write committed before it was made, exactly as a call of its own
 * would (a revoked token, a removed role, an ingest). It waits at most
 * {@link GROUP_WAIT_MILLISECONDS} for the group before it, then starts
 * beside it. Go's singleflight instead lets a call join a read already in
 * flight, which could miss a write committed in between; DataLoader groups
 * the calls of one tick before running any, which delays every call by a
 * turn of the event loop.
 *
 * @param run does the work of a group: the key, its calls' inputs in the
 *   order they were made; resolves to an output for each, in that order
 * @param keyOf the key of a call's input: calls with equal keys are grouped
 * @returns the grouped call; when a group's run fails, each of its calls
 *   fails with that error (the next group runs all the same)
 */
export function groupedCalls<Input, Output>(
  run: (key: string, inputs: Input[]) => Promise<Output[]>,
  keyOf: (input: Input) => string,
): (input: Input) => Promise<Output> {
  /** Per key with a group running: how many run, and the calls made since, which form the next group. */
  const keys = new Map<string, { running: number; next?: Waiting<Input, Output>[]; timer?: NodeJS.Timeout }>();

  const startNext = (key: string) => {
    const state = keys.get(key)!;
    if (state.next === undefined) return;
    clearTimeout(state.timer);
    const group = state.next;
    state.next = undefined;
    start(key, group);
  };

  const start = (key: string, group: Waiting<Input, Output>[]) => {
    const state = keys.get(key)!;
    state.running += 1;
    const settle = (outcome: { outputs: Output[] } | { error: unknown }) => {
      group.forEach((call, position) => ('outputs' in outcome ? call.resolve(outcome.outputs[position]!) : call.reject(outcome.error)));
      state.running -= 1;
      startNext(key);
      if (state.running === 0) keys.delete(key);
    };
    run(
      key,
      group.map((call) => call.input),
    ).then(
      (outputs) => settle({ outputs }),
      (error: unknown) => settle({ error }),
    );
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      const key = keyOf(input);
      const call = { input, resolve, reject };
      const state = keys.get(key);
      if (state === undefined) {
        keys.set(key, { running: 0 });
        start(key, [call]);
      } else if (state.next !== undefined) {
        state.next.push(call);
      } else {
        state.next = [call];
        // A run that hangs (a database that stopped answering) holds the next group no longer than this.
        state.timer = setTimeout(() => startNext(key), GROUP_WAIT_MILLISECONDS);
      }
    });
}

/**
 * The longest a group waits for the run before it, in milliseconds, before
 * it starts anyway: a read of the store takes well under a millisecond, and
 * one that hangs until its timeout must not add that timeout to the calls
 * made meanwhile.
 */
export const GROUP_WAIT_MILLISECONDS = 5;

/** A call waiting for its group: its input and its promise's settling functions. */
interface Waiting<Input, Output> {
  input: Input;
  resolve(output: Output): void;
  reject(reason: unknown): void;
}

/**
 * A read grouped per key ({@link groupedCalls}): the calls of a group share
 * one read, made with the first call's arguments.
 *
 * @param read the store's read
 * @param keyOf the key of a call's arguments: calls with equal keys share reads
 */
export function groupedReads<Arguments extends unknown[], Value>(
  read: (...args: Arguments) => Promise<Value>,
  keyOf: (...args: Arguments) => string,
): (...args: Arguments) => Promise<Value> {
  const grouped = groupedCalls<Arguments, Value>(
    async (_key, inputs) => {
      const value = await read(...inputs[0]!);
      return inputs.map(() => value);
    },
    (args) => keyOf(...args),
  );
  return (...args) => grouped(args);
}
