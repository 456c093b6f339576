import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { areaUnderRoc, fitLogisticRegression, predictProbability } from './logistic-regression.ts';
import { articleFileName, articleMarkdown, loadSquad, splitOpenProtocol, type SquadArticle } from './squad-open.ts';
import { DEFAULT_TOP_K, questionTerms } from '../server/engine/answer-engine.ts';
import { DEFAULT_ABSTENTION_THRESHOLD, EVIDENCE_FEATURES, evidenceScore, type EvidenceFeatures } from '../server/engine/evidence.ts';
import { composeExtractiveAnswer } from '../server/engine/extractive-answerer.ts';
import { ingestPaths } from '../server/ingest/ingest-files.ts';
import { embeddedStoreLocation, openStore } from '../server/store/open-store.ts';
import type { Store } from '../server/store/store.ts';

/**
 * `npm run calibrate`: fits the coefficients of the evidence score
 * (server/engine/evidence.ts) on SQuAD 2.0 under the open protocol and
 * reports them on data they were not fitted on.
 *
 * Calibration set: answerable questions of the odd-positioned ingested
 * articles (label 1) and of the odd-positioned held-out articles (label 0),
 * class-balanced, so a probability of 0.5 is the point where answering and
 * abstaining are equally likely to be right. Report set: the even-positioned
 * articles of both groups. Prints the fitted coefficients to copy into
 * evidence.ts, and the report-set figures of the current and fitted models.
 */
const { values } = parseArgs({ options: { data: { type: 'string' } } });
const dataDir = resolve(values.data ?? fileURLToPath(new URL('../../shared/eval', import.meta.url)));
const articles = await loadSquad(join(dataDir, 'squad2', 'dev-v2.0.json'));
const { ingested, heldOut } = splitOpenProtocol(articles);

const folder = await mkdtemp(join(tmpdir(), 'kb-calibrate-'));
const store = openStore(embeddedStoreLocation(folder));
try {
  const sources = join(folder, 'sources');
  await mkdir(sources);
  for (const article of ingested) await writeFile(join(sources, articleFileName(article)), articleMarkdown(article));
  const owner = await store.createUser({ email: 'eval@example.com', name: 'Eval' });
  await store.createKnowledgeBase({ id: 'squad', name: 'SQuAD open' });
  await store.setRole('squad', owner.id, 'owner');
  await ingestPaths(store, { kbId: 'squad', paths: [sources], visibility: 'public', readers: [], quotable: true });

  const odd = <T>(items: readonly T[]) => items.filter((_, index) => index % 2 === 1);
  const even = <T>(items: readonly T[]) => items.filter((_, index) => index % 2 === 0);
  const calibration = await labelled(store, odd(ingested), odd(heldOut));
  const report = await labelled(store, even(ingested), even(heldOut));

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
    '| model (report set) | answers answerable | abstains on absent | AUROC |',
    '| --- | ---: | ---: | ---: |',
    row('current coefficients', report, current),
    row('fitted coefficients', report, fitted),
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
  await store.close();
  await rm(folder, { recursive: true, force: true });
}

interface Example {
  features: EvidenceFeatures;
  label: 0 | 1;
}

async function labelled(store: Store, present: SquadArticle[], absent: SquadArticle[]): Promise<Example[]> {
  const examples: Example[] = [];
  for (const [articles, label] of [[present, 1], [absent, 0]] as const) {
    for (const article of articles) {
      for (const question of article.questions) {
        if (question.unanswerable) continue;
        examples.push({ features: await featuresOf(store, question.question), label });
      }
    }
  }
  return examples;
}

async function featuresOf(store: Store, question: string): Promise<EvidenceFeatures> {
  const terms = questionTerms(question);
  const search = await store.search({ reach: { kbId: 'squad', userId: '', visibilities: ['public'] }, terms, topK: DEFAULT_TOP_K });
  return composeExtractiveAnswer(terms, search)?.features ?? { passageCoverage: 0, termCoverage: 0, unknownShare: 1, normalizedScore: 0 };
}

function vector(features: EvidenceFeatures): number[] {
  return EVIDENCE_FEATURES.map((name) => features[name]);
}

function row(name: string, examples: Example[], score: (features: EvidenceFeatures) => number): string {
  const positive = examples.filter((example) => example.label === 1).map((example) => score(example.features));
  const negative = examples.filter((example) => example.label === 0).map((example) => score(example.features));
  const answered = positive.filter((value) => value >= DEFAULT_ABSTENTION_THRESHOLD).length / positive.length;
  const abstained = negative.filter((value) => value < DEFAULT_ABSTENTION_THRESHOLD).length / negative.length;
  return `| ${name} | ${answered.toFixed(3)} | ${abstained.toFixed(3)} | ${areaUnderRoc(positive, negative).toFixed(3)} |`;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
