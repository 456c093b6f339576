import type { DocsSetRun } from './docs-eval.ts';
import { QUESTION_FATES, type DocsFigures, type QuestionFate } from './docs-figures.ts';
import type { K8sWording } from './docs-questions.ts';
import { HELD_OUT_SETS, type HeldOutSet } from './held-out-sets.ts';

/**
 * The documentation evaluation's part of `npm run eval`: the table of the
 * report and fit halves beside the anchors and the targets (eval/README.md; report
 * halves), the retrieval ablation, where the answerable questions went,
 * the lines saying what was ingested and how long it took, and the JSON
 * object under `docs`.
 *
 * Anchors (k8s only): the question set's authors put the gold page among
 * their top 5 chunks for 40.75 % of the 400 questions (40.0 % on `q2`) with
 * BM25 + BGE-base embeddings + LLM query rewriting, and a plain BM25 with
 * front matter stripped and question words dropped does so for about 31 %
 * (shared/eval/README.md, k8s-docs/SOURCE.md).
 */

/** What the docs part measured; a set left out is undefined. */
export interface DocsReport {
  node: DocsSetRun | undefined;
  k8s: DocsSetRun | undefined;
  /** The held-out sets (a package's docs as its npm package ships them): nothing is fitted on them; all their questions are in the report half. */
  heldOut?: Partial<Record<HeldOutSet, DocsSetRun>>;
  /** The wording the Kubernetes questions were asked in. */
  k8sWording: K8sWording;
  /** How the hybrid rows fused (retrieval/hybrid-retriever.ts `fusionName`); `RRF` when absent. */
  fusion?: string;
}

/** The target for the Kubernetes corpus's ingestion into the embedded store, in seconds. */
export const K8S_INGEST_TARGET_SECONDS = 10;

type FigureName = Exclude<keyof DocsFigures, 'answerable' | 'off_topic'>;

interface Target {
  bound: number;
  /** `least`: the figure must be at least the bound; `most`: at most. */
  at: 'least' | 'most';
}

interface SetRows {
  label: string;
  anchors: Partial<Record<FigureName, string>>;
  targets: Partial<Record<FigureName, Target>>;
}

const FIGURES: readonly FigureName[] = [
  'cited_gold',
  'right',
  'confidently_wrong',
  'abstained',
  'off_topic_abstained',
  'hit_at_5',
  'cited_answering',
  'wrong_judged',
  'answering_at_5',
  'p50_ms',
];

/** Figures shown only for a set that has them (a second judgment of its pages). */
const JUDGED_FIGURES: ReadonlySet<FigureName> = new Set(['cited_answering', 'wrong_judged', 'answering_at_5']);

const NODE_ROWS: SetRows = {
  label: 'Node.js docs',
  anchors: {},
  targets: {
    right: { bound: 0.8, at: 'least' },
    confidently_wrong: { bound: 0.1, at: 'most' },
    off_topic_abstained: { bound: 0.95, at: 'least' },
  },
};

const K8S_ROWS: SetRows = {
  label: 'Kubernetes docs',
  anchors: {
    cited_gold: 'Hit@5: BM25 + BGE + LLM rewriting 0.41 (q2 0.40); plain BM25 about 0.31',
    hit_at_5: 'BM25 + BGE + LLM rewriting 0.41 (q2 0.40); plain BM25 about 0.31',
  },
  targets: {
    cited_gold: { bound: 0.35, at: 'least' },
    confidently_wrong: { bound: 0.1, at: 'most' },
    off_topic_abstained: { bound: 0.95, at: 'least' },
  },
};

/** A held-out set's rows: no anchors and no targets (nothing is tuned toward it). */
function heldOutRows(name: HeldOutSet): SetRows {
  return { label: `${name} docs (held out)`, anchors: {}, targets: {} };
}

/** The held-out sets that ran, in {@link HELD_OUT_SETS} order. */
function heldOutRuns(report: DocsReport): [HeldOutSet, DocsSetRun][] {
  return HELD_OUT_SETS.flatMap((name) => {
    const run = report.heldOut?.[name];
    return run ? [[name, run] as [HeldOutSet, DocsSetRun]] : [];
  });
}

/**
 * @returns the docs part of the human-readable report (markdown table, then
 *   one line per set), ending with a newline; empty when no set ran
 */
export function formatDocsReport(report: DocsReport): string {
  const sets: [SetRows, DocsSetRun][] = [];
  if (report.node) sets.push([NODE_ROWS, report.node]);
  if (report.k8s) sets.push([K8S_ROWS, report.k8s]);
  for (const [name, run] of heldOutRuns(report)) sets.push([heldOutRows(name), run]);
  if (sets.length === 0) return '';
  const lines = ['| set | figure | report half | fit half | anchor | target (report half) |', '| --- | --- | ---: | ---: | --- | --- |'];
  for (const [rows, run] of sets) {
    for (const figure of FIGURES) {
      const value = run.report[figure];
      if (JUDGED_FIGURES.has(figure) && value === null && run.fit[figure] === null) continue;
      const target = rows.targets[figure];
      lines.push(
        `| ${rows.label} | ${figure} | ${formatValue(figure, value)} | ${formatValue(figure, run.fit[figure])} | ${rows.anchors[figure] ?? '-'} | ${
          target ? formatTarget(target, value) : '-'
        } |`,
      );
    }
  }
  lines.push('', ...ablation(sets, report.fusion ?? 'RRF'), '', ...fates(sets), '');
  if (report.node) lines.push(`Node.js docs: ${describeRun(report.node)}`);
  for (const [name, run] of heldOutRuns(report)) lines.push(`${name} docs (held out, nothing fitted on it): ${describeRun(run)}`);
  if (report.k8s) {
    const ingest = report.k8s.ingestSeconds;
    lines.push(
      `Kubernetes docs (asked in the ${report.k8sWording === 'source' ? 'source questions\' wording (diagnostic)' : 'users\' rewordings'}): ${describeRun(report.k8s)}; ingest target <= ${K8S_INGEST_TARGET_SECONDS} s ${
        ingest <= K8S_INGEST_TARGET_SECONDS ? '(met)' : '(not met)'
      }`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The columns of the retrieval ablation, report half. */
const ABLATION_FIGURES: readonly FigureName[] = ['right', 'cited_gold', 'confidently_wrong', 'abstained', 'off_topic_abstained', 'hit_at_5'];

/**
 * The retrieval ablation: each set's report half under BM25F alone, dense
 * retrieval alone and the two fused (the product's marked), side by side.
 */
function ablation(sets: readonly [SetRows, DocsSetRun][], fusion: string): string[] {
  const lines = [
    `| set | retrieval | ${ABLATION_FIGURES.join(' | ')} |`,
    `| --- | --- | ${ABLATION_FIGURES.map(() => '---:').join(' | ')} |`,
  ];
  for (const [rows, run] of sets) {
    for (const mode of ['bm25f', 'dense', 'hybrid'] as const) {
      const figures = run.retrievers[mode]?.report;
      if (!figures) continue;
      const label = { bm25f: 'BM25F', dense: 'dense', hybrid: `hybrid (${fusion})` }[mode];
      lines.push(
        `| ${rows.label} | ${label}${mode === run.mode ? ' (served)' : ''} | ${ABLATION_FIGURES.map((figure) => formatValue(figure, figures[figure])).join(' | ')} |`,
      );
    }
  }
  return lines;
}

/** Column headings of the fates table (docs-figures.ts `QuestionFate`). */
const FATE_HEADINGS: Record<QuestionFate, string> = {
  right: 'right',
  other_section: 'answered, other section',
  confidently_wrong: 'confidently wrong',
  abstained_first: 'abstained, answering passage first',
  abstained_lower: 'abstained, answering passage 2nd-20th',
  abstained_missed: 'abstained, none of the 20 answers',
};

/**
 * Where each set's answerable questions went under the product's
 * retrieval, per half (shares summing to 1): which stage holds a figure
 * back - the evidence model (abstained with the answering passage first),
 * the ranking (ranked lower) or retrieval (not among the 20 re-ranked).
 */
function fates(sets: readonly [SetRows, DocsSetRun][]): string[] {
  const lines = [
    `| set | half | ${QUESTION_FATES.map((fate) => FATE_HEADINGS[fate]).join(' | ')} |`,
    `| --- | --- | ${QUESTION_FATES.map(() => '---:').join(' | ')} |`,
  ];
  for (const [rows, run] of sets) {
    for (const half of ['report', 'fit'] as const) {
      const shares = run.fates[half];
      if (shares) lines.push(`| ${rows.label} | ${half} | ${QUESTION_FATES.map((fate) => shares[fate].toFixed(4)).join(' | ')} |`);
    }
  }
  return lines;
}

/** @returns the `docs` object of `npm run eval -- --json` */
export function docsJson(report: DocsReport): Record<string, unknown> {
  return {
    ...(report.node && { node: setJson(report.node) }),
    ...(report.k8s && { k8s: { ask: report.k8sWording, ...setJson(report.k8s) } }),
    ...Object.fromEntries(heldOutRuns(report).map(([name, run]) => [name, setJson(run)])),
  };
}

function setJson(run: DocsSetRun): Record<string, unknown> {
  return {
    mode: run.mode,
    report: run.report,
    fit: run.fit,
    retrievers: run.retrievers,
    fates: run.fates,
    documents: run.documents,
    failed_to_ingest: run.failed.length,
    ingest_seconds: round(run.ingestSeconds, 2),
    seconds: round(run.seconds, 2),
  };
}

function describeRun(run: DocsSetRun): string {
  const questions = (figures: DocsFigures): string => `${figures.answerable} answerable + ${figures.off_topic} off-topic`;
  const failed = run.failed.length > 0 ? `, ${run.failed.length} files failed to ingest (e.g. ${run.failed[0]?.docId}: ${run.failed[0]?.reason})` : '';
  const missing = run.missingGold.length > 0 ? `, ${run.missingGold.length} gold pages not in the knowledge base` : '';
  return (
    `${run.documents} documents${failed}${missing}; report half ${questions(run.report)}, fit half ${questions(run.fit)} questions; ` +
    `ingest ${run.ingestSeconds.toFixed(1)} s, total ${run.seconds.toFixed(1)} s`
  );
}

function formatValue(figure: FigureName, value: number | null): string {
  if (value === null) return '-';
  return figure === 'p50_ms' ? `${value.toFixed(1)} ms` : value.toFixed(4);
}

function formatTarget(target: Target, value: number | null): string {
  const met = value !== null && (target.at === 'least' ? value >= target.bound : value <= target.bound);
  return `${target.at === 'least' ? '>=' : '<='} ${target.bound.toFixed(2)} ${met ? '(met)' : '(not met)'}`;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
