import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { evaluateClapnq, type ClapnqRun } from './clapnq-eval.ts';
import { formatReport, type EvalReport } from './eval-report.ts';
import { evaluateScifact, type ScifactRun } from './scifact-eval.ts';
import { evaluateSquadOpen, type SquadHalf, type SquadOpenRun } from './squad-open-eval.ts';

/**
 * `npm run eval`: runs the engine on the public benchmarks in `shared/eval`
 * (README "Evaluation") and prints the figures beside the published anchors
 * and the targets, with the time taken.
 *
 * Options:
 * - `--data <dir>`: the data folder (default `../shared/eval` from the project);
 * - `--only scifact,squad,clapnq`: run only these benchmarks;
 * - `--squad-half report|calibration`: the half of SQuAD measured (default
 *   `report`; `calibration` is the half engine weights may be tuned on);
 * - `--json`: print exactly one JSON object on stdout instead of the table
 *   (`{"scifact":{...},"squad_open":{...},"clapnq":{...}}`, fractions in 0..1).
 *
 * Progress goes to stderr. Exits 1 with a message on stderr when the data
 * cannot be read or an option is wrong.
 */
const BENCHMARKS = ['scifact', 'squad', 'clapnq'] as const;
type Benchmark = (typeof BENCHMARKS)[number];

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
    'squad-half': { type: 'string', default: 'report' },
  },
  strict: true,
});
const dataDir = resolve(values.data ?? fileURLToPath(new URL('../../shared/eval', import.meta.url)));
const selected = parseOnly(values.only);
const squadHalf = parseSquadHalf(values['squad-half']);
const log = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

const started = performance.now();
let scifact: ScifactRun | undefined;
let squad: SquadOpenRun | undefined;
let clapnq: ClapnqRun | undefined;
try {
  if (selected.has('scifact')) scifact = await evaluateScifact(join(dataDir, 'scifact'), log);
  if (selected.has('squad')) squad = await evaluateSquadOpen(join(dataDir, 'squad2', 'dev-v2.0.json'), log, squadHalf);
  if (selected.has('clapnq')) clapnq = await evaluateClapnq(join(dataDir, 'clapnq'), log);
} catch (error) {
  process.stderr.write(`Evaluation failed (data folder "${dataDir}"): ${(error as Error).message}\n`);
  process.exit(1);
}
const report: EvalReport = { scifact, squad, clapnq, seconds: (performance.now() - started) / 1000 };

if (values.json) {
  process.stdout.write(
    `${JSON.stringify({
      ...(scifact && { scifact: scifact.figures }),
      ...(squad && { squad_open: squad.figures }),
      ...(clapnq && { clapnq: clapnq.figures }),
    })}\n`,
  );
} else {
  process.stdout.write(formatReport(report));
}

function parseOnly(only: string | undefined): Set<Benchmark> {
  if (only === undefined) return new Set(BENCHMARKS);
  const names = only.split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of names) {
    if (!(BENCHMARKS as readonly string[]).includes(name)) {
      process.stderr.write(`Unknown benchmark "${name}" in --only; choose from ${BENCHMARKS.join(', ')}\n`);
      process.exit(1);
    }
  }
  return new Set(names as Benchmark[]);
}

function parseSquadHalf(half: string): SquadHalf {
  if (half === 'report' || half === 'calibration') return half;
  process.stderr.write(`Unknown half "${half}" in --squad-half; choose report or calibration\n`);
  process.exit(1);
}
