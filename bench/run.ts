import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { issueToken } from '../server/auth/widget-tokens.ts';
import { DEMO_CORPUS_PATH, DEMO_KB_ID, seedDemo } from '../server/seed.ts';
import { embeddedStoreLocation, openStore } from '../server/store/open-store.ts';

/**
 * `npm run bench`: the figures of the query service on the bundled Node.js
 * docs, each beside a baseline measured in the same run on the same machine:
 *
 * - ingest time of the corpus, beside reading and hashing the same files;
 * - JSON query latency (p50/p95/p99) and requests/s under 32 concurrent
 *   clients (autocannon), beside an Express handler returning a constant answer;
 * - time to the first stream frame, beside a constant SSE handler;
 * - the server's maximum event-loop delay during the JSON load.
 *
 * Loopback only, bounded in time (about a minute in all).
 */
const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 32;
const FIRST_FRAME_SAMPLES = 200;
const QUESTIONS = [
  'How do I create a directory together with its missing parent directories?',
  'How do I read a file line by line?',
  'What does the --inspect flag do?',
  'How can I hash a string with sha256?',
  'How do I spawn a child process and read its output?',
  'What is the capital of Australia?',
  'How do I set a timeout on an HTTP request?',
  'What is the difference between process.nextTick and setImmediate?',
];

interface Row {
  figure: string;
  value: number;
  baseline: number;
  unit: string;
}

const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-'));
const rows: Row[] = [];
let server: ChildProcess | undefined;
try {
  // Ingest, beside reading and hashing the same files.
  const files = (await readdir(DEMO_CORPUS_PATH)).filter((name) => name.endsWith('.md'));
  let started = performance.now();
  for (const name of files) createHash('sha256').update(await readFile(join(DEMO_CORPUS_PATH, name))).digest('hex');
  const readAndHash = performance.now() - started;
  const store = openStore(embeddedStoreLocation(dataDir));
  started = performance.now();
  const seed = await seedDemo(store, { ownerEmail: 'owner@example.com' });
  const ingest = performance.now() - started;
  rows.push({ figure: `ingest ${seed.report.created.length} pages (ms)`, value: ingest, baseline: readAndHash, unit: 'ms' });
  const { token } = await issueToken(
    store,
    { kbId: DEMO_KB_ID, issuerId: seed.owner.id, allowedOrigins: [] },
    { ttlCapMinutes: 60, now: Date.now() },
  );
  await store.close();

  server = fork(new URL('./bench-server.ts', import.meta.url), [dataDir], { execArgv: ['--import', 'tsx'] });
  const [ready] = (await once(server, 'message')) as [{ appPort: number; baselinePort: number }];
  const appBase = `http://127.0.0.1:${ready.appPort}/kb-api/api/v1/kb/${DEMO_KB_ID}/widget`;
  const baselineBase = `http://127.0.0.1:${ready.baselinePort}`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const requests = QUESTIONS.map((question) => ({ method: 'POST' as const, body: JSON.stringify({ question }) }));

  // One client at a time: the latency of a single question, without queueing.
  const appSingle = await sequentialTimes(`${appBase}/query`, headers);
  const baselineSingle = await sequentialTimes(`${baselineBase}/query`, headers);
  rows.push(
    { figure: 'JSON p50, one client', value: quantile(appSingle, 0.5), baseline: quantile(baselineSingle, 0.5), unit: 'ms' },
    { figure: 'JSON p95, one client', value: quantile(appSingle, 0.95), baseline: quantile(baselineSingle, 0.95), unit: 'ms' },
  );

  // Warm-up, then JSON load on the baseline and on the service.
  await load(`${baselineBase}/query`, headers, requests, 2);
  await load(`${appBase}/query`, headers, requests, 2);
  const baselineLoad = await load(`${baselineBase}/query`, headers, requests, LOAD_SECONDS);
  await ask(server, 'reset-delay');
  const appLoad = await load(`${appBase}/query`, headers, requests, LOAD_SECONDS);
  const delay = (await ask(server, 'read-delay')) as { maxMilliseconds: number; p99Milliseconds: number };
  if (appLoad.non2xx > 0 || appLoad.errors > 0) throw new Error(`JSON load had ${appLoad.non2xx} non-2xx and ${appLoad.errors} errors`);
  rows.push(
    { figure: `JSON p50 @${CONNECTIONS} clients`, value: appLoad.latency.p50, baseline: baselineLoad.latency.p50, unit: 'ms' },
    { figure: `JSON p95 @${CONNECTIONS} clients`, value: percentile95(appLoad), baseline: percentile95(baselineLoad), unit: 'ms' },
    { figure: `JSON p99 @${CONNECTIONS} clients`, value: appLoad.latency.p99, baseline: baselineLoad.latency.p99, unit: 'ms' },
    { figure: `JSON requests/s @${CONNECTIONS} clients`, value: appLoad.requests.average, baseline: baselineLoad.requests.average, unit: 'req/s' },
  );

  // Time to first frame, one request at a time.
  const appFirst = await firstFrameTimes(`${appBase}/query/stream`, headers);
  const baselineFirst = await firstFrameTimes(`${baselineBase}/query/stream`, headers);
  rows.push(
    { figure: 'stream first frame p50', value: quantile(appFirst, 0.5), baseline: quantile(baselineFirst, 0.5), unit: 'ms' },
    { figure: 'stream first frame p95', value: quantile(appFirst, 0.95), baseline: quantile(baselineFirst, 0.95), unit: 'ms' },
  );
  rows.push({ figure: 'event-loop max delay under JSON load', value: delay.maxMilliseconds, baseline: Number.NaN, unit: 'ms' });

  printTable(rows);
} finally {
  if (server?.connected) {
    server.send({ type: 'stop' });
    await once(server, 'exit');
  }
  await rm(dataDir, { recursive: true, force: true });
}

function load(
  url: string,
  headers: Record<string, string>,
  requests: { method: 'POST'; body: string }[],
  seconds: number,
): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, requests, method: 'POST' });
}

/** autocannon reports p90 and p97.5; p95 is interpolated between them. */
function percentile95(result: autocannon.Result): number {
  return result.latency.p90 + ((95 - 90) / (97.5 - 90)) * (result.latency.p97_5 - result.latency.p90);
}

async function sequentialTimes(url: string, headers: Record<string, string>): Promise<number[]> {
  const times: number[] = [];
  for (let sample = 0; sample < FIRST_FRAME_SAMPLES; sample += 1) {
    const question = QUESTIONS[sample % QUESTIONS.length]!;
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ question }) });
    await response.json();
    times.push(performance.now() - started);
  }
  return times;
}

async function firstFrameTimes(url: string, headers: Record<string, string>): Promise<number[]> {
  const times: number[] = [];
  for (let sample = 0; sample < FIRST_FRAME_SAMPLES; sample += 1) {
    const question = QUESTIONS[sample % QUESTIONS.length]!;
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ question }) });
    const reader = response.body!.getReader();
    let received = '';
    const decoder = new TextDecoder();
    while (!received.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    times.push(performance.now() - started);
    await reader.cancel();
  }
  return times;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function ask(child: ChildProcess, type: string): Promise<unknown> {
  const reply = once(child, 'message').then(([message]) => message);
  child.send({ type });
  return reply;
}

function printTable(table: Row[]): void {
  const format = (value: number) => (Number.isNaN(value) ? '-' : value >= 100 ? value.toFixed(0) : value.toFixed(2));
  const lines = [
    `kb-widget bench (${LOAD_SECONDS} s per load, loopback, ${new Date().toISOString()})`,
    '',
    '| figure | kb-widget | baseline | ratio |',
    '| --- | ---: | ---: | ---: |',
    ...table.map(
      (row) =>
        `| ${row.figure} | ${format(row.value)} ${row.unit} | ${format(row.baseline)} ${Number.isNaN(row.baseline) ? '' : row.unit} | ${Number.isNaN(row.baseline) ? '-' : `${(row.value / row.baseline).toFixed(2)}x`} |`,
    ),
    '',
    'Baselines: ingest = reading and hashing the same files; JSON and stream = an Express handler with a constant answer.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
