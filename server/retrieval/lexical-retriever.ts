import {
  inverseDocumentFrequency,
  MAX_QUERY_TERMS,
  maximumTermScore,
  PAGE_EVIDENCE_WEIGHT,
  PAGE_RANKING,
  PASSAGE_RANKING,
} from './bm25f.ts';
import { IndexCache, type IndexCacheOptions } from './index-cache.ts';
import { readableChunks, scoreColumns, type QueryTerm, type ScoredColumns } from './index-scorer.ts';
import { PASSAGE_POOL } from './retrieval-plan.ts';
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
  /**
   * The in-memory index: its cap, quiet period and clock, or a cache to use
   * (a benchmark waits for its reads); `false` reads each search's terms instead (for tests).
   */
  cache?: IndexCacheOptions | IndexCache | false;
}

export function createLexicalRetriever(store: IndexStore, options: LexicalRetrieverOptions = {}): Retriever {
  const cache = options.cache === false ? undefined : options.cache instanceof IndexCache ? options.cache : new IndexCache(options.cache);
  return {
    async search(query: RetrievalQuery): Promise<SearchResult> {
      const { kbId } = query.reach;
      const terms = [...new Set(query.terms)].slice(0, MAX_QUERY_TERMS);
      const statistics = await store.reachStatistics(query.reach);
      const passageCount = statistics.passageCount;
      if (passageCount === 0 || terms.length === 0) {
        return { passages: [], passageCount, documentFrequencies: Object.fromEntries(terms.map((term) => [term, 0])) };
      }
      const index =
        (await cache?.indexAt(kbId, statistics.version, (id, maxPostings) => store.readIndex(id, maxPostings))) ??
        (await store.readTermIndex(kbId, terms));
      const queryTerms: QueryTerm[] = terms.map((term) => ({ term, weight: query.termWeights?.get(term) ?? 1 }));
      const passageRanking = scoreColumns(
        index.passages,
        PASSAGE_RANKING,
        queryTerms,
        passageCount,
        statistics.lengthSums.map((sum) => sum / passageCount),
        statistics.readableDocuments ? readableChunks(index.passages, statistics.readableDocuments) : undefined,
        Math.max(query.topK, PASSAGE_POOL),
      );
      const pageRanking = scoreColumns(
        index.pages,
        PAGE_RANKING,
        queryTerms,
        Math.max(statistics.pageCount, 1),
        statistics.pageLengthSums.map((sum) => sum / Math.max(statistics.pageCount, 1)),
        statistics.readableDocuments ? readableChunks(index.pages, statistics.readableDocuments) : undefined,
        index.pages.chunkIds.length,
      );
      // The most the question's terms could score on a page: each term's weight times its IDF among the pages, times k1 + 1.
      const pageCount = Math.max(statistics.pageCount, 1);
      const pageMaximum = queryTerms.reduce((sum, { term, weight }) => {
        const frequency = pageRanking.documentFrequencies[term] ?? 0;
        return frequency > 0 ? sum + maximumTermScore(PAGE_RANKING, weight * inverseDocumentFrequency(pageCount, frequency)) : sum;
      }, 0);
      const scored = withPageEvidence(passageRanking, pageRanking, pageMaximum, query.topK);
      const rows = new Map((await store.passagesById(kbId, scored.chunkIds)).map((row) => [row.chunkId, row]));
      const passages: ScoredPassage[] = [];
      scored.chunkIds.forEach((chunkId, rank) => {
        // A passage removed since the index was read is left out.
        const row = rows.get(chunkId);
        if (row) passages.push({ ...row, score: scored.scores[rank]!, pageEvidence: scored.pageEvidence[rank]! });
      });
      return { passages, passageCount, documentFrequencies: passageRanking.documentFrequencies };
    },
  };
}

/**
 * The candidate passages re-scored with their page's evidence: passage score
 * plus {@link PAGE_EVIDENCE_WEIGHT} times the page score, best first (ties
 * by storage id), the first `topK` kept.
 */
function withPageEvidence(
  passageRanking: ScoredColumns,
  pageRanking: ScoredColumns,
  pageMaximum: number,
  topK: number,
): { chunkIds: number[]; scores: number[]; pageEvidence: number[] } {
  const pageScores = new Map(pageRanking.chunkIds.map((documentId, rank) => [documentId, pageRanking.scores[rank]!]));
  const combined = passageRanking.chunkIds.map((chunkId, rank) => {
    const page = pageScores.get(passageRanking.documentIds[rank]!) ?? 0;
    return { chunkId, score: passageRanking.scores[rank]! + PAGE_EVIDENCE_WEIGHT * page, pageEvidence: pageMaximum > 0 ? page / pageMaximum : 0 };
  });
  combined.sort((left, right) => right.score - left.score || left.chunkId - right.chunkId);
  const kept = combined.slice(0, Math.max(topK, 0));
  return { chunkIds: kept.map((entry) => entry.chunkId), scores: kept.map((entry) => entry.score), pageEvidence: kept.map((entry) => entry.pageEvidence) };
}
