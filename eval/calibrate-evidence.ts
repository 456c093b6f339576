import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadK8sQuestions, loadNodeDocsQuestions, type DocsQuestion } from './docs-questions.ts';
import { areaUnderRoc, fitLogisticRegression, predictProbability } from './logistic-regression.ts';
import { articleFileName, articleMarkdown, calibrationSplit, loadSquad, splitOpenProtocol, type SquadArticle } from './squad-open.ts';
import { createThrowawayKnowledgeBase, ingestThrowawayKnowledgeBase, type ThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';
import { prepareAnswer, questionTerms } from '../server/engine/answer-engine.ts';
import { DEFAULT_TOP_K } from '../server/retrieval/retrieval-plan.ts';
import {
  DEFAULT_ABSTENTION_THRESHOLD,
  EVIDENCE_FEATURES,
  evidenceScore,
  HYBRID_EVIDENCE_FEATURES,
  type EvidenceFeatures,
  type EvidenceModel,
} from '../server/engine/ranking/evidence.ts';
import { openEvalEmbedder, type EvalEmbedder } from './eval-embedder.ts';
import { planExtractiveAnswer } from '../server/engine/extractive/extractive-answerer.ts';
import { retrievePassages } from '../server/engine/ranking/passage-rerank.ts';

/**
 * `npm run calibrate`: fits the coefficients of the evidence score
 * (server/engine/ranking/evidence.ts) and reports them on data they were not fitted
 * on. Three sources, each weighing the same in the fit, each class-balanced
 * within itself:
 *
 * - the documentation sets (eval/README.md "Documentation sets"): the Node.js dev set's
 *   `fit` questions and the Kubernetes `q1` rewordings, with the off-topic
 *   questions of the fit halves; label 1 when the engine's answer (every
 *   question answered, threshold 0) cites a gold page, 0 when it cites another
 *   page or the question is off-topic - so the model learns to tell an answer
 *   from the right page from one citing a page that does not answer;
 * - SQuAD 2.0 under the open protocol: answerable questions of the
 *   odd-positioned ingested articles (label 1) and of the odd-positioned
 *   held-out articles (label 0).
 *
 * Report: the documentation sets' report halves (Node.js `report`,
 * Kubernetes `q2`) and SQuAD's even-positioned articles. Prints the fitted
 * coefficients to copy into evidence.ts, and the figures of the current
 * and fitted models at the engine's threshold (2/3, see evidence.ts);
 * `--curve` adds the fitted model's fit-half figures at other thresholds.
 */

interface Example {
  source: 'node' | 'k8s' | 'squad';
  split: 'fit' | 'report';
  features: EvidenceFeatures;
  label: 0 | 1;
  /** The question is off-topic (documentation sets). */
  offTopic: boolean;
  /** The engine had something to quote (otherwise it abstains whatever the model). */
  quotable: boolean;
}

/** Features of a question with nothing to quote (the engine abstains on it whatever the model). */
const NO_EVIDENCE = Object.fromEntries(
  [...new Set([...EVIDENCE_FEATURES, ...HYBRID_EVIDENCE_FEATURES])].map((name) => [name, name === 'unknownShare' || name === 'distantUnknownShare' ? 1 : 0]),
) as unknown as EvidenceFeatures;

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    'lexical-only': { type: 'boolean', default: false },
    sources: { type: 'string', default: 'node,k8s,squad' },
    curve: { type: 'boolean', default: false },
  },
});
/** The sources fitted on (`--sources node,k8s,squad`, all by default; fewer while exploring). */
const sources = new Set(values.sources.split(','));
const dataDir = resolve(values.data ?? fileURLToPath(new URL('../../shared/eval', import.meta.url)));
const examples: Example[] = [];
const log = (message: string) => process.stderr.write(`${message}\n`);
// With the embedding model (the default), retrieval is hybrid and the hybrid model is fitted, over its features; else the lexical one.
const embedder: EvalEmbedder | undefined = values['lexical-only'] ? undefined : await openEvalEmbedder();
const evidenceModel: EvidenceModel = embedder ? 'hybrid' : 'lexical';
const FEATURES = embedder ? HYBRID_EVIDENCE_FEATURES : EVIDENCE_FEATURES;

if (sources.has('node')) {
  log('calibrate: Node.js docs');
  examples.push(
    ...(await docsExamples(
      'node',
      fileURLToPath(new URL('../demo/node-docs/api', import.meta.url)),
      await loadNodeDocsQuestions(fileURLToPath(new URL('./node-docs-questions.jsonl', import.meta.url))),
    )),
  );
}
if (sources.has('k8s')) {
  log('calibrate: Kubernetes docs');
  examples.push(
    ...(await docsExamples('k8s', join(dataDir, 'k8s-docs', 'docs'), await loadK8sQuestions(join(dataDir, 'k8s-docs', 'questions.jsonl'), 'q'))),
  );
}
if (sources.has('squad')) {
  log('calibrate: SQuAD 2.0');
  examples.push(...(await squadExamples(join(dataDir, 'squad2', 'dev-v2.0.json'))));
}

const fitting = examples.filter((example) => example.split === 'fit');
const model = fitLogisticRegression(
  fitting.map((example) => vector(example.features)),
  fitting.map((example) => example.label),
  { exampleWeights: sourceBalancedWeights(fitting) },
);
await embedder?.close();
const current = (features: EvidenceFeatures) => evidenceScore(features, evidenceModel);
const fitted = (features: EvidenceFeatures) => predictProbability(model, vector(features));
const threshold = DEFAULT_ABSTENTION_THRESHOLD;
/** Thresholds `--curve` shows the fitted model at. */
const CURVE_THRESHOLDS = [0.4, 0.5, 0.6, 2 / 3, 0.75, 0.8];
const lines = [
  `threshold ${threshold.toFixed(3)}; documentation sets: answers citing a gold page / citing another page / off-topic abstained; SQuAD: answers answerable / abstains on absent / AUROC`,
  '',
  '| model | set | source | figures |',
  '| --- | --- | --- | --- |',
  ...(['current', 'fitted'] as const).flatMap((name) =>
    (['fit', 'report'] as const).flatMap((split) =>
      (['node', 'k8s', 'squad'] as const).map(
        (source) =>
          `| ${name} | ${split} | ${source} | ${figures(
            examples.filter((example) => example.split === split && example.source === source),
            name === 'current' ? current : fitted,
          )} |`,
      ),
    ),
  ),
  '',
  `answered at any evidence, citing a gold page (the most an abstention threshold can keep): ${(['node', 'k8s'] as const)
    .flatMap((source) =>
      (['fit', 'report'] as const).map((split) => {
        const set = examples.filter((example) => example.source === source && example.split === split && !example.offTopic);
        return `${source} ${split} ${set.length === 0 ? '-' : (set.filter((example) => example.label === 1).length / set.length).toFixed(3)}`;
      }),
    )
    .join(', ')}`,
  ...(values.curve
    ? [
        '',
        'the fitted model on the fit halves at other thresholds (a diagnostic: the threshold is set by the cost of a wrong answer, evidence.ts):',
        '',
        '| threshold | node | k8s | squad |',
        '| --- | --- | --- | --- |',
        ...CURVE_THRESHOLDS.map(
          (at) =>
            `| ${at.toFixed(3)} | ${(['node', 'k8s', 'squad'] as const)
              .map((source) => figures(examples.filter((example) => example.split === 'fit' && example.source === source), fitted, at))
              .join(' | ')} |`,
        ),
      ]
    : []),
  '',
  `fitted coefficients of the ${evidenceModel} model (server/engine/ranking/evidence.ts ${embedder ? 'HYBRID_EVIDENCE_COEFFICIENTS' : 'EVIDENCE_COEFFICIENTS'}):`,
  JSON.stringify(
    Object.fromEntries([['intercept', round(model.intercept)], ...FEATURES.map((name, index) => [name, round(model.weights[index]!)])]),
    null,
    2,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);

/** The engine's answer to each question of a documentation set (threshold 0), labelled by whether it cites a gold page. */
async function docsExamples(source: 'node' | 'k8s', corpus: string, questions: readonly DocsQuestion[]): Promise<Example[]> {
  const knowledgeBase = await ingestThrowawayKnowledgeBase(`calibrate-${source}`, [corpus], { embedder, onProgress: log });
  try {
    const found: Example[] = [];
    for (const question of questions) {
      const features = await featuresOf(knowledgeBase, question.question);
      const prepared = await prepareAnswer(knowledgeBase, { question: question.question, reach: knowledgeBase.reach }, 0);
      const citations = prepared?.events.find((event) => event.type === 'citations');
      const cited = citations?.type === 'citations' ? citations.citations.map((citation) => citation.passage.docId) : [];
      const right = question.expect === 'answer' && cited.some((docId) => question.gold.includes(docId));
      found.push({
        source,
        split: question.split,
        features: features ?? NO_EVIDENCE,
        label: right ? 1 : 0,
        offTopic: question.expect === 'abstain',
        quotable: features !== undefined,
      });
    }
    return found;
  } finally {
    await knowledgeBase.close();
  }
}

/** SQuAD 2.0 open protocol examples: calibration articles as `fit`, the others as `report`. */
async function squadExamples(path: string): Promise<Example[]> {
  const { ingested, heldOut } = splitOpenProtocol(await loadSquad(path));
  const knowledgeBase = await createThrowawayKnowledgeBase(
    'squad',
    ingested.map((article) => ({ fileName: articleFileName(article), text: articleMarkdown(article) })),
    { embedder, onProgress: log },
  );
  try {
    const present = calibrationSplit(ingested);
    const absent = calibrationSplit(heldOut);
    const found: Example[] = [];
    const add = async (articles: readonly SquadArticle[], label: 0 | 1, split: 'fit' | 'report') => {
      for (const article of articles) {
        for (const question of article.questions) {
          if (question.unanswerable) continue;
          const features = await featuresOf(knowledgeBase, question.question);
          found.push({ source: 'squad', split, features: features ?? NO_EVIDENCE, label, offTopic: false, quotable: features !== undefined });
        }
      }
    };
    await add(present.calibration, 1, 'fit');
    await add(absent.calibration, 0, 'fit');
    await add(present.report, 1, 'report');
    await add(absent.report, 0, 'report');
    return found;
  } finally {
    await knowledgeBase.close();
  }
}

/** The features the engine computes for a question (its default retrieval, then the extractive plan); undefined when nothing is quotable. */
async function featuresOf(knowledgeBase: ThrowawayKnowledgeBase, question: string): Promise<EvidenceFeatures | undefined> {
  const search = await retrievePassages(knowledgeBase, knowledgeBase.reach, questionTerms(question), DEFAULT_TOP_K, question);
  return planExtractiveAnswer(search.terms, search)?.features;
}

/** Weights giving each source the same total, and within it each class the same total. */
function sourceBalancedWeights(fitting: readonly Example[]): number[] {
  const totals = new Map<string, number>();
  for (const example of fitting) totals.set(`${example.source}:${example.label}`, (totals.get(`${example.source}:${example.label}`) ?? 0) + 1);
  const sources = new Set(fitting.map((example) => example.source)).size;
  return fitting.map((example) => fitting.length / (sources * 2 * totals.get(`${example.source}:${example.label}`)!));
}

function vector(features: EvidenceFeatures): number[] {
  return FEATURES.map((name) => features[name]);
}

/** One source's figures at the engine's threshold. */
function figures(set: readonly Example[], score: (features: EvidenceFeatures) => number, at: number = threshold): string {
  const answers = (example: Example) => example.quotable && score(example.features) >= at;
  const share = (part: number, whole: number) => (whole === 0 ? '-' : (part / whole).toFixed(3));
  if (set[0]?.source === 'squad') {
    const positive = set.filter((example) => example.label === 1);
    const negative = set.filter((example) => example.label === 0);
    const auroc = areaUnderRoc(positive.map((example) => score(example.features)), negative.map((example) => score(example.features)));
    return `${share(positive.filter(answers).length, positive.length)} / ${share(negative.filter((example) => !answers(example)).length, negative.length)} / ${auroc.toFixed(3)}`;
  }
  const answerable = set.filter((example) => !example.offTopic);
  const offTopic = set.filter((example) => example.offTopic);
  const right = answerable.filter((example) => example.label === 1 && answers(example)).length;
  const wrong = answerable.filter((example) => example.label === 0 && answers(example)).length;
  return `${share(right, answerable.length)} / ${share(wrong, answerable.length)} / ${share(offTopic.filter((example) => !answers(example)).length, offTopic.length)}`;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
