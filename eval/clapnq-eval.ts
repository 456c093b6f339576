import type { EvalEmbedder } from './eval-embedder.ts';
import { withoutCitationMarkers } from './answer-text.ts';
import { loadClapnq, type ClapnqQuestion } from './clapnq.ts';
import { markdownDocument } from './markdown-source.ts';
import { rougeL } from './rouge-l.ts';
import { ask } from './squad-open-eval.ts';
import { createThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';
import { createAnswerEngine } from '../server/engine/answer-engine.ts';

/**
 * ClapNQ dev through the answer engine: the 600 passages (300 answerable, 300
 * unanswerable questions, one passage each) ingested as one markdown
 * document each (Wikipedia title as its level-1 heading), then every question
 * asked of the whole knowledge base. Figures:
 * - `gold_passage_cited`: answerable questions whose answer cites a passage
 *   of the question's own document;
 * - `answer_rouge_l`: mean ROUGE-L F1 (eval/rouge-l.ts) of the answer text
 *   (markers removed) against the first reference answer, over answerable
 *   questions; an abstention scores 0;
 * - `abstain_on_unanswerable`: unanswerable questions the engine abstains on.
 */

/** ClapNQ figures, fractions in 0..1. */
export interface ClapnqFigures {
  gold_passage_cited: number;
  answer_rouge_l: number;
  abstain_on_unanswerable: number;
}

export interface ClapnqRun {
  figures: ClapnqFigures;
  counts: { answerable: number; unanswerable: number };
  /** Answerable questions the engine abstained on (context for the ROUGE-L figure). */
  abstainedOnAnswerable: number;
  ingestSeconds: number;
  seconds: number;
}

/**
 * @param folder the `clapnq/` data folder
 * @param onProgress told of each phase (for a log on stderr)
 * @throws Error when the data cannot be read or a passage fails to ingest
 */
export async function evaluateClapnq(folder: string, onProgress: (message: string) => void = () => {}, embedder?: EvalEmbedder): Promise<ClapnqRun> {
  const started = performance.now();
  const questions = await loadClapnq(folder);
  onProgress(`clapnq: ingesting ${questions.length} passages`);
  const knowledgeBase = await createThrowawayKnowledgeBase(
    'clapnq',
    questions.map((question) => ({
      fileName: passageFileName(question),
      text: markdownDocument(question.passage.title, [{ text: question.passage.text }]),
    })),
    { embedder, onProgress },
  );
  try {
    onProgress(`clapnq: ingested in ${(knowledgeBase.ingestMilliseconds / 1000).toFixed(1)} s; asking ${questions.length} questions`);
    const engine = createAnswerEngine(knowledgeBase);
    let answerable = 0;
    let unanswerable = 0;
    let cited = 0;
    let rouge = 0;
    let abstainedOnAnswerable = 0;
    let abstainedOnUnanswerable = 0;
    for (const question of questions) {
      const answer = await ask(engine, knowledgeBase, question.question);
      if (!question.answerable) {
        unanswerable += 1;
        if (answer.abstained) abstainedOnUnanswerable += 1;
        continue;
      }
      answerable += 1;
      if (answer.abstained) {
        abstainedOnAnswerable += 1;
        continue;
      }
      if (answer.citations.some((citation) => citation.passage.docId === passageFileName(question))) cited += 1;
      rouge += rougeL(withoutCitationMarkers(answer.answer), question.reference);
    }
    return {
      figures: {
        gold_passage_cited: cited / answerable,
        answer_rouge_l: rouge / answerable,
        abstain_on_unanswerable: abstainedOnUnanswerable / unanswerable,
      },
      counts: { answerable, unanswerable },
      abstainedOnAnswerable,
      ingestSeconds: knowledgeBase.ingestMilliseconds / 1000,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await knowledgeBase.close();
  }
}

/** One file per question's passage (NQ ids are unique across both files, some negative). */
function passageFileName(question: ClapnqQuestion): string {
  return `${question.answerable ? 'answerable' : 'unanswerable'}-${question.id}.md`;
}
