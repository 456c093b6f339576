import type { EvalEmbedder } from './eval-embedder.ts';
import { withoutCitationMarkers } from './answer-text.ts';
import { areaUnderRoc } from './logistic-regression.ts';
import { containsGoldAnswer } from './squad-answer.ts';
import {
  articleFileName,
  articleMarkdown,
  calibrationSplit,
  loadSquad,
  paragraphHeading,
  splitOpenProtocol,
  type SquadArticle,
  type SquadQuestion,
} from './squad-open.ts';
import { createThrowawayKnowledgeBase, type ThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';
import { createAnswerEngine, questionTerms, type AnswerEngine } from '../server/engine/answer-engine.ts';
import { DEFAULT_TOP_K } from '../server/retrieval/retrieval-plan.ts';
import { collectAnswer, type CollectedAnswer } from '../server/engine/answer-events.ts';
import { composeExtractiveAnswer } from '../server/engine/extractive/extractive-answerer.ts';
import { retrievePassages } from '../server/engine/ranking/passage-rerank.ts';

/**
 * SQuAD 2.0 dev under the open protocol (eval/squad-open.ts): the ingested
 * articles' paragraphs are the knowledge base, and questions are asked of
 * the whole of it through the answer engine (createAnswerEngine, as the HTTP
 * endpoints do, extractive answerer, default threshold).
 *
 * Every figure is measured on the report half of each group (even positions,
 * {@link calibrationSplit}); the evidence model was fitted, and the engine's
 * weights tuned, on the other half (which `half: 'calibration'` measures
 * instead, for tuning). Figures:
 * - `answer_contains_gold`: answerable questions of ingested articles whose
 *   answer (not abstained, markers removed) contains a gold answer after
 *   SQuAD normalisation (eval/squad-answer.ts);
 * - `gold_paragraph_cited`: the same questions where a citation points at the
 *   question's own paragraph (same document, last heading `Paragraph n`);
 * - `abstain_on_absent`: answerable questions of held-out articles the
 *   engine abstains on;
 * - `abstain_on_unanswerable`: unanswerable questions of ingested articles
 *   the engine abstains on;
 * - `auroc`: how well the evidence score (the extractive answer's, over the
 *   engine's default top-k search) ranks the first group above the held-out
 *   group (0.5 = chance, 1 = perfect).
 */

/** SQuAD open-protocol figures, fractions in 0..1. */
export interface SquadOpenFigures {
  answer_contains_gold: number;
  gold_paragraph_cited: number;
  abstain_on_absent: number;
  abstain_on_unanswerable: number;
  auroc: number;
}

export interface SquadOpenRun {
  figures: SquadOpenFigures;
  /** Questions in each group of the measured half. */
  counts: { answerable: number; absent: number; unanswerable: number };
  articles: { ingested: number; heldOut: number };
  ingestSeconds: number;
  seconds: number;
}

/** Which half of each group the figures are measured on ({@link calibrationSplit}). */
export type SquadHalf = 'calibration' | 'report';

/**
 * @param path the `squad2/dev-v2.0.json` file
 * @param onProgress told of each phase (for a log on stderr)
 * @param half `report` (the default, the published figures) or
 *   `calibration`, the half engine weights may be tuned on
 * @throws Error when the data cannot be read or an article fails to ingest
 */
export async function evaluateSquadOpen(
  path: string,
  onProgress: (message: string) => void = () => {},
  half: SquadHalf = 'report',
  embedder?: EvalEmbedder,
): Promise<SquadOpenRun> {
  const started = performance.now();
  const { ingested, heldOut } = splitOpenProtocol(await loadSquad(path));
  onProgress(`squad: ingesting ${ingested.length} articles (${heldOut.length} held out)`);
  const knowledgeBase = await createThrowawayKnowledgeBase(
    'squad',
    ingested.map((article) => ({ fileName: articleFileName(article), text: articleMarkdown(article) })),
    { embedder, onProgress },
  );
  try {
    const engine = createAnswerEngine(knowledgeBase);
    const present = calibrationSplit(ingested)[half];
    const absent = calibrationSplit(heldOut)[half];
    const answerable = questionsOf(present, (question) => !question.unanswerable);
    const outside = questionsOf(absent, (question) => !question.unanswerable);
    const unanswerable = questionsOf(present, (question) => question.unanswerable);
    onProgress(
      `squad: ingested in ${(knowledgeBase.ingestMilliseconds / 1000).toFixed(1)} s; asking ${answerable.length + outside.length + unanswerable.length} questions`,
    );

    let containsGold = 0;
    let cited = 0;
    const presentScores: number[] = [];
    for (const { article, question } of answerable) {
      const answer = await ask(engine, knowledgeBase, question.question);
      if (!answer.abstained && containsGoldAnswer(withoutCitationMarkers(answer.answer), question.answers)) containsGold += 1;
      if (citesParagraph(answer, article, question)) cited += 1;
      presentScores.push(await evidenceOf(knowledgeBase, question.question));
    }
    let abstainedAbsent = 0;
    const absentScores: number[] = [];
    for (const { question } of outside) {
      if ((await ask(engine, knowledgeBase, question.question)).abstained) abstainedAbsent += 1;
      absentScores.push(await evidenceOf(knowledgeBase, question.question));
    }
    let abstainedUnanswerable = 0;
    for (const { question } of unanswerable) {
      if ((await ask(engine, knowledgeBase, question.question)).abstained) abstainedUnanswerable += 1;
    }
    return {
      figures: {
        answer_contains_gold: containsGold / answerable.length,
        gold_paragraph_cited: cited / answerable.length,
        abstain_on_absent: abstainedAbsent / outside.length,
        abstain_on_unanswerable: abstainedUnanswerable / unanswerable.length,
        auroc: areaUnderRoc(presentScores, absentScores),
      },
      counts: { answerable: answerable.length, absent: outside.length, unanswerable: unanswerable.length },
      articles: { ingested: ingested.length, heldOut: heldOut.length },
      ingestSeconds: knowledgeBase.ingestMilliseconds / 1000,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await knowledgeBase.close();
  }
}

function questionsOf(
  articles: readonly SquadArticle[],
  keep: (question: SquadQuestion) => boolean,
): { article: SquadArticle; question: SquadQuestion }[] {
  return articles.flatMap((article) => article.questions.filter(keep).map((question) => ({ article, question })));
}

/** Asks one question through the engine, as the JSON endpoint does. */
export async function ask(engine: AnswerEngine, knowledgeBase: ThrowawayKnowledgeBase, question: string): Promise<CollectedAnswer> {
  return collectAnswer(engine.answer({ question, reach: knowledgeBase.reach }));
}

/** Whether a citation of the answer points at the question's paragraph: its document and its section. */
export function citesParagraph(answer: CollectedAnswer, article: SquadArticle, question: SquadQuestion): boolean {
  return answer.citations.some(
    (citation) =>
      citation.passage.docId === articleFileName(article) &&
      citation.passage.headingPath.at(-1) === paragraphHeading(question.paragraph),
  );
}

/**
 * The evidence score the engine compares with its threshold: the extractive
 * answer's over the engine's default retrieval (BM25, re-ranked); 0 when
 * there is nothing to quote.
 */
async function evidenceOf(knowledgeBase: ThrowawayKnowledgeBase, question: string): Promise<number> {
  const terms = questionTerms(question);
  const search = await retrievePassages(knowledgeBase, knowledgeBase.reach, terms, DEFAULT_TOP_K, question);
  return composeExtractiveAnswer(search.terms, search)?.evidence ?? 0;
}
