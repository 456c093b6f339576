import { MAX_QUERY_TERMS, PASSAGE_RANKING } from './bm25f.ts';
import { IndexCache, type IndexCacheOptions } from './index-cache.ts';
import { readableChunks, scoreColumns, type QueryTerm } from './index-scorer.ts';
import type { RetrievalQuery, Retriever, SearchResult } from './retriever.ts';
import type { ScoredPassage, Store } from '../store/store.ts';

/**
 * The lexical retriever: fielded BM25 (retrieval/bm25f.ts) over the index the store
 * keeps (store/index-data.ts), inside the reach. Each search reads the
 * reach's statistics (one query), scores in memory - over the knowledge
 * base's whole index when this retriever holds it (retrieval/index-cache.ts),
 * else over its query terms' postings read for the search - and reads the
 * chosen passages' rows. Either way the same passages in the same order.
 *
 * One per thread (its cache is not shared): each answer worker has its own.
 */

/** What the retriever needs of the store: the index reads, nothing else. */
export type IndexStore = Pick<Store, 'reachStatistics' | 'readIndex' | 'readTermIndex' | 'passagesById'>;

/** Options of {@link createLexicalRetriever}. */
export interface LexicalRetrieverOptions {
  /** The in-memory index's cap, quiet period and clock; `false` reads each search's terms instead (for tests). */
  cache?: IndexCacheOptions | false;
}

export function createLexicalRetriever(store: IndexStore, options: LexicalRetrieverOptions = {}): Retriever {
  const cache = options.cache === false ? undefined : new IndexCache(options.cache);
  return {
    async search(query: RetrievalQuery): Promise<SearchResult> {
      const { kbId } = query.reach;
      const terms = [...new Set(query.terms)].slice(0, MAX_QUERY_TERMS);
      const statistics = await store.reachStatistics(query.reach);
      const passageCount = statistics.passageCount;
      if (passageCount === 0 || terms.length === 0) {
        return { passages: [], passageCount, documentFrequencies: Object.fromEntries(terms.map((term) => [term, 0])) };
      }
      const columns =
        (await cache?.indexAt(kbId, statistics.version, (id, maxPostings) => store.readIndex(id, maxPostings))) ??
        (await store.readTermIndex(kbId, terms));
      const readable = statistics.readableDocuments ? readableChunks(columns, statistics.readableDocuments) : undefined;
      const averageLengths = statistics.lengthSums.map((sum) => sum / passageCount);
      const queryTerms: QueryTerm[] = terms.map((term) => ({ term, weight: query.termWeights?.get(term) ?? 1 }));
      const scored = scoreColumns(columns, PASSAGE_RANKING, queryTerms, passageCount, averageLengths, readable, query.topK);
      const rows = new Map((await store.passagesById(kbId, scored.chunkIds)).map((row) => [row.chunkId, row]));
      const passages: ScoredPassage[] = [];
      scored.chunkIds.forEach((chunkId, rank) => {
        // A passage removed since the index was read is left out.
        const row = rows.get(chunkId);
        if (row) passages.push({ ...row, score: scored.scores[rank]! });
      });
      return { passages, passageCount, documentFrequencies: scored.documentFrequencies };
    },
  };
}
