import type { Database, Statement } from 'better-sqlite3';
import { HEADING_WEIGHT } from './bm25.ts';

/**
 * Default cap on the postings one connection holds in memory, summed over
 * knowledge bases: 1,000,000 postings, about 24 MB of typed arrays
 * ({@link BYTES_PER_CACHED_POSTING}) plus the term map (the bundled Node.js
 * docs: 155,657 postings, 3.7 MB). Every answer worker has its own
 * connection, hence its own cache. A knowledge base that does not fit is
 * searched with the SQL of store/sqlite-search.ts instead, with the same
 * results.
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
  /** Reusable per-search buffers of the scorer (store/postings-scoring.ts); one thread uses a connection. */
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

/** Postings in the order of the primary key (kb_id, term, chunk_id): no sort. */
const TERM_COUNTS_SQL = 'SELECT term, COUNT(*) AS n FROM postings WHERE kb_id = ? GROUP BY term ORDER BY term';
const POSTINGS_SQL = `SELECT chunk_id, document_id, tf_body + @headingWeight * tf_heading, body_length + @headingWeight * heading_length
FROM postings WHERE kb_id = @kbId ORDER BY term, chunk_id`;

/**
 * A connection's in-memory postings, per knowledge base, read lazily from
 * the `postings` table at the first search of a knowledge base and read
 * again when its index version (`index_stats.version`, migration 7) has
 * changed, whichever connection changed it.
 *
 * Memory is bounded by `maxPostings` across knowledge bases: least recently
 * used entries idle for the quiet period are evicted to make room; a
 * knowledge base that still does not fit is not cached ({@link postingsAt}
 * returns `undefined` and the caller searches with SQL).
 *
 * Not thread-safe, like the connection it reads from.
 */
export class PostingsCache {
  readonly #maxPostings: number;
  readonly #quietMilliseconds: number;
  readonly #now: () => number;
  readonly #termCounts: Statement<[string], { term: string; n: number }>;
  readonly #postings: Statement<Record<string, unknown>, [number, number, number, number]>;
  /** Cached entries, least recently used first. */
  readonly #entries = new Map<string, KnowledgeBasePostings>();
  /**
   * Knowledge bases not cached at the version last seen: that version, when
   * it was first seen, and its posting count once known (infinite when over
   * the cap), so that a knowledge base that does not fit is not counted again
   * at every search.
   */
  readonly #waiting = new Map<string, { version: number; since: number; postingCount: number | undefined }>();
  #postingTotal = 0;

  /**
   * @param database the connection to read postings from (read-only is enough)
   */
  constructor(database: Database, options: PostingsCacheOptions = {}) {
    this.#maxPostings = options.maxPostings ?? MAX_CACHED_POSTINGS;
    this.#quietMilliseconds = options.quietMilliseconds ?? CACHE_QUIET_MILLISECONDS;
    this.#now = options.now ?? (() => performance.now());
    this.#termCounts = database.prepare(TERM_COUNTS_SQL);
    this.#postings = database.prepare<Record<string, unknown>, [number, number, number, number]>(POSTINGS_SQL).raw();
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
   * The postings of `kbId` at `version`, read from the database when needed.
   * Call inside a read transaction in which `version` was read, so that the
   * version and the postings come from one snapshot.
   *
   * @returns `undefined` when the knowledge base is not cached at this
   *   version and will not be now (over the cap, no room, or changed less
   *   than the quiet period ago): search with SQL
   */
  postingsAt(kbId: string, version: number): KnowledgeBasePostings | undefined {
    const now = this.#now();
    const entry = this.#entries.get(kbId);
    if (entry?.version === version) {
      entry.lastUsedAt = now;
      this.#entries.delete(kbId);
      this.#entries.set(kbId, entry);
      return entry;
    }
    // The index changed since it was cached: the entry is of no more use.
    if (entry) this.#drop(kbId, entry);
    let waiting = this.#waiting.get(kbId);
    if (waiting?.version !== version) {
      // A version not seen yet: read at once at the knowledge base's first
      // search, else only once it has stayed the same for the quiet period.
      const changed = entry !== undefined || waiting !== undefined;
      waiting = { version, since: now, postingCount: undefined };
      this.#waiting.set(kbId, waiting);
      if (changed && this.#quietMilliseconds > 0) return undefined;
    } else if (now - waiting.since < this.#quietMilliseconds) {
      return undefined;
    }
    if (waiting.postingCount !== undefined && (waiting.postingCount > this.#maxPostings || !this.#makeRoom(waiting.postingCount, now))) {
      return undefined;
    }
    const terms = this.#readTerms(kbId);
    waiting.postingCount = terms?.total ?? Number.POSITIVE_INFINITY;
    if (!terms || !this.#makeRoom(terms.total, now)) return undefined;
    const built = this.#readPostings(kbId, version, terms, now);
    this.#waiting.delete(kbId);
    this.#entries.set(kbId, built);
    this.#postingTotal += built.postingCount;
    return built;
  }

  /** Evicts least recently used idle entries until `count` more postings fit; false when they cannot. */
  #makeRoom(count: number, now: number): boolean {
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

  /** The terms of `kbId` and where their postings start; `undefined` as soon as they exceed the cap. */
  #readTerms(kbId: string): { termIndex: Map<string, number>; starts: number[]; total: number } | undefined {
    const termIndex = new Map<string, number>();
    const starts: number[] = [0];
    let total = 0;
    for (const row of this.#termCounts.iterate(kbId)) {
      total += row.n;
      if (total > this.#maxPostings) return undefined; // leaving the loop resets the statement
      termIndex.set(row.term, starts.length - 1);
      starts.push(total);
    }
    return { termIndex, starts, total };
  }

  /** Reads every posting of `kbId`, in primary-key order, into typed arrays laid out by {@link readTerms}. */
  #readPostings(
    kbId: string,
    version: number,
    { termIndex, starts, total }: { termIndex: Map<string, number>; starts: number[]; total: number },
    now: number,
  ): KnowledgeBasePostings {
    const postingChunkIds = new Float64Array(total);
    const documentSlots = new Uint32Array(total);
    const termFrequencies = new Float64Array(total);
    const lengths = new Float64Array(total);
    const documentSlotOf = new Map<number, number>();
    let index = 0;
    for (const [chunkId, documentId, termFrequency, length] of this.#postings.iterate({ kbId, headingWeight: HEADING_WEIGHT })) {
      // The two scans see one snapshot (the caller's transaction), so they agree.
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
      lastUsedAt: now,
    };
  }
}
