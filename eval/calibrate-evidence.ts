import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { areaUnderRoc, fitLogisticRegression, predictProbability } from './logistic-regression.ts';
import { articleFileName, articleMarkdown, calibrationSplit, loadSquad, splitOpenProtocol, type SquadArticle } from './squad-open.ts';
import { createThrowawayKnowledgeBase, type ThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';
import { DEFAULT_TOP_K, questionTerms } from '../server/engine/answer-engine.ts';
import { DEFAULT_ABSTENTION_THRESHOLD, EVIDENCE_FEATURES, evidenceScore, type EvidenceFeatures } from '../server/engine/evidence.ts';
import { composeExtractiveAnswer } from '../server/engine/extractive-answerer.ts';
import { retrievePassages } from '../server/engine/passage-rerank.ts';

/**
 * `npm run calibrate`: fits the coefficients of the evidence score
 * (server/engine/evidence.ts) on SQuAD 2.0 under the open protocol and
 * reports them on data they were not fitted on.
 *
 * Calibration set: answerable questions of the odd-positioned ingested
 * articles (label 1) and of the odd-positioned held-out articles (label 0),
 * class-balanced, so a probability of 0.5 is the point where answering and
 * abstaining are equally likely to be right (the engine's threshold, 2/3, is
 * a cost ratio on top of that: see evidence.ts). Report set: the
 * even-positioned articles of both groups. Prints the fitted coefficients to
 * copy into evidence.ts, and the figures of the current and fitted models at
 * 0.5 and at the engine's threshold.
 */

/** Features of a question with nothing to quote (the engine abstains on it whatever the model). */
const NO_EVIDENCE: EvidenceFeatures = {
  passageCoverage: 0,
  unknownShare: 1,
  normalizedScore: 0,
  sentenceCoverage: 0,
  phraseCoverage: 0,
  questionLength: 0,
  documentShare: 0,
};

const { values } = parseArgs({ options: { data: { type: 'string' } } });
const dataDir = resolve(values.data ?? fileURLToPath(new URL('../../shared/eval', import.meta.url)));
const articles = await loadSquad(join(dataDir, 'squad2', 'dev-v2.0.json'));
const { ingested, heldOut } = splitOpenProtocol(articles);

const knowledgeBase = await createThrowawayKnowledgeBase(
  'squad',
  ingested.map((article) => ({ fileName: articleFileName(article), text: articleMarkdown(article) })),
);
try {
  const present = calibrationSplit(ingested);
  const absent = calibrationSplit(heldOut);
  const calibration = await labelled(knowledgeBase, present.calibration, absent.calibration);
  const report = await labelled(knowledgeBase, present.report, absent.report);

  const positives = calibration.filter((example) => example.label === 1).length;
  const negatives = calibration.length - positives;
  const model = fitLogisticRegression(
    calibration.map((example) => vector(example.features)),
    calibration.map((example) => example.label),
    { exampleWeights: calibration.map((example) => (example.label === 1 ? calibration.length / (2 * positives) : calibration.length / (2 * negatives))) },
  );

  const current = (features: EvidenceFeatures) => evidenceScore(features);
  const fitted = (features: EvidenceFeatures) => predictProbability(model, vector(features));
  const lines = [
    `SQuAD 2.0 open protocol: ${ingested.length} articles ingested, ${heldOut.length} held out`,
    `calibration: ${positives} answerable, ${negatives} absent; report: ${report.filter((example) => example.label === 1).length} answerable, ${report.filter((example) => example.label === 0).length} absent`,
    '',
    `| model (threshold) | set | answers answerable | abstains on absent | AUROC |`,
    '| --- | --- | ---: | ---: | ---: |',
    row(`current (${DEFAULT_ABSTENTION_THRESHOLD.toFixed(3)})`, 'report', report, current, DEFAULT_ABSTENTION_THRESHOLD),
    row('fitted (0.500)', 'calibration', calibration, fitted, 0.5),
    row('fitted (0.500)', 'report', report, fitted, 0.5),
    row(`fitted (${DEFAULT_ABSTENTION_THRESHOLD.toFixed(3)})`, 'calibration', calibration, fitted, DEFAULT_ABSTENTION_THRESHOLD),
    row(`fitted (${DEFAULT_ABSTENTION_THRESHOLD.toFixed(3)})`, 'report', report, fitted, DEFAULT_ABSTENTION_THRESHOLD),
    '',
    'fitted coefficients (server/engine/evidence.ts):',
    JSON.stringify(
      Object.fromEntries([['intercept', round(model.intercept)], ...EVIDENCE_FEATURES.map((name, index) => [name, round(model.weights[index]!)])]),
      null,
      2,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await knowledgeBase.close();
}

interface Example {
  features: EvidenceFeatures;
  label: 0 | 1;
}

async function labelled(
  knowledgeBase: ThrowawayKnowledgeBase,
  present: SquadArticle[],
  absent: SquadArticle[],
): Promise<Example[]> {
  const examples: Example[] = [];
  for (const [articles, label] of [[present, 1], [absent, 0]] as const) {
    for (const article of articles) {
      for (const question of article.questions) {
        if (question.unanswerable) continue;
        examples.push({ features: await featuresOf(knowledgeBase, question.question), label });
      }
    }
  }
  return examples;
}

/** The features the engine computes for a question (its default top-k retrieval, BM25 then re-ranked, then the extractive answer). */
async function featuresOf(knowledgeBase: ThrowawayKnowledgeBase, question: string): Promise<EvidenceFeatures> {
  const terms = questionTerms(question);
  const search = await retrievePassages(knowledgeBase, knowledgeBase.reach, terms, DEFAULT_TOP_K);
  return composeExtractiveAnswer(search.terms, search)?.features ?? NO_EVIDENCE;
}

function vector(features: EvidenceFeatures): number[] {
  return EVIDENCE_FEATURES.map((name) => features[name]);
}

function row(
  name: string,
  set: string,
  examples: Example[],
  score: (features: EvidenceFeatures) => number,
  threshold: number,
): string {
  const positive = examples.filter((example) => example.label === 1).map((example) => score(example.features));
  const negative = examples.filter((example) => example.label === 0).map((example) => score(example.features));
  const answered = positive.filter((value) => value >= threshold).length / positive.length;
  const abstained = negative.filter((value) => value < threshold).length / negative.length;
  return `| ${name} | ${set} | ${answered.toFixed(3)} | ${abstained.toFixed(3)} | ${areaUnderRoc(positive, negative).toFixed(3)} |`;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
