/**
 * Default cap on the postings one cache holds in memory, summed over
 * knowledge bases: 1,000,000 postings, about 24 MB of typed arrays
 * ({@link BYTES_PER_CACHED_POSTING}) plus the term map (the bundled Node.js
 * docs: 155,657 postings, 3.7 MB). Every answer worker has its own
 * connection (embedded store) or pool (PostgreSQL store), hence its own
 * cache. A knowledge base that does not fit is searched with the backend's
 * SQL (store/sqlite-search.ts, store/postgres-search.ts) instead, with the
 * same results.
 */
export const MAX_CACHED_POSTINGS = 1_000_000;

/** Typed-array bytes per cached posting: chunk slot and document slot (4 + 4), weighted term frequency and length (8 + 8). */
export const BYTES_PER_CACHED_POSTING = 24;

/**
 * Default quiet period, in milliseconds: after a knowledge base's index
 * changed, its postings are read again only once the new version has been
 * seen unchanged for this long (searches use SQL meanwhile), so that a long
 * ingest does not make every search rebuild the cache; and an entry is only
 * evicted for another knowledge base once it has been unused for this long,
 * so that two knowledge bases that do not fit together do not evict each
 * other at every search.
 */
export const CACHE_QUIET_MILLISECONDS = 2_000;

/**
 * The postings of one knowledge base at one index version, held as typed
 * arrays (struct of arrays, one index per posting), grouped by term.
 *
 * Chunk slots number the knowledge base's chunks in ascending chunk id, so
 * comparing slots orders by chunk id (the tie-break of the search).
 */
export interface KnowledgeBasePostings {
  readonly kbId: string;
  /** `index_stats.version` the postings were read at. */
  readonly version: number;
  /** Term -> its range number `i`: its postings are `[termStarts[i], termStarts[i + 1])`. */
  readonly termIndex: ReadonlyMap<string, number>;
  /** Range starts, one per term plus the total posting count. */
  readonly termStarts: Uint32Array;
  /** Per posting: chunk slot (index into {@link chunkIds}). */
  readonly chunkSlots: Uint32Array;
  /** Per posting: document slot (see {@link documentSlotOf}). */
  readonly documentSlots: Uint32Array;
  /** Per posting: `tf_body + HEADING_WEIGHT * tf_heading`, as the search SQL computes it. */
  readonly termFrequencies: Float64Array;
  /** Per posting: `body_length + HEADING_WEIGHT * heading_length`, as the search SQL computes it. */
  readonly lengths: Float64Array;
  /** Per chunk slot: the chunk id (`chunks.id`), ascending. */
  readonly chunkIds: Float64Array;
  /** Document id (`documents.id`) -> document slot, for the documents that have postings. */
  readonly documentSlotOf: ReadonlyMap<number, number>;
  /** Number of postings. */
  readonly postingCount: number;
  /** When the entry was last used, on the cache's clock (for eviction). */
  lastUsedAt: number;
  /** Reusable per-search buffers of the scorer (store/postings-scoring.ts); one thread uses a cache, and scoring is synchronous. */
  scratch?: ScoringScratch;
}

/** Per-chunk accumulators reused from search to search (valid where `stamps[slot] === epoch`). */
export interface ScoringScratch {
  sums: Float64Array;
  errors: Float64Array;
  stamps: Uint32Array;
  touched: Uint32Array;
  epoch: number;
}

/** Options of {@link PostingsCache}. */
export interface PostingsCacheOptions {
  /** Most postings held, summed over knowledge bases; default {@link MAX_CACHED_POSTINGS}. */
  maxPostings?: number;
  /** See {@link CACHE_QUIET_MILLISECONDS} (the default); 0 rebuilds at the first search after a change. */
  quietMilliseconds?: number;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
}

/**
 * One term of a knowledge base and how many postings it has, as a backend
 * reads them: in the term order of its {@link PostingRow}s.
 */
export interface TermCount {
  term: string;
  count: number;
}

/**
 * One posting as a backend reads it: chunk id (`chunks.id`), document id
 * (`documents.id`), weighted term frequency `tf_body + HEADING_WEIGHT *
 * tf_heading` and weighted passage length `body_length + HEADING_WEIGHT *
 * heading_length` (store/bm25.ts), computed in `double precision` exactly as
 * the backend's search SQL computes them.
 */
export type PostingRow = readonly [chunkId: number, documentId: number, termFrequency: number, length: number];

/**
 * How a backend reads one knowledge base's postings, synchronously (the
 * embedded store, inside its better-sqlite3 read transaction). Both reads
 * must see one snapshot and order terms the same way: {@link termCounts} by
 * term, {@link postings} by term, then chunk id.
 */
export interface PostingsReader {
  /** The knowledge base's terms and their posting counts, ordered by term; may be left before its end (over the cap). */
  termCounts(kbId: string): Iterable<TermCount>;
  /** Every posting of the knowledge base, ordered by term, then chunk id. */
  postings(kbId: string): Iterable<PostingRow>;
}

/**
 * {@link PostingsReader} for a backend whose reads are asynchronous (the
 * PostgreSQL store, inside its `REPEATABLE READ` transaction): the same
 * rows, in the same orders, resolved once read.
 */
export interface AsyncPostingsReader {
  termCounts(kbId: string): Promise<Iterable<TermCount>>;
  postings(kbId: string): Promise<Iterable<PostingRow>>;
}

/** A knowledge base not cached at the version last seen: that version, when it was first seen, and its posting count once known (infinite when over the cap). */
interface Waiting {
  version: number;
  since: number;
  postingCount: number | undefined;
}

/** What {@link PostingsCache} decided for one search, before reading anything. */
type Lookup =
  | { kind: 'cached'; postings: KnowledgeBasePostings }
  | { kind: 'declined' }
  | { kind: 'read'; kbId: string; version: number; waiting: Waiting };

/** Where each term's postings start, read from the term counts. */
interface TermLayout {
  termIndex: Map<string, number>;
  starts: number[];
  total: number;
}

/**
 * A thread's in-memory postings, per knowledge base, read lazily from the
 * `postings` table at the first search of a knowledge base and read again
 * when its index version (`index_stats.version`) has changed, whichever
 * connection or process changed it.
 *
 * Memory is bounded by `maxPostings` across knowledge bases: least recently
 * used entries idle for the quiet period are evicted to make room; a
 * knowledge base that still does not fit is not cached ({@link postingsAt}
 * and {@link postingsAtAsync} return `undefined` and the caller searches
 * with SQL).
 *
 * The policy lives here; the backend supplies the reading of rows
 * ({@link PostingsReader}, {@link AsyncPostingsReader}), called inside its
 * read transaction. While one asynchronous read of a knowledge base is under
 * way, other searches of it are declined (they use SQL) rather than reading
 * it again.
 *
 * Not thread-safe: one per thread, like the connections it reads through.
 */
export class PostingsCache {
  readonly #maxPostings: number;
  readonly #quietMilliseconds: number;
  readonly #now: () => number;
  /** Cached entries, least recently used first. */
  readonly #entries = new Map<string, KnowledgeBasePostings>();
  /**
   * Knowledge bases not cached at the version last seen, so that one that
   * does not fit is not counted again at every search.
   */
  readonly #waiting = new Map<string, Waiting>();
  /** Knowledge bases whose postings an asynchronous read is fetching. */
  readonly #reading = new Set<string>();
  #postingTotal = 0;

  constructor(options: PostingsCacheOptions = {}) {
    this.#maxPostings = options.maxPostings ?? MAX_CACHED_POSTINGS;
    this.#quietMilliseconds = options.quietMilliseconds ?? CACHE_QUIET_MILLISECONDS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Postings held, summed over knowledge bases. */
  get postingTotal(): number {
    return this.#postingTotal;
  }

  /** The cached entry of `kbId` at any version, without reading or touching anything (for tests and diagnostics). */
  peek(kbId: string): KnowledgeBasePostings | undefined {
    return this.#entries.get(kbId);
  }

  /**
   * The postings of `kbId` at `version`, read through `reader` when needed.
   * Call inside a read transaction in which `version` was read, so that the
   * version and the postings come from one snapshot.
   *
   * @returns `undefined` when the knowledge base is not cached at this
   *   version and will not be now (over the cap, no room, or changed less
   *   than the quiet period ago): search with SQL
   * @throws Error when the two reads disagree (not one snapshot), or what `reader` throws
   */
  postingsAt(kbId: string, version: number, reader: PostingsReader): KnowledgeBasePostings | undefined {
    const lookup = this.#lookUp(kbId, version);
    if (lookup.kind !== 'read') return lookup.kind === 'cached' ? lookup.postings : undefined;
    const layout = this.#layOut(lookup, reader.termCounts(kbId));
    return layout && this.#admit(buildPostings(kbId, version, layout, reader.postings(kbId)));
  }

  /**
   * {@link postingsAt} for a backend that reads asynchronously: the same
   * decisions, and the same entry once read.
   *
   * @returns a promise of the postings, or of `undefined` (search with SQL),
   *   also while another search of this cache is reading the knowledge base
   * @throws (rejects) like {@link postingsAt}
   */
  async postingsAtAsync(kbId: string, version: number, reader: AsyncPostingsReader): Promise<KnowledgeBasePostings | undefined> {
    const lookup = this.#lookUp(kbId, version);
    if (lookup.kind !== 'read') return lookup.kind === 'cached' ? lookup.postings : undefined;
    this.#reading.add(kbId);
    try {
      const layout = this.#layOut(lookup, await reader.termCounts(kbId));
      return layout && this.#admit(buildPostings(kbId, version, layout, await reader.postings(kbId)));
    } finally {
      this.#reading.delete(kbId);
    }
  }

  /** The decision that needs no reading: a cached entry, no (quiet period, over the cap, being read), or read. */
  #lookUp(kbId: string, version: number): Lookup {
    const now = this.#now();
    const entry = this.#entries.get(kbId);
    if (entry?.version === version) {
      entry.lastUsedAt = now;
      this.#entries.delete(kbId);
      this.#entries.set(kbId, entry);
      return { kind: 'cached', postings: entry };
    }
    if (this.#reading.has(kbId)) return { kind: 'declined' };
    // The index changed since it was cached: the entry is of no more use.
    if (entry) this.#drop(kbId, entry);
    let waiting = this.#waiting.get(kbId);
    if (waiting?.version !== version) {
      // A version not seen yet: read at once at the knowledge base's first
      // search, else only once it has stayed the same for the quiet period.
      const changed = entry !== undefined || waiting !== undefined;
      waiting = { version, since: now, postingCount: undefined };
      this.#waiting.set(kbId, waiting);
      if (changed && this.#quietMilliseconds > 0) return { kind: 'declined' };
    } else if (now - waiting.since < this.#quietMilliseconds) {
      return { kind: 'declined' };
    }
    if (waiting.postingCount !== undefined && (waiting.postingCount > this.#maxPostings || !this.#makeRoom(waiting.postingCount))) {
      return { kind: 'declined' };
    }
    return { kind: 'read', kbId, version, waiting };
  }

  /**
   * Lays the terms out from their counts, stopping as soon as they exceed
   * the cap; records the count, and makes room for it.
   *
   * @returns `undefined` when the knowledge base does not fit
   */
  #layOut(lookup: Extract<Lookup, { kind: 'read' }>, termCounts: Iterable<TermCount>): TermLayout | undefined {
    const termIndex = new Map<string, number>();
    const starts: number[] = [0];
    let total = 0;
    for (const { term, count } of termCounts) {
      total += count;
      if (total > this.#maxPostings) break; // leaving the loop closes the reader's iterator (and resets a SQLite statement)
      termIndex.set(term, starts.length - 1);
      starts.push(total);
    }
    lookup.waiting.postingCount = total > this.#maxPostings ? Number.POSITIVE_INFINITY : total;
    return total <= this.#maxPostings && this.#makeRoom(total) ? { termIndex, starts, total } : undefined;
  }

  /**
   * Caches freshly read postings, making room again (another search may have
   * filled it while they were read).
   *
   * @returns `postings`, or `undefined` when they no longer fit
   */
  #admit(postings: KnowledgeBasePostings): KnowledgeBasePostings | undefined {
    const previous = this.#entries.get(postings.kbId);
    if (previous) this.#drop(postings.kbId, previous);
    if (!this.#makeRoom(postings.postingCount)) return undefined;
    if (this.#waiting.get(postings.kbId)?.version === postings.version) this.#waiting.delete(postings.kbId);
    postings.lastUsedAt = this.#now();
    this.#entries.set(postings.kbId, postings);
    this.#postingTotal += postings.postingCount;
    return postings;
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

  #drop(kbId: string, entry: KnowledgeBasePostings): void {
    this.#entries.delete(kbId);
    this.#postingTotal -= entry.postingCount;
  }
}

/**
 * Builds a knowledge base's {@link KnowledgeBasePostings} from its postings,
 * read in the order of the term counts `layout` was laid out from.
 *
 * @param layout where each term's postings start (from the term counts)
 * @param rows every posting, ordered by term (as the term counts), then chunk id
 * @throws Error when the rows are not as many as the term counts said (the two reads saw different snapshots)
 */
function buildPostings(kbId: string, version: number, layout: TermLayout, rows: Iterable<PostingRow>): KnowledgeBasePostings {
  const { termIndex, starts, total } = layout;
  const postingChunkIds = new Float64Array(total);
  const documentSlots = new Uint32Array(total);
  const termFrequencies = new Float64Array(total);
  const lengths = new Float64Array(total);
  const documentSlotOf = new Map<number, number>();
  let index = 0;
  for (const [chunkId, documentId, termFrequency, length] of rows) {
    if (index === total) throw new Error(`The postings of knowledge base "${kbId}" changed while being read`);
    let documentSlot = documentSlotOf.get(documentId);
    if (documentSlot === undefined) {
      documentSlot = documentSlotOf.size;
      documentSlotOf.set(documentId, documentSlot);
    }
    postingChunkIds[index] = chunkId;
    documentSlots[index] = documentSlot;
    termFrequencies[index] = termFrequency;
    lengths[index] = length;
    index++;
  }
  if (index !== total) throw new Error(`The postings of knowledge base "${kbId}" changed while being read`);
  const chunkIds = Float64Array.from(new Set(postingChunkIds)).sort();
  const slotOf = new Map<number, number>();
  chunkIds.forEach((chunkId, slot) => slotOf.set(chunkId, slot));
  const chunkSlots = new Uint32Array(total);
  for (let posting = 0; posting < total; posting++) chunkSlots[posting] = slotOf.get(postingChunkIds[posting]!)!;
  return {
    kbId,
    version,
    termIndex,
    termStarts: Uint32Array.from(starts),
    chunkSlots,
    documentSlots,
    termFrequencies,
    lengths,
    chunkIds,
    documentSlotOf,
    postingCount: total,
    lastUsedAt: 0,
  };
}
