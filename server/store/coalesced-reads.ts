/**
 * A read of the store, coalesced: the calls with one key made in one turn of
 * the event loop share one read, issued in that turn's check phase
 * (`setImmediate`), after every one of them was made. Each caller thus sees
 * every write committed before it called, exactly as with a read of its own
 * (a token revoked, a role removed, a document ingested), for one read
 * where a burst of requests (those parsed from one poll of the sockets)
 * made one each: on PostgreSQL a round trip, and the client's and the
 * server's CPU for it, per request.
 *
 * DataLoader (graphql/dataloader) batches loads the same way; Go's
 * singleflight instead shares a call already in flight, which a caller
 * arriving after a write committed could join and miss the write: a call
 * here only joins a read not yet issued.
 *
 * @param read the store's read
 * @param keyOf the key of a call's arguments: calls with equal keys share a read
 * @returns the same read, coalesced; a failed read fails every call that shared it
 */
export function coalescedReads<Arguments extends unknown[], Value>(
  read: (...args: Arguments) => Promise<Value>,
  keyOf: (...args: Arguments) => string,
): (...args: Arguments) => Promise<Value> {
  const unissued = new Map<string, Promise<Value>>();
  return (...args) => {
    const key = keyOf(...args);
    let shared = unissued.get(key);
    if (shared === undefined) {
      shared = new Promise<Value>((resolve, reject) => {
        setImmediate(() => {
          // Issued now: a later call waits for a read of its own.
          unissued.delete(key);
          read(...args).then(resolve, reject);
        });
      });
      unissued.set(key, shared);
    }
    return shared;
  };
}
