import type { Reach, Store } from '../store/store.ts';

/**
 * The store with the reach statistics read once for calls made while a
 * read for the same reach is in flight: hybrid retrieval's lexical and dense
 * retrievers each need them and ask at the same instant
 * (retrieval/hybrid-retriever.ts), so one read serves both. A call made
 * after the read settled reads again, so it sees every write committed
 * before it, as a read of its own would.
 */
export function sharedReachStatistics<S extends Pick<Store, 'reachStatistics'>>(store: S): S {
  const inFlight = new Map<string, ReturnType<Store['reachStatistics']>>();
  const reachStatistics = (reach: Reach): ReturnType<Store['reachStatistics']> => {
    const key = JSON.stringify([reach.kbId, reach.userId, [...reach.visibilities].sort()]);
    let read = inFlight.get(key);
    if (!read) {
      read = store.reachStatistics(reach).finally(() => inFlight.delete(key));
      inFlight.set(key, read);
    }
    return read;
  };
  // Every other member is the store's own, its methods bound to it (a store class may keep private fields).
  return new Proxy(store, {
    get(target, property) {
      if (property === 'reachStatistics') return reachStatistics;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
