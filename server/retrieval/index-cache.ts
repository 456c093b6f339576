import type { KnowledgeBaseIndex } from '../store/index/index-data.ts';

/**
 * A thread's in-memory lexical index, per knowledge base: the whole index
 * read from the store (store/index-data.ts) at a knowledge base's first
 * search, and read again when its index version has changed, whichever
 * process changed it. Searches of a knowledge base that is not held read
 * only their terms' postings instead (retrieval/lexical-retriever.ts), with
 * the same results.
 *
 * - Memory is bounded by {@link IndexCacheOptions.maxPostings}, summed over
 *   knowledge bases: least recently used entries idle for the quiet period
 *   are evicted to make room; a knowledge base that does not fit is not held.
 * - After a knowledge base changed, it is read again only once its new version
 *   has stayed unchanged for the quiet period, so that a long ingest does
 *   not make every search re-read the whole index.
 * - One read of a knowledge base at a time, in the background: the search
 *   that starts it and the searches meanwhile read their terms (unless the
 *   store answered synchronously, as SQLite does), so a large index's read
 *   (seconds in PostgreSQL at 80,000 passages) never holds up a visitor, and
 *   a read that fails is only tried again after the quiet period.
 *
 * Not thread-safe: one per thread (each answer worker has its own).
 */

/**
 * Default cap on postings held, summed over knowledge bases: 16,000,000,
 * at most about 200 MB of typed arrays at 12 bytes a posting (the bundled
 * Node.js docs: about 200,000 postings; the Kubernetes docs about 900,000;
 * the Node.js docs copied 64 times, 313,000 passages from 198 MB of
 * markdown, 13 million). At 4,000,000 that copy did not fit, and every
 * search read its terms from the store: PostgreSQL p95 82-106 ms where the
 * index held answers in a few milliseconds (`npm run bench`, scale table).
 * `KB_INDEX_MEMORY_POSTINGS` sets it (server/config.ts).
 */
export const MAX_CACHED_POSTINGS = 16_000_000;

/** Default quiet period, milliseconds (see the module's documentation). */
export const CACHE_QUIET_MILLISECONDS = 2_000;

/** Options of {@link IndexCache}. */
export interface IndexCacheOptions {
  /** Most postings held, summed over knowledge bases; default {@link MAX_CACHED_POSTINGS}. */
  maxPostings?: number;
  /** Quiet period, milliseconds; default {@link CACHE_QUIET_MILLISECONDS}; 0 reads at the first search after a change. */
  quietMilliseconds?: number;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
}

/** How the cache reads a knowledge base's whole index: undefined when it has more than `maxPostings` postings. */
export type IndexLoader = (kbId: string, maxPostings: number) => Promise<KnowledgeBaseIndex | undefined>;

interface Entry {
  columns: KnowledgeBaseIndex;
  postings: number;
  lastUsedAt: number;
}

/** A version not held yet: when it was first seen, and whether it is known not to fit. */
interface Waiting {
  version: number;
  since: number;
  tooLarge: boolean;
}

export class IndexCache {
  readonly #maxPostings: number;
  readonly #quietMilliseconds: number;
  readonly #now: () => number;
  /** Held entries, least recently used first. */
  readonly #entries = new Map<string, Entry>();
  readonly #waiting = new Map<string, Waiting>();
  /** Reads in progress, by knowledge base. */
  readonly #reading = new Map<string, Promise<unknown>>();
  #postingTotal = 0;

  constructor(options: IndexCacheOptions = {}) {
    this.#maxPostings = options.maxPostings ?? MAX_CACHED_POSTINGS;
    this.#quietMilliseconds = options.quietMilliseconds ?? CACHE_QUIET_MILLISECONDS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Postings held, summed over knowledge bases. */
  get postingTotal(): number {
    return this.#postingTotal;
  }

  /**
   * The index of `kbId` at `version`, read through `load` when that is due.
   *
   * @param version the knowledge base's current index version (from the search's statistics)
   * @returns the columns at `version`, or undefined: search with the terms' postings
   */
  async indexAt(kbId: string, version: number, load: IndexLoader): Promise<KnowledgeBaseIndex | undefined> {
    const now = this.#now();
    const entry = this.#entries.get(kbId);
    if (entry?.columns.passages.version === version) {
      entry.lastUsedAt = now;
      this.#entries.delete(kbId);
      this.#entries.set(kbId, entry);
      return entry.columns;
    }
    if (this.#reading.has(kbId)) return undefined;
    if (entry) this.#drop(kbId, entry);
    let waiting = this.#waiting.get(kbId);
    if (waiting?.version !== version) {
      // A new version: read at once at a knowledge base's first search, after the quiet period when it changed.
      const changed = entry !== undefined || waiting !== undefined;
      waiting = { version, since: now, tooLarge: false };
      this.#waiting.set(kbId, waiting);
      if (changed && this.#quietMilliseconds > 0) return undefined;
    } else if (waiting.tooLarge || now - waiting.since < this.#quietMilliseconds) {
      return undefined;
    }
    const read = this.#read(kbId, waiting, load);
    // A store that reads synchronously (SQLite) has finished already: this search uses what it read.
    const pending = Symbol('pending');
    const columns = await Promise.race([read, new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending)))]);
    return columns !== pending && columns?.passages.version === version ? columns : undefined;
  }

  /** Resolves once every read in progress has ended (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.#reading.values());
  }

  /**
   * Reads a knowledge base's whole index and holds it when it fits, in the
   * background: searches meanwhile read their terms. A read that fails (the
   * store unavailable, a statement timeout) is not reported to any search:
   * it is tried again once the quiet period has passed.
   *
   * @returns what was read, held or not (undefined: too large, or failed)
   */
  #read(kbId: string, waiting: Waiting, load: IndexLoader): Promise<KnowledgeBaseIndex | undefined> {
    const read = (async () => {
      try {
        const columns = await load(kbId, this.#maxPostings);
        if (!columns) {
          waiting.tooLarge = true;
          return undefined;
        }
        const postings = columns.passages.postingChunks.length + columns.pages.postingChunks.length;
        if (!this.#makeRoom(postings)) {
          // No room now: another read is tried only after the quiet period.
          waiting.since = this.#now();
          return columns;
        }
        if (this.#waiting.get(kbId) === waiting) this.#waiting.delete(kbId);
        const previous = this.#entries.get(kbId);
        if (previous) this.#drop(kbId, previous);
        this.#entries.set(kbId, { columns, postings, lastUsedAt: this.#now() });
        this.#postingTotal += postings;
        return columns;
      } catch {
        waiting.since = this.#now();
        return undefined;
      } finally {
        this.#reading.delete(kbId);
      }
    })();
    this.#reading.set(kbId, read);
    return read;
  }

  /** Evicts least recently used idle entries until `count` more postings fit; false when they cannot. */
  #makeRoom(count: number): boolean {
    const now = this.#now();
    for (const [kbId, entry] of this.#entries) {
      if (this.#postingTotal + count <= this.#maxPostings) break;
      if (now - entry.lastUsedAt < this.#quietMilliseconds) return false;
      this.#drop(kbId, entry);
    }
    return this.#postingTotal + count <= this.#maxPostings;
  }

  #drop(kbId: string, entry: Entry): void {
    this.#entries.delete(kbId);
    this.#postingTotal -= entry.postings;
  }
}
