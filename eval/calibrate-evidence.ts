import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadJudgedK8sQuestions, loadK8sQuestions, loadNodeDocsQuestions, type DocsQuestion } from './docs-questions.ts';
import { areaUnderRoc, fitLogisticRegression, predictProbability } from './logistic-regression.ts';
import { articleFileName, articleMarkdown, calibrationSplit, loadSquad, splitOpenProtocol, type SquadArticle } from './squad-open.ts';
import { cutIntoSmallKnowledgeBases, questionsOfPiece } from './small-knowledge-bases.ts';
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
 * on. Three sources (`--fit`), each weighing the same in the fit, each
 * class-balanced within itself, and a fourth asked and reported, fitted on
 * (at a quarter of a source's weight, {@link SOURCE_WEIGHTS}) only when
 * `--fit` names it:
 *
 * - the documentation sets (eval/README.md "Documentation sets"): the Node.js dev set's
 *   `fit` questions and the Kubernetes `q1` rewordings, with the off-topic
 *   questions of the fit halves; label 1 when the engine's answer (every
 *   question answered, threshold 0) cites a gold page, 0 when it cites another
 *   page or the question is off-topic - so the model learns to tell an answer
 *   from the right page from one citing a page that does not answer;
 * - (`small`, reported) small knowledge bases cut out of the same two
 *   corpora (eval/small-knowledge-bases.ts: folders or runs of pages of at
 *   most 120 kB), asked the same halves' questions whose gold page they
 *   hold (label 1 when the answer cites one), as many answered elsewhere and
 *   the off-topic ones (label 0): how the model reads knowledge bases of a
 *   few pages, whose unknown words and page margins differ from those of a
 *   3 MB corpus;
 * - SQuAD 2.0 under the open protocol: answerable questions of the
 *   odd-positioned ingested articles (label 1) and of the odd-positioned
 *   held-out articles (label 0).
 *
 * Report: the documentation sets' report halves (Node.js `report`,
 * Kubernetes `q2`, on the whole corpora and on their small pieces) and
 * SQuAD's even-positioned articles. Prints the fitted
 * coefficients to copy into evidence.ts, and the figures of the current
 * and fitted models at the engine's threshold (2/3, see evidence.ts);
 * `--curve` adds the fitted model's fit-half figures at other thresholds;
 * `--examples F` writes every example (source, half, label, features) as a
 * JSON line.
 */

/** Where an example comes from: a whole documentation corpus, small pieces of both, or SQuAD. */
type Source = 'node' | 'k8s' | 'small' | 'squad';

/**
 * How much each source weighs in the fit, relative to the others. The small
 * knowledge bases re-ask the questions of the two documentation sets, so
 * they are not a source of their own in full: a quarter, the best on the
 * fit halves among 0, 1/4, 1/2, 1 and 2 by answers citing a gold page minus
 * twice those citing another (the threshold's cost, evidence.ts; 0.388
 * against 0.385, 0.376, 0.385 and 0.358, mean over Node.js, Kubernetes,
 * each corpus's pieces and SQuAD). Not served: eval/README.md "Small
 * knowledge bases" says why.
 */
const SOURCE_WEIGHTS: Record<Source, number> = { node: 1, k8s: 1, small: 0.25, squad: 1 };

interface Example {
  source: Source;
  split: 'fit' | 'report';
  features: EvidenceFeatures;
  label: 0 | 1;
  /** The knowledge base does not answer the question: off-topic (documentation sets), or answered by a page outside it (small knowledge bases). */
  offTopic: boolean;
  /** The engine had something to quote (otherwise it abstains whatever the model). */
  quotable: boolean;
  /** Passages of the knowledge base the question was asked of (its size, for `--examples`). */
  passageCount: number;
  /** The documentation question's id (for `--examples`). */
  id?: string;
  /** The documents the answer cites, threshold 0 (documentation sets; for `--examples`). */
  cited?: string[];
}

/**
 * Whether an answer citing `cited` is right: it cites a gold page, or (the
 * Kubernetes set with `--k8s-labels judged`) a page judged to answer.
 */
function citesAnswer(question: DocsQuestion, gold: readonly string[], cited: readonly string[]): boolean {
  return cited.some((docId) => gold.includes(docId) || question.judged?.[docId] === 'answers');
}

/** Features of a question with nothing to quote (the engine abstains on it whatever the model). */
const NO_EVIDENCE = Object.fromEntries(
  [...new Set([...EVIDENCE_FEATURES, ...HYBRID_EVIDENCE_FEATURES])].map((name) => [name, name === 'unknownShare' || name === 'distantUnknownShare' ? 1 : 0]),
) as unknown as EvidenceFeatures;

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    'lexical-only': { type: 'boolean', default: false },
    sources: { type: 'string', default: 'node,k8s,small,squad' },
    fit: { type: 'string', default: 'node,k8s,squad' },
    curve: { type: 'boolean', default: false },
    examples: { type: 'string' },
    'k8s-labels': { type: 'string', default: 'set' },
  },
});
/** The sources asked (`--sources node,k8s,small,squad`, all by default; fewer while exploring). */
const sources = new Set(values.sources.split(','));
/** The sources fitted on (`--fit`): by default the served model's three; `--fit node,k8s,small,squad` adds the small knowledge bases. */
const fitSources = new Set(values.fit.split(','));
/**
 * How a Kubernetes answer is labelled (`--k8s-labels`): `set` (the default,
 * what the served model was fitted on) - right when it cites the gold page,
 * as the set labels it; `judged` - also when it cites a page a reader judged
 * to answer (eval/README.md "Pages judged to answer"; fitted on it, the
 * model did not answer the held-out sets better).
 */
const k8sLabels = values['k8s-labels'];
if (k8sLabels !== 'judged' && k8sLabels !== 'set') throw new Error(`--k8s-labels must be "judged" or "set", not "${k8sLabels}"`);
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
    ...(await docsExamples('k8s', join(dataDir, 'k8s-docs', 'docs'), await k8sQuestions())),
  );
}
if (sources.has('small')) {
  log('calibrate: small knowledge bases cut out of the Node.js and Kubernetes docs');
  examples.push(
    ...(await smallExamples(
      fileURLToPath(new URL('../demo/node-docs/api', import.meta.url)),
      await loadNodeDocsQuestions(fileURLToPath(new URL('./node-docs-questions.jsonl', import.meta.url))),
    )),
    ...(await smallExamples(join(dataDir, 'k8s-docs', 'docs'), await k8sQuestions())),
  );
}
if (sources.has('squad')) {
  log('calibrate: SQuAD 2.0');
  examples.push(...(await squadExamples(join(dataDir, 'squad2', 'dev-v2.0.json'))));
}

// `--examples F`: every example as a JSON line (source, half, label, features), to study features without asking the questions again.
if (values.examples) await writeFile(values.examples, examples.map((example) => JSON.stringify(example)).join('\n') + '\n');
const fitting = examples.filter((example) => example.split === 'fit' && fitSources.has(example.source));
const model = fitLogisticRegression(
  fitting.map((example) => vector(example.features)),
  fitting.map((example) => example.label),
  { exampleWeights: sourceBalancedWeights(fitting) },
);
await embedder?.close();
const current = (features: EvidenceFeatures) => evidenceScore(features, evidenceModel);
const fitted = (features: EvidenceFeatures) => predictProbability(model, vector(features));
const threshold = DEFAULT_ABSTENTION_THRESHOLD;
/** The sources in the order the figures show them. */
const SOURCES: readonly Source[] = ['node', 'k8s', 'small', 'squad'];
/** Thresholds `--curve` shows the fitted model at. */
const CURVE_THRESHOLDS = [0.4, 0.5, 0.6, 2 / 3, 0.75, 0.8];
const lines = [
  `threshold ${threshold.toFixed(3)}; documentation sets: answers citing a gold page / citing another page / off-topic abstained${
    k8sLabels === 'judged' ? ' (Kubernetes: a page judged to answer counts as gold)' : ''
  }; SQuAD: answers answerable / abstains on absent / AUROC`,
  '',
  '| model | set | source | figures |',
  '| --- | --- | --- | --- |',
  ...(['current', 'fitted'] as const).flatMap((name) =>
    (['fit', 'report'] as const).flatMap((split) =>
      SOURCES.map(
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
        `| threshold | ${SOURCES.join(' | ')} |`,
        `| --- |${SOURCES.map(() => ' --- |').join('')}`,
        ...CURVE_THRESHOLDS.map(
          (at) =>
            `| ${at.toFixed(3)} | ${SOURCES
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

/** The Kubernetes questions, with the reader's page judgments when `--k8s-labels judged`. */
async function k8sQuestions(): Promise<DocsQuestion[]> {
  const path = join(dataDir, 'k8s-docs', 'questions.jsonl');
  return k8sLabels === 'judged' ? loadJudgedK8sQuestions(path) : loadK8sQuestions(path);
}

/** The engine's answer to each question of a documentation set (threshold 0), labelled by whether it cites a gold page. */
async function docsExamples(source: 'node' | 'k8s', corpus: string, questions: readonly DocsQuestion[]): Promise<Example[]> {
  const knowledgeBase = await ingestThrowawayKnowledgeBase(`calibrate-${source}`, [corpus], { embedder, onProgress: log });
  try {
    const found: Example[] = [];
    for (const question of questions) {
      const asked = await featuresOf(knowledgeBase, question.question);
      const cited = await citedDocuments(knowledgeBase, question.question);
      const right = question.expect === 'answer' && citesAnswer(question, question.gold, cited);
      found.push({
        source,
        split: question.split,
        ...asked,
        label: right ? 1 : 0,
        offTopic: question.expect === 'abstain',
        id: question.id,
        cited,
      });
    }
    return found;
  } finally {
    await knowledgeBase.close();
  }
}

/**
 * The documentation sets asked of small knowledge bases cut out of their
 * corpus (eval/small-knowledge-bases.ts), each piece holding a gold page of
 * some question: its questions whose gold page it holds (label 1 when the
 * answer cites one), as many of the set's other questions (their answer is
 * elsewhere: label 0, as SQuAD's absent articles) and the off-topic ones
 * (label 0). The halves are the set's: a fit question is only ever a fit
 * example.
 */
async function smallExamples(root: string, questions: readonly DocsQuestion[]): Promise<Example[]> {
  const found: Example[] = [];
  let pieces = 0;
  for (const piece of await cutIntoSmallKnowledgeBases(root)) {
    const ofPiece = questionsOfPiece(root, piece, questions);
    const inside = ofPiece.filter(({ gold }) => gold.length > 0);
    if (inside.length === 0) continue;
    pieces += 1;
    // The questions answered elsewhere: as many as are answered here, taken evenly through the set.
    const elsewhere = ofPiece.filter(({ question, gold }) => question.expect === 'answer' && gold.length === 0);
    const step = Math.max(1, Math.floor(elsewhere.length / inside.length));
    const absent = elsewhere.filter((_, index) => index % step === 0).slice(0, inside.length);
    const offTopic = ofPiece.filter(({ question }) => question.expect === 'abstain');
    const knowledgeBase = await ingestThrowawayKnowledgeBase('calibrate-small', piece.paths, { embedder });
    try {
      for (const { question, gold } of [...inside, ...absent, ...offTopic]) {
        const asked = await featuresOf(knowledgeBase, question.question);
        const cited = asked.quotable ? await citedDocuments(knowledgeBase, question.question) : [];
        found.push({
          source: 'small',
          split: question.split,
          ...asked,
          label: gold.length > 0 && citesAnswer(question, gold, cited) ? 1 : 0,
          offTopic: question.expect === 'abstain' || gold.length === 0,
        });
      }
    } finally {
      await knowledgeBase.close();
    }
  }
  log(`calibrate: ${found.length} questions asked of ${pieces} small knowledge bases`);
  return found;
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
          const asked = await featuresOf(knowledgeBase, question.question);
          found.push({ source: 'squad', split, ...asked, label, offTopic: false });
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

/** The documents the engine's answer cites (every question answered: threshold 0). */
async function citedDocuments(knowledgeBase: ThrowawayKnowledgeBase, question: string): Promise<string[]> {
  const prepared = await prepareAnswer(knowledgeBase, { question, reach: knowledgeBase.reach }, 0);
  const citations = prepared?.events.find((event) => event.type === 'citations');
  return citations?.type === 'citations' ? citations.citations.map((citation) => citation.passage.docId) : [];
}

/** The features the engine computes for a question (its default retrieval, then the extractive plan; no evidence when nothing is quotable), and the passages it searched. */
async function featuresOf(knowledgeBase: ThrowawayKnowledgeBase, question: string): Promise<Pick<Example, 'features' | 'quotable' | 'passageCount'>> {
  const search = await retrievePassages(knowledgeBase, knowledgeBase.reach, questionTerms(question), DEFAULT_TOP_K, question);
  const features = planExtractiveAnswer(search.terms, search)?.features;
  return { features: features ?? NO_EVIDENCE, quotable: features !== undefined, passageCount: search.passageCount };
}

/** Weights giving each source its share of the total ({@link SOURCE_WEIGHTS}), and within it each class the same total. */
function sourceBalancedWeights(fitting: readonly Example[]): number[] {
  const totals = new Map<string, number>();
  for (const example of fitting) totals.set(`${example.source}:${example.label}`, (totals.get(`${example.source}:${example.label}`) ?? 0) + 1);
  const sources = [...new Set(fitting.map((example) => example.source))];
  const totalWeight = sources.reduce((sum, source) => sum + SOURCE_WEIGHTS[source], 0);
  return fitting.map((example) => (fitting.length * SOURCE_WEIGHTS[example.source]) / (totalWeight * 2 * totals.get(`${example.source}:${example.label}`)!));
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
