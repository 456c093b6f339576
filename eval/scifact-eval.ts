import type { EvalEmbedder } from './eval-embedder.ts';
import { markdownDocument } from './markdown-source.ts';
import { ndcgAtK, recallAtK } from './retrieval-metrics.ts';
import { loadScifact, type Scifact, type ScifactDocument } from './scifact.ts';
import { createThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';
import { questionTerms } from '../server/engine/answer-engine.ts';
import { passageEmbeddingText } from '../server/embedding/passage-text.ts';
import { scanSimilarities } from '../server/retrieval/dense-scan.ts';
import { minMaxScaler, RRF_K, type HybridRetrieverOptions } from '../server/retrieval/hybrid-retriever.ts';
import { topSlots } from '../server/retrieval/top-k.ts';
import type { DenseIndex } from '../server/store/store.ts';

/**
 * SciFact retrieval through the engine's search: every corpus entry ingested
 * as one markdown document (title as its level-1 heading, abstract as its
 * text), each claim analyzed by the engine's `questionTerms` and searched
 * with `store.search` (the BM25 search the answer engine runs). Passages are
 * folded into documents by their best passage (a document's rank is that of
 * its first passage in the list), the first {@link RANKED_DOCUMENTS}
 * documents scored with nDCG@10 and Recall@100 as BEIR does, averaged over
 * the 300 test claims.
 */

/** Documents ranked per claim (BEIR's runs hold 1000; Recall@100 needs 100). */
export const RANKED_DOCUMENTS = 100;
/** Passages retrieved per claim: enough to fill {@link RANKED_DOCUMENTS} documents when abstracts are cut into several passages. */
const RETRIEVED_PASSAGES = 1000;

/** SciFact figures, fractions in 0..1. */
export interface ScifactFigures {
  ndcg_at_10: number;
  recall_at_100: number;
}

/** The figures of each retriever: BM25F over passages, dense over whole documents (MTEB's protocol), and their fusion. */
export interface ScifactRetrievers {
  bm25f: ScifactFigures;
  dense?: ScifactFigures;
  hybrid?: ScifactFigures;
}

export interface ScifactRun {
  /** The product's retrieval: hybrid when the model is there, else BM25F. */
  figures: ScifactFigures;
  retrievers: ScifactRetrievers;
  documents: number;
  passages: number;
  queries: number;
  ingestSeconds: number;
  seconds: number;
}

/**
 * @param folder the `scifact/` data folder
 * @param onProgress told of each phase (for a log on stderr)
 * @throws Error when the data cannot be read or a document fails to ingest
 */
export async function evaluateScifact(
  folder: string,
  onProgress: (message: string) => void = () => {},
  embedder?: EvalEmbedder,
  hybrid: HybridRetrieverOptions = {},
): Promise<ScifactRun> {
  const started = performance.now();
  const data = await loadScifact(folder);
  onProgress(`scifact: ingesting ${data.documents.length} documents`);
  const knowledgeBase = await createThrowawayKnowledgeBase(
    'scifact',
    data.documents.map((document) => ({ fileName: documentFileName(document), text: documentMarkdown(document) })),
  );
  try {
    onProgress(`scifact: ingested in ${seconds(knowledgeBase.ingestMilliseconds).toFixed(1)} s; searching ${data.queries.length} claims`);
    let passageCount = 0;
    const lexical = new Map<string, string[]>();
    /** Each claim's ranked documents' scores (their best passage's BM25F), for a convex combination. */
    const lexicalScores = new Map<string, number[]>();
    for (const query of data.queries) {
      const search = await knowledgeBase.retriever.search({
        reach: knowledgeBase.reach,
        terms: questionTerms(query.text),
        topK: RETRIEVED_PASSAGES,
      });
      passageCount = search.passageCount;
      const ranked = rankDocuments(search.passages.map((passage) => documentIdOf(passage.docId)));
      // A document's score is its first (best) passage's.
      const firstScore = new Map<string, number>();
      for (const passage of search.passages) if (!firstScore.has(documentIdOf(passage.docId))) firstScore.set(documentIdOf(passage.docId), passage.score);
      lexical.set(query.id, ranked);
      lexicalScores.set(query.id, ranked.map((id) => firstScore.get(id)!));
    }
    const retrievers: ScifactRetrievers = { bm25f: figuresOf(data, lexical) };
    if (embedder) {
      onProgress(`scifact: embedding ${data.documents.length} documents with ${embedder.model.id} (cached in eval/.cache after the first run)`);
      const { rankings: dense, scores: denseScores } = await denseRankings(data, embedder);
      retrievers.dense = figuresOf(data, dense);
      const fuse = (id: string) =>
        hybrid.convexDenseWeight === undefined
          ? fuseDocumentRanks(lexical.get(id)!, dense.get(id)!)
          : fuseDocumentScores([lexical.get(id)!, lexicalScores.get(id)!], [dense.get(id)!, denseScores.get(id)!], hybrid.convexDenseWeight);
      retrievers.hybrid = figuresOf(data, new Map(data.queries.map((query) => [query.id, fuse(query.id)])));
    }
    return {
      figures: retrievers.hybrid ?? retrievers.bm25f,
      retrievers,
      documents: data.documents.length,
      passages: passageCount,
      queries: data.queries.length,
      ingestSeconds: seconds(knowledgeBase.ingestMilliseconds),
      seconds: seconds(performance.now() - started),
    };
  } finally {
    await knowledgeBase.close();
  }
}

/** nDCG@10 and Recall@100 of a ranking per claim, averaged over the claims. */
function figuresOf(data: Scifact, rankings: ReadonlyMap<string, string[]>): ScifactFigures {
  let ndcg = 0;
  let recall = 0;
  for (const query of data.queries) {
    const relevance = data.qrels.get(query.id)!;
    ndcg += ndcgAtK(rankings.get(query.id)!, relevance, 10);
    recall += recallAtK(rankings.get(query.id)!, relevance, 100);
  }
  return { ndcg_at_10: ndcg / data.queries.length, recall_at_100: recall / data.queries.length };
}

/**
 * Dense retrieval as MTEB runs it on SciFact: each document embedded whole
 * as title and abstract (truncated at the model's token limit), each claim
 * embedded as a query, documents ranked by cosine similarity.
 */
async function denseRankings(data: Scifact, embedder: EvalEmbedder): Promise<{ rankings: Map<string, string[]>; scores: Map<string, number[]> }> {
  const vectors = await embedder.embedPassages(data.documents.map((document) => passageEmbeddingText({ title: document.title, headingPath: [], text: document.text })));
  const index: DenseIndex = {
    chunkIds: data.documents.map((_, position) => position),
    documentIds: data.documents.map((_, position) => position),
    vectors: concatenate(vectors, embedder.model.dimensions),
    dimensions: embedder.model.dimensions,
  };
  const all = Uint32Array.from(data.documents.keys());
  const rankings = new Map<string, string[]>();
  const rankedScores = new Map<string, number[]>();
  for (const query of data.queries) {
    const scores = await scanSimilarities(index, await embedder.embedQuery(query.text));
    const best = topSlots(scores, all, all.length, RANKED_DOCUMENTS);
    rankings.set(query.id, best.map((slot) => data.documents[slot]!.id));
    rankedScores.set(query.id, best.map((slot) => scores[slot]!));
  }
  return { rankings, scores: rankedScores };
}

/**
 * The convex combination of two document rankings' min-max normalised
 * scores (retrieval/hybrid-retriever.ts `fuseConvex`), the first
 * {@link RANKED_DOCUMENTS} kept.
 *
 * @param lexical ranked ids and their scores, aligned
 * @param dense ranked ids and their similarities, aligned
 */
function fuseDocumentScores(lexical: [string[], number[]], dense: [string[], number[]], denseWeight: number): string[] {
  const fused = new Map<string, number>();
  for (const [[ids, scores], weight] of [[lexical, 1 - denseWeight], [dense, denseWeight]] as const) {
    const share = minMaxScaler(scores);
    ids.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + weight * share(scores[rank]!)));
  }
  return [...fused].sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0])).slice(0, RANKED_DOCUMENTS).map(([id]) => id);
}

/** Reciprocal rank fusion of two document rankings (retrieval/hybrid-retriever.ts), the first {@link RANKED_DOCUMENTS} kept. */
function fuseDocumentRanks(lexical: readonly string[], dense: readonly string[]): string[] {
  const scores = new Map<string, number>();
  for (const ranking of [lexical, dense]) ranking.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
  return [...scores].sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0])).slice(0, RANKED_DOCUMENTS).map(([id]) => id);
}

function concatenate(vectors: readonly Float32Array[], dimensions: number): Float32Array {
  const all = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, position) => all.set(vector, position * dimensions));
  return all;
}

/** The corpus entry as markdown: title heading, abstract paragraph. */
export function documentMarkdown(document: ScifactDocument): string {
  return markdownDocument(document.title, [{ text: document.text }]);
}

function documentFileName(document: ScifactDocument): string {
  return `${document.id}.md`;
}

function documentIdOf(docId: string): string {
  return docId.replace(/\.md$/, '');
}

/** Distinct document ids in order of first appearance, at most {@link RANKED_DOCUMENTS}. */
export function rankDocuments(passageDocIds: readonly string[]): string[] {
  return [...new Set(passageDocIds)].slice(0, RANKED_DOCUMENTS);
}

function seconds(milliseconds: number): number {
  return milliseconds / 1000;
}

