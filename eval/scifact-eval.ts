import { markdownDocument } from './markdown-source.ts';
import { ndcgAtK, recallAtK } from './retrieval-metrics.ts';
import { loadScifact, type ScifactDocument } from './scifact.ts';
import { createThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';
import { questionTerms } from '../server/engine/answer-engine.ts';

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

export interface ScifactRun {
  figures: ScifactFigures;
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
export async function evaluateScifact(folder: string, onProgress: (message: string) => void = () => {}): Promise<ScifactRun> {
  const started = performance.now();
  const data = await loadScifact(folder);
  onProgress(`scifact: ingesting ${data.documents.length} documents`);
  const knowledgeBase = await createThrowawayKnowledgeBase(
    'scifact',
    data.documents.map((document) => ({ fileName: documentFileName(document), text: documentMarkdown(document) })),
  );
  try {
    onProgress(`scifact: ingested in ${seconds(knowledgeBase.ingestMilliseconds).toFixed(1)} s; searching ${data.queries.length} claims`);
    let ndcg = 0;
    let recall = 0;
    let passageCount = 0;
    for (const query of data.queries) {
      const search = await knowledgeBase.retriever.search({
        reach: knowledgeBase.reach,
        terms: questionTerms(query.text),
        topK: RETRIEVED_PASSAGES,
      });
      passageCount = search.passageCount;
      const ranked = rankDocuments(search.passages.map((passage) => documentIdOf(passage.docId)));
      const relevance = data.qrels.get(query.id)!;
      ndcg += ndcgAtK(ranked, relevance, 10);
      recall += recallAtK(ranked, relevance, 100);
    }
    return {
      figures: { ndcg_at_10: ndcg / data.queries.length, recall_at_100: recall / data.queries.length },
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

