import { join } from 'node:path';
import { answersQuestion, docsFigures, fateShares, judgeOutcome, type AnswerOutcome, type DocsFigures, type JudgedOutcome, type QuestionFate } from './docs-figures.ts';
import { loadJudgedK8sQuestions, loadNodeDocsQuestions, type DocsQuestion, type K8sWording } from './docs-questions.ts';
import type { Split } from './docs-split.ts';
import { ask } from './squad-open-eval.ts';
import { ingestThrowawayKnowledgeBase, type RetrievalMode, type ThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';
export type { RetrievalMode };
import type { HybridRetrieverOptions } from '../server/retrieval/hybrid-retriever.ts';
import type { EvalEmbedder } from './eval-embedder.ts';
import { createAnswerEngine, prepareAnswer, questionTerms, type AnswerSources } from '../server/engine/answer-engine.ts';
import { retrievePassages } from '../server/engine/ranking/passage-rerank.ts';
import { RERANK_DEPTH } from '../server/retrieval/retrieval-plan.ts';
import type { Retriever } from '../server/retrieval/retriever.ts';

/**
 * The documentation evaluation (eval/README.md "Documentation sets"): a docs
 * corpus ingested in place through the normal ingestion path into a
 * throwaway embedded knowledge base (`ingestPaths`, as `npm run kb --
 * ingest <folder>` does), then every question asked through the answer
 * engine the HTTP endpoints use (`createAnswerEngine`, extractive answerer,
 * default threshold) and judged against its gold pages and key
 * (eval/docs-figures.ts). Figures per half (eval/docs-split.ts): the
 * eval/README.md and the targets quote `report`; `fit` is what tuning may look at.
 *
 * Two sets: the Node.js dev set (eval/node-docs-questions.jsonl over the
 * bundled Node.js v18 docs) and the Kubernetes docs with their question set
 * (`shared/eval/k8s-docs`).
 */


/** One documentation set's run. */
export interface DocsSetRun {
  /** The product's retrieval (`hybrid` with the embedding model, else `bm25f`), whose figures `fit` and `report` are. */
  mode: RetrievalMode;
  fit: DocsFigures;
  report: DocsFigures;
  /** Each retrieval mode's figures (the ablation), the product's included. */
  retrievers: Partial<Record<RetrievalMode, { fit: DocsFigures; report: DocsFigures }>>;
  /** Where the product's answerable questions went, per half (docs-figures.ts `QuestionFate`); null for a half with none. */
  fates: { fit: Record<QuestionFate, number> | null; report: Record<QuestionFate, number> | null };
  /** Passages embedded for the run (0 without the model), and of those how many came from the disk cache. */
  embedded?: { passages: number; seconds: number };
  /** Documents in the knowledge base after ingestion. */
  documents: number;
  /** Files that failed to ingest (document id and reason). */
  failed: { docId: string; reason: string }[];
  /** Gold pages of the questions that are not in the knowledge base. */
  missingGold: string[];
  ingestSeconds: number;
  /** Wall-clock seconds of the whole set, ingestion included. */
  seconds: number;
  /** One record per question, for error analysis (`--dump`). */
  records: DumpRecord[];
}

/** One question's line in the `--dump` file. */
export interface DumpRecord {
  set: string;
  split: Split;
  id: string;
  question: string;
  expect: DocsQuestion['expect'];
  gold: string[];
  key?: DocsQuestion['key'];
  /** Answer text with markers, or the abstention message. */
  answer: string;
  abstained: boolean;
  /** The answer's citations, in marker order. */
  cited: { doc_id: string; heading: string[] }[];
  cited_gold: boolean;
  /** Cites a gold page or a page a reader judged to answer (docs-figures.ts `citedAnswering`); absent for a question without that judgment. */
  cited_answering?: boolean;
  right: boolean;
  hit_at_5: boolean;
  /** Rank (1-based) of the first re-ranked passage that answers the question (docs-figures.ts `answersQuestion`) among the 20; null when none does. */
  answering_rank: number | null;
  /** Where the question went (docs-figures.ts `QuestionFate`); absent for an off-topic question. */
  fate?: QuestionFate;
  /**
   * The extractive answer's evidence score over the engine's retrieval
   * (engine's first phase with the threshold at 0); null when there is
   * nothing to quote.
   */
  evidence: number | null;
  /** Retrieved passages, best first, as the answerer receives them. */
  top: { doc_id: string; heading: string[] }[];
  ms: number;
}

/**
 * @param corpus the Node.js docs folder (`demo/node-docs/api`)
 * @param questionsPath the Node.js dev-set file
 * @param onProgress told of each phase (for a log on stderr)
 * @throws Error when the questions cannot be read or a page fails to ingest
 */
export async function evaluateNodeDocs(
  corpus: string,
  questionsPath: string,
  onProgress: (message: string) => void = () => {},
  embedder?: EvalEmbedder,
  hybrid?: HybridRetrieverOptions,
): Promise<DocsSetRun> {
  const questions = await loadNodeDocsQuestions(questionsPath);
  const run = await evaluateDocsSet('node', corpus, questions, onProgress, embedder, hybrid);
  const [failure] = run.failed;
  if (failure) throw new Error(`Ingesting "${failure.docId}" of the Node.js docs failed: ${failure.reason}`);
  return run;
}

/**
 * @param folder the `k8s-docs/` data folder (its `docs/` is ingested in place)
 * @param wording `q` (the users' rewordings) or `source` (the original
 *   wording, a diagnostic)
 * @param onProgress told of each phase (for a log on stderr)
 * @throws Error when the questions cannot be read; pages that fail to
 *   ingest are reported in the run, not thrown
 */
export async function evaluateK8sDocs(
  folder: string,
  wording: K8sWording,
  onProgress: (message: string) => void = () => {},
  embedder?: EvalEmbedder,
  hybrid?: HybridRetrieverOptions,
): Promise<DocsSetRun> {
  const questions = await loadJudgedK8sQuestions(join(folder, 'questions.jsonl'), wording);
  return evaluateDocsSet('k8s', join(folder, 'docs'), questions, onProgress, embedder, hybrid);
}

/**
 * Ingests one corpus, asks every question, and judges the answers.
 *
 * With the embedding model, the passages are embedded (as the server does
 * after an ingest) and every question is asked three times: with BM25F
 * alone, dense retrieval alone and the two fused (the product's retrieval,
 * whose answers the dump holds).
 *
 * @param set the set's name (knowledge-base id and dump field)
 * @param corpus folder ingested in place
 */
export async function evaluateDocsSet(
  set: string,
  corpus: string,
  questions: readonly DocsQuestion[],
  onProgress: (message: string) => void = () => {},
  embedder?: EvalEmbedder,
  hybrid?: HybridRetrieverOptions,
): Promise<DocsSetRun> {
  const started = performance.now();
  onProgress(`docs ${set}: ingesting ${corpus}`);
  const knowledgeBase = await ingestThrowawayKnowledgeBase(`docs-${set}`, [corpus], { embedder, onProgress, ...(hybrid && { hybrid }) });
  try {
    const documents = await knowledgeBase.store.listDocuments(knowledgeBase.reach.kbId);
    const present = new Set(documents.map((document) => document.docId));
    const missingGold = [...new Set(questions.flatMap((question) => question.gold))].filter((docId) => !present.has(docId));
    const failed = knowledgeBase.report.failed.map((failure) => ({ docId: failure.docId, reason: failure.reason }));
    onProgress(
      `docs ${set}: ${documents.length} documents ingested in ${(knowledgeBase.ingestMilliseconds / 1000).toFixed(1)} s` +
        `${failed.length > 0 ? `, ${failed.length} failed` : ''}; asking ${questions.length} questions`,
    );
    const mode: RetrievalMode = embedder ? 'hybrid' : 'bm25f';
    const retrievers: DocsSetRun['retrievers'] = {};
    let records: DumpRecord[] = [];
    let fates: DocsSetRun['fates'] = { fit: null, report: null };
    for (const [name, retriever] of Object.entries(knowledgeBase.retrievers) as [RetrievalMode, Retriever][]) {
      const sources = { store: knowledgeBase.store, retriever };
      const engine = createAnswerEngine(sources);
      const judged: { split: Split; outcome: JudgedOutcome }[] = [];
      const modeRecords: DumpRecord[] = [];
      for (const question of questions) {
        const { outcome, record } = await askQuestion(set, engine, sources, knowledgeBase, question);
        judged.push({ split: question.split, outcome });
        modeRecords.push(record);
      }
      const half = (split: Split): DocsFigures => docsFigures(judged.filter((entry) => entry.split === split).map((entry) => entry.outcome));
      retrievers[name] = { fit: half('fit'), report: half('report') };
      if (name === mode) {
        records = modeRecords;
        const halfFates = (split: Split) => fateShares(judged.filter((entry) => entry.split === split).map((entry) => entry.outcome));
        fates = { fit: halfFates('fit'), report: halfFates('report') };
      }
      onProgress(`docs ${set} ${name}: report right ${retrievers[name].report.right?.toFixed(3) ?? '-'}, cited gold ${retrievers[name].report.cited_gold?.toFixed(3) ?? '-'}, abstained ${retrievers[name].report.abstained?.toFixed(3) ?? '-'}`);
    }
    return {
      mode,
      ...retrievers[mode]!,
      retrievers,
      fates,
      ...(knowledgeBase.embedded && { embedded: knowledgeBase.embedded }),
      documents: documents.length,
      failed,
      missingGold,
      ingestSeconds: knowledgeBase.ingestMilliseconds / 1000,
      seconds: (performance.now() - started) / 1000,
      records,
    };
  } finally {
    await knowledgeBase.close();
  }
}

/**
 * Asks one question as the JSON endpoint does (timed), then runs the
 * engine's first phase again with the threshold at 0 for the diagnostics
 * (evidence score and retrieved passages even when the answer abstained).
 */
async function askQuestion(
  set: string,
  engine: ReturnType<typeof createAnswerEngine>,
  sources: AnswerSources,
  knowledgeBase: ThrowawayKnowledgeBase,
  question: DocsQuestion,
): Promise<{ outcome: JudgedOutcome; record: DumpRecord }> {
  const started = performance.now();
  const answer = await ask(engine, knowledgeBase, question.question);
  const milliseconds = performance.now() - started;
  const diagnostic = await prepareAnswer(sources, { question: question.question, reach: knowledgeBase.reach }, 0);
  const retrieved = diagnostic?.kind === 'retrieved' ? diagnostic.passages : [];
  const reranked = await retrievePassages(sources, knowledgeBase.reach, questionTerms(question.question), RERANK_DEPTH, question.question);
  const answering = reranked.passages.findIndex((passage) => answersQuestion(question, passage));
  const answerOutcome: AnswerOutcome = {
    answer: answer.answer,
    abstained: answer.abstained,
    citedDocIds: answer.citations.map((citation) => citation.passage.docId),
    retrievedDocIds: retrieved.map((passage) => passage.docId),
    milliseconds,
    answeringRank: answering < 0 ? null : answering + 1,
  };
  const outcome = judgeOutcome(question, answerOutcome);
  const record: DumpRecord = {
    set,
    split: question.split,
    id: question.id,
    question: question.question,
    expect: question.expect,
    gold: question.gold,
    ...(question.key && { key: question.key }),
    answer: answer.answer,
    abstained: answer.abstained,
    cited: answer.citations.map((citation) => ({ doc_id: citation.passage.docId, heading: citation.passage.headingPath })),
    cited_gold: outcome.citedGold,
    ...(outcome.citedAnswering !== undefined && { cited_answering: outcome.citedAnswering }),
    right: outcome.right,
    hit_at_5: outcome.hitAt5,
    answering_rank: answerOutcome.answeringRank ?? null,
    ...(outcome.fate && { fate: outcome.fate }),
    evidence: diagnostic?.kind === 'retrieved' ? diagnostic.evidence : null,
    top: retrieved.map((passage) => ({ doc_id: passage.docId, heading: passage.headingPath })),
    ms: Math.round(milliseconds * 100) / 100,
  };
  return { outcome, record };
}
