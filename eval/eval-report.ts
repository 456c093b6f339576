import type { ClapnqRun } from './clapnq-eval.ts';
import { formatDocsReport, type DocsReport } from './docs-report.ts';
import type { ScifactRun } from './scifact-eval.ts';
import { defaultModel, type ModelSpec } from '../server/embedding/model-manifest.ts';
import type { SquadOpenRun } from './squad-open-eval.ts';

/**
 * The human-readable report of `npm run eval`: one markdown table of the
 * figures beside the published anchors and the targets (eval/README.md), then what was
 * ingested and how long each benchmark took; then the documentation sets'
 * table and lines (eval/docs-report.ts).
 *
 * Anchors: BM25 on BEIR SciFact as Anserini/Pyserini publish it
 * (docs/regressions/regressions-beir-v1.0.0-scifact.{flat,multifield}.md in
 * castorini/anserini: nDCG@10 0.6789 / 0.6647, R@100 0.9253 / 0.9076),
 * reproduced on this data by shared/eval/README.md; dense retrieval with
 * the embedding model, against the figure its manifest entry pins
 * (`published`: all-MiniLM-L6-v2, MTEB SciFact nDCG@10 64.51), reproduced
 * within 0.01 (its target). SQuAD open and ClapNQ
 * have no published figure for this protocol; they carry targets only.
 */

/** What one run measured; a benchmark left out with `--only` is undefined. */
export interface EvalReport {
  scifact: ScifactRun | undefined;
  squad: SquadOpenRun | undefined;
  clapnq: ClapnqRun | undefined;
  /** The documentation sets (eval/docs-report.ts); undefined when `docs` was left out. */
  docs?: DocsReport | undefined;
  /** Wall-clock seconds of the whole run. */
  seconds: number;
  /** How the hybrid rows fused (retrieval/hybrid-retriever.ts `fusionName`); `RRF` when absent. */
  fusion?: string;
}

interface Row {
  benchmark: string;
  figure: string;
  value: number;
  anchor: string;
  /** Smallest acceptable value, when there is a target. */
  target?: number;
  /** A published figure to reproduce within {@link REPRODUCTION_TOLERANCE}, when that is the target. */
  reproduces?: number;
}

/** How close a reproduction of a published figure must come. */
export const REPRODUCTION_TOLERANCE = 0.01;

function targetCell(row: Row): string {
  if (row.reproduces !== undefined) {
    const met = Math.abs(row.value - row.reproduces) <= REPRODUCTION_TOLERANCE;
    return `${formatFigure(row.reproduces)} ± ${REPRODUCTION_TOLERANCE} ${met ? '(met)' : '(not met)'}`;
  }
  return row.target === undefined ? '-' : `>= ${row.target.toFixed(2)} ${row.value >= row.target ? '(met)' : '(not met)'}`;
}

/** Figures rounded to 4 decimals, the precision the anchors are published with. */
export function formatFigure(value: number): string {
  return value.toFixed(4);
}

/**
 * @returns the report as markdown (table, then one line per benchmark), ending with a newline
 */
export function formatReport(report: EvalReport, model: ModelSpec = defaultModel()): string {
  const rows: Row[] = [];
  const { scifact, squad, clapnq } = report;
  if (scifact) {
    const { bm25f, dense, hybrid } = scifact.retrievers;
    rows.push(
      { benchmark: 'SciFact BM25F', figure: 'nDCG@10', value: bm25f.ndcg_at_10, anchor: 'BM25 flat 0.6789, multifield 0.6647', target: 0.68 },
      { benchmark: 'SciFact BM25F', figure: 'Recall@100', value: bm25f.recall_at_100, anchor: 'BM25 flat 0.9253, multifield 0.9076' },
    );
    if (dense) {
      rows.push(
        publishedRow(dense.ndcg_at_10, model),
        { benchmark: 'SciFact dense', figure: 'Recall@100', value: dense.recall_at_100, anchor: '' },
      );
    }
    if (hybrid) {
      rows.push(
        { benchmark: `SciFact hybrid (${report.fusion ?? 'RRF'})`, figure: 'nDCG@10', value: hybrid.ndcg_at_10, anchor: '', target: 0.74 },
        { benchmark: `SciFact hybrid (${report.fusion ?? 'RRF'})`, figure: 'Recall@100', value: hybrid.recall_at_100, anchor: '' },
      );
    }
  }
  if (squad) {
    const figures = squad.figures;
    rows.push(
      { benchmark: 'SQuAD open', figure: 'answer contains gold', value: figures.answer_contains_gold, anchor: '', target: 0.7 },
      { benchmark: 'SQuAD open', figure: 'gold paragraph cited', value: figures.gold_paragraph_cited, anchor: '', target: 0.8 },
      { benchmark: 'SQuAD open', figure: 'abstains on absent', value: figures.abstain_on_absent, anchor: '', target: 0.9 },
      { benchmark: 'SQuAD open', figure: 'abstains on unanswerable', value: figures.abstain_on_unanswerable, anchor: '' },
      { benchmark: 'SQuAD open', figure: 'AUROC (evidence score)', value: figures.auroc, anchor: '', target: 0.95 },
    );
  }
  if (clapnq) {
    rows.push(
      { benchmark: 'ClapNQ', figure: 'gold passage cited', value: clapnq.figures.gold_passage_cited, anchor: '' },
      { benchmark: 'ClapNQ', figure: 'answer ROUGE-L', value: clapnq.figures.answer_rouge_l, anchor: '' },
      { benchmark: 'ClapNQ', figure: 'abstains on unanswerable', value: clapnq.figures.abstain_on_unanswerable, anchor: '' },
    );
  }
  const lines: string[] = [];
  if (rows.length > 0) {
    lines.push(
      '| benchmark | figure | measured | published anchor | target |',
      '| --- | --- | ---: | --- | --- |',
      ...rows.map(
        (row) =>
          `| ${row.benchmark} | ${row.figure} | ${formatFigure(row.value)} | ${row.anchor || '-'} | ${targetCell(row)} |`,
      ),
      '',
    );
  }
  if (scifact) {
    lines.push(
      `SciFact: ${scifact.documents} documents (${scifact.passages} passages), ${scifact.queries} claims; ingest ${seconds(scifact.ingestSeconds)}, total ${seconds(scifact.seconds)}`,
    );
  }
  if (squad) {
    lines.push(
      `SQuAD open: ${squad.articles.ingested} articles ingested, ${squad.articles.heldOut} held out; report half: ${squad.counts.answerable} answerable, ${squad.counts.absent} absent, ${squad.counts.unanswerable} unanswerable questions; ingest ${seconds(squad.ingestSeconds)}, total ${seconds(squad.seconds)}`,
    );
  }
  if (clapnq) {
    lines.push(
      `ClapNQ: ${clapnq.counts.answerable} answerable (${clapnq.abstainedOnAnswerable} abstained on), ${clapnq.counts.unanswerable} unanswerable questions; ingest ${seconds(clapnq.ingestSeconds)}, total ${seconds(clapnq.seconds)}`,
    );
  }
  const docs = report.docs ? formatDocsReport(report.docs) : '';
  if (docs !== '') lines.push(...(lines.length > 0 ? [''] : []), docs.trimEnd());
  lines.push(`Total: ${seconds(report.seconds)}`);
  return `${lines.join('\n')}\n`;
}

function seconds(value: number): string {
  return `${value.toFixed(1)} s`;
}

/** The dense SciFact row: the model's published figure to reproduce, when the manifest pins one. */
function publishedRow(value: number, model: ModelSpec): Row {
  const name = model.id.split('/').at(-1)!;
  const published = model.published;
  if (!published) return { benchmark: 'SciFact dense', figure: 'nDCG@10', value, anchor: `${name}: no published figure pinned` };
  return { benchmark: 'SciFact dense', figure: 'nDCG@10', value, anchor: `${name}, ${published.source} ${formatFigure(published.scifactNdcgAt10)}`, reproduces: published.scifactNdcgAt10 };
}
