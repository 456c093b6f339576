import { writeFile } from 'node:fs/promises';
import { fusionName, type HybridRetrieverOptions } from '../server/retrieval/hybrid-retriever.ts';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { evaluateClapnq, type ClapnqRun } from './clapnq-eval.ts';
import { evaluateDocsSet, evaluateK8sDocs, evaluateNodeDocs, type DocsSetRun } from './docs-eval.ts';
import { loadNodeDocsQuestions } from './docs-questions.ts';
import type { K8sWording } from './docs-questions.ts';
import { docsJson, type DocsReport } from './docs-report.ts';
import { HELD_OUT_SETS, HELD_OUT_SOURCES, type HeldOutSet } from './held-out-sets.ts';
import { formatReport, type EvalReport } from './eval-report.ts';
import { openEvalEmbedder, type EvalEmbedder } from './eval-embedder.ts';
import { evaluateScifact, type ScifactRun } from './scifact-eval.ts';
import { evaluateSquadOpen, type SquadHalf, type SquadOpenRun } from './squad-open-eval.ts';
import { DEMO_CORPUS_PATH } from '../server/seed.ts';

/**
 * `npm run eval`: runs the engine on the public benchmarks in `shared/eval`
 * (eval/README.md) and prints the figures beside the published anchors
 * and the targets, with the time taken.
 *
 * Options:
 * - `--data <dir>`: the data folder (default `../shared/eval` from the project);
 * - `--only scifact,squad,clapnq,docs`: run only these benchmarks;
 * - `--squad-half report|calibration`: the half of SQuAD measured (default
 *   `report`; `calibration` is the half engine weights may be tuned on);
 * - `--docs-sets node,k8s,pino,piscina`: the documentation sets `docs` runs
 *   (default all; `pino` and `piscina` are the held-out sets, those packages'
 *   docs, that nothing is fitted on);
 * - `--k8s-ask q|source`: the wording the Kubernetes questions are asked in
 *   (default `q`, the users' rewordings; `source`, the original wording, is a
 *   diagnostic); without the option, the environment's `K8S_ASK` decides;
 * - `--dump <file>`: write one JSON line per documentation question (the
 *   answer, its citations, evidence score, retrieved pages) for error analysis;
 * - `--lexical-only`: run without the embedding model (BM25F alone, as a
 *   server without the model answers);
 * - `--model-file <onnx>`: run this ONNX export instead of the manifest's
 *   model file (same tokenizer), to compare exports (fp32 against int8);
 * - `--fusion rrf|convex:<dense weight>`: how the hybrid rows fuse BM25F and
 *   dense retrieval (default `rrf`, reciprocal rank fusion, as the server
 *   does; `convex:0.5`, a convex combination of normalised scores with the
 *   dense scores weighing 0.5: eval/README.md "Fusion: reciprocal ranks or a convex combination");
 * - `--json`: print exactly one JSON object on stdout instead of the table
 *   (`{"scifact":{...},"squad_open":{...},"clapnq":{...},"docs":{"node":{...},"k8s":{...}}}`,
 *   fractions in 0..1).
 *
 * Progress goes to stderr. Exits 1 with a message on stderr when the data
 * cannot be read or an option is wrong.
 */
const BENCHMARKS = ['scifact', 'squad', 'clapnq', 'docs'] as const;
type Benchmark = (typeof BENCHMARKS)[number];
const DOCS_SETS = ['node', 'k8s', ...HELD_OUT_SETS] as const;
type DocsSet = (typeof DOCS_SETS)[number];
const NODE_DOCS_QUESTIONS = fileURLToPath(new URL('./node-docs-questions.jsonl', import.meta.url));
const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
    'squad-half': { type: 'string', default: 'report' },
    'docs-sets': { type: 'string' },
    'k8s-ask': { type: 'string' },
    dump: { type: 'string' },
    'lexical-only': { type: 'boolean', default: false },
    'model-file': { type: 'string' },
    fusion: { type: 'string', default: 'rrf' },
  },
  strict: true,
});
const dataDir = resolve(values.data ?? fileURLToPath(new URL('../../shared/eval', import.meta.url)));
const selected = parseNames(values.only, BENCHMARKS, '--only');
const squadHalf = parseSquadHalf(values['squad-half']);
const docsSets = parseNames(values['docs-sets'], DOCS_SETS, '--docs-sets');
const k8sWording = parseK8sWording(values['k8s-ask'] ?? process.env.K8S_ASK);
const hybrid = parseFusion(values.fusion);
const log = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

const started = performance.now();
let scifact: ScifactRun | undefined;
let squad: SquadOpenRun | undefined;
let clapnq: ClapnqRun | undefined;
let nodeDocs: DocsSetRun | undefined;
let k8sDocs: DocsSetRun | undefined;
const heldOut: Partial<Record<HeldOutSet, DocsSetRun>> = {};
let embedder: EvalEmbedder | undefined;
try {
  if (!values['lexical-only']) embedder = await openEvalEmbedder(values['model-file'] === undefined ? {} : { modelFile: resolve(values['model-file']) });
  if (selected.has('scifact')) scifact = await evaluateScifact(join(dataDir, 'scifact'), log, embedder, hybrid);
  if (selected.has('squad')) squad = await evaluateSquadOpen(join(dataDir, 'squad2', 'dev-v2.0.json'), log, squadHalf, embedder);
  if (selected.has('clapnq')) clapnq = await evaluateClapnq(join(dataDir, 'clapnq'), log, embedder);
  if (selected.has('docs') && docsSets.has('node')) nodeDocs = await evaluateNodeDocs(DEMO_CORPUS_PATH, NODE_DOCS_QUESTIONS, log, embedder, hybrid);
  if (selected.has('docs') && docsSets.has('k8s')) k8sDocs = await evaluateK8sDocs(join(dataDir, 'k8s-docs'), k8sWording, log, embedder, hybrid);
  for (const name of HELD_OUT_SETS) {
    if (selected.has('docs') && docsSets.has(name)) heldOut[name] = await evaluateDocsSet(name, HELD_OUT_SOURCES[name].docs, await loadNodeDocsQuestions(HELD_OUT_SOURCES[name].questions), log, embedder, hybrid);
  }
  if (values.dump !== undefined) {
    const records = [...(nodeDocs?.records ?? []), ...(k8sDocs?.records ?? []), ...HELD_OUT_SETS.flatMap((name) => heldOut[name]?.records ?? [])];
    await writeFile(values.dump, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    log(`docs: ${records.length} questions written to ${values.dump}`);
  }
} catch (error) {
  process.stderr.write(`Evaluation failed (data folder "${dataDir}"): ${(error as Error).message}\n`);
  process.exit(1);
} finally {
  await embedder?.close();
}
const docs: DocsReport | undefined = selected.has('docs') ? { node: nodeDocs, k8s: k8sDocs, heldOut, k8sWording, fusion: fusionName(hybrid) } : undefined;
const report: EvalReport = { scifact, squad, clapnq, docs, seconds: (performance.now() - started) / 1000, fusion: fusionName(hybrid) };

if (values.json) {
  process.stdout.write(
    `${JSON.stringify({
      ...(scifact && { scifact: { ...scifact.figures, retrievers: scifact.retrievers } }),
      ...(squad && { squad_open: squad.figures }),
      ...(clapnq && { clapnq: clapnq.figures }),
      ...(docs && { docs: docsJson(docs) }),
    })}\n`,
  );
} else {
  process.stdout.write(formatReport(report));
}

/** The names of a comma-separated option, each one of `allowed`; all of them when the option is absent. */
function parseNames<Name extends string>(given: string | undefined, allowed: readonly Name[], option: string): Set<Name> {
  if (given === undefined) return new Set(allowed);
  const names = given.split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of names) {
    if (!(allowed as readonly string[]).includes(name)) {
      process.stderr.write(`Unknown name "${name}" in ${option}; choose from ${allowed.join(', ')}\n`);
      process.exit(1);
    }
  }
  return new Set(names as Name[]);
}

/** `rrf`, or `convex:<weight>` with a weight in 0..1, as hybrid retriever options. */
function parseFusion(fusion: string): HybridRetrieverOptions {
  if (fusion === 'rrf') return {};
  const weight = /^convex:(\d+(?:\.\d+)?)$/.exec(fusion)?.[1];
  if (weight !== undefined && Number(weight) <= 1) return { convexDenseWeight: Number(weight) };
  process.stderr.write(`Unknown fusion "${fusion}" in --fusion; choose rrf or convex:<dense weight in 0..1>, e.g. convex:0.5\n`);
  process.exit(1);
}

function parseSquadHalf(half: string): SquadHalf {
  if (half === 'report' || half === 'calibration') return half;
  process.stderr.write(`Unknown half "${half}" in --squad-half; choose report or calibration\n`);
  process.exit(1);
}

function parseK8sWording(wording: string | undefined): K8sWording {
  if (wording === undefined || wording === 'q') return 'q';
  if (wording === 'source') return 'source';
  process.stderr.write(`Unknown wording "${wording}" in --k8s-ask (or K8S_ASK); choose q or source\n`);
  process.exit(1);
}
