import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';
import { abandonQuestions } from './abandoned-questions.ts';
import { formatFigure, quantile } from './figures.ts';
import { measureScaleTable, nodeDocsQuestions, scaleTableMarkdown, type ScaleCorpus, type ScaleRow } from './scale-table.ts';
import { loadK8sQuestions } from '../eval/docs-questions.ts';
import { openEvalEmbedder } from '../eval/eval-embedder.ts';
import { KUBERNETES_KB_ID, kubernetesStore, type KubernetesStore } from './kubernetes-store.ts';
import { openIdleStreams } from './idle-streams.ts';
import { measureEmbedding } from './embedding-figures.ts';
import { measureDenseScan } from './dense-scan-figures.ts';
import { loadEmbedder } from '../server/embedding/embedder.ts';
import { installedModelFolder } from '../server/embedding/model-files.ts';
import { modelFetchSettings } from '../server/embedding/model-fetch.ts';
import { defaultModel, modelKey } from '../server/embedding/model-manifest.ts';
import { embeddingTextHash, passageEmbeddingText, sentenceEmbeddingTexts } from '../server/embedding/passage-text.ts';
import type { ScaleEmbedding } from './scale-hybrid.ts';
import { embedPendingPassages } from '../server/embedding/embed-passages.ts';
import { createEmbeddingPool } from '../server/embedding/embedding-pool.ts';
import { issueToken } from '../server/auth/widget-tokens.ts';
import { DEMO_CORPUS_PATH, DEMO_KB_ID, seedDemo } from '../server/seed.ts';
import { embeddedStoreLocation, openStore, type StoreLocation } from '../server/store/open-store.ts';

/**
 * `npm run bench`: the figures of the query service on the bundled Node.js
 * docs, each beside a baseline measured in the same run on the same machine
 * (bench/README.md). Loopback only, bounded in time (about eight
 * minutes, most of it the scale table); written to bench/results.md and printed.
 *
 * - ingest time of the corpus, beside reading and hashing the same files;
 * - JSON queries/s and p50/p95/p99 at 32 and 256 concurrent clients
 *   (autocannon) on each backend (embedded SQLite; PostgreSQL when the local
 *   server answers at `KB_BENCH_POSTGRES_URL`, default
 *   `postgres://postgres@127.0.0.1:5432/postgres`, in a database created and
 *   dropped by the run), beside an Express handler returning a constant answer;
 * - one process holding 10,000 open, idle answer streams: RSS per stream,
 *   beside a raw `node:http` SSE server holding as many;
 * - time to the first stream frame while 1,000 streams are open, beside the
 *   raw SSE server with 1,000 open;
 * - the server's maximum event-loop delay during the JSON load;
 * - the server's CPU per JSON answer (every thread, from /proc), beside the
 *   constant-answer app's per answer; and p95 and CPU at 32 clients with the
 *   answer cache off (engine/answer-cache.ts), every question prepared afresh,
 *   over the first hundred questions of the Node.js docs set;
 * - abandoned questions (posted, then the connection closed 1-4 ms later): a
 *   normal client's p50 while one client, then 32 clients, abandon questions,
 *   beside its p50 without; the server's CPU per abandoned question, beside its CPU per
 *   answered one; its open files and threads after 10,000, beside before;
 * - the embedding model (bench/embedding-figures.ts): passage embedding
 *   throughput and question embedding p50, beside raw ONNX Runtime on the
 *   same batches;
 * - the scale table (bench/scale-table.ts): the docs copied 1x, 4x, 16x and 64x
 *   (`BENCH_SCALES`), and the Kubernetes docs of the evaluation data
 *   (`../shared/eval/k8s-docs`, when present), each backend's ingest MB/s,
 *   store size, search and answer p50/p95, beside SQLite FTS5 over the same
 *   passages.
 */
const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Copies of the Node.js docs in the scale table (bench/README.md "Scale"): `BENCH_SCALES=1,4,16,64`. */
const SCALES = (process.env.BENCH_SCALES ?? '1,4,16,64').split(',').map(Number);
/** Copies at which dense search is timed, and the scale table times hybrid search: 1x and the largest. */
const HYBRID_SCALES = [...new Set([1, Math.max(...SCALES)])];
/** Questions of the Node.js docs set searched and answered at each scale, and asked in the JSON load with the answer cache off. */
const SCALE_QUESTIONS = 100;
/** Alternated rounds of the question log's on/off comparison. */
const QUESTION_LOG_ROUNDS = 5;
/** The Node.js docs questions, worded as visitors word them. */
const NODE_DOCS_QUESTIONS = fileURLToPath(new URL('../eval/node-docs-questions.jsonl', import.meta.url));
/** The Kubernetes docs and their questions worded as users word them (eval/README.md); the table skips them when absent. */
const K8S_DOCS = fileURLToPath(new URL('../../shared/eval/k8s-docs', import.meta.url));
const CLIENT_COUNTS = [32, 256] as const;
const IDLE_STREAMS = Number(process.env.BENCH_IDLE_STREAMS ?? 10_000);
const ACTIVE_STREAMS = 1_000;
const FIRST_FRAME_SAMPLES = 200;
const RESULTS_FILE = new URL('./results.md', import.meta.url);
const ALL_PARTS = ['json', 'streams', 'abandoned', 'embedding', 'hybrid', 'scale'];
/** Passages of the demo corpus embedded for the throughput figure. */
const EMBEDDING_PASSAGES = 256;
/** `BENCH_PARTS=streams` (or `json`, `abandoned`, `embedding`, `hybrid`, `scale`) runs one part alone while working on it; results.md is then left as it was. */
const PARTS = new Set((process.env.BENCH_PARTS ?? ALL_PARTS.join(',')).split(','));
/** Questions abandoned by one client for the cost and resource figures (10,000). */
const ABANDONED_QUESTIONS = Number(process.env.BENCH_ABANDONED ?? 10_000);
/** Clients abandoning questions at once while a normal client asks. */
const ABANDONING_CLIENTS = 32;
const QUESTIONS = [
  'How do I create a directory and its parent directories?',
  'How do I read a file line by line?',
  'What does the --inspect flag do?',
  'How can I hash a string with sha256?',
  'How do I spawn a child process and read its output?',
  'What is the capital of Australia?',
  'How do I set a timeout on an HTTP request?',
  'What is the difference between process.nextTick and setImmediate?',
];
const IDLE_QUESTION = JSON.stringify({ question: 'IDLE: hold this stream open' });

interface Row {
  figure: string;
  value: number;
  baseline: number;
  unit: string;
}

interface BenchServer {
  child: ChildProcess;
  appBase: string;
  baselineBase: string;
  token: string;
}

const rows: Row[] = [];
const notes: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
const started = performance.now();
try {
  const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

  // Ingest, beside reading and hashing the same files.
  const files = (await readdir(DEMO_CORPUS_PATH)).filter((name) => name.endsWith('.md'));
  let mark = performance.now();
  for (const name of files) createHash('sha256').update(await readFile(join(DEMO_CORPUS_PATH, name))).digest('hex');
  const readAndHash = performance.now() - mark;
  const embedded = embeddedStoreLocation(dataDir);
  mark = performance.now();
  const embeddedToken = await seeded(embedded);
  rows.push({ figure: `ingest ${files.length} pages, embedded (ms)`, value: performance.now() - mark, baseline: readAndHash, unit: 'ms' });

  const backends: { name: string; location: StoreLocation; token: string }[] = [{ name: 'embedded', location: embedded, token: embeddedToken }];
  const postgres = await createPostgresDatabase();
  if (postgres) {
    cleanups.push(postgres.drop);
    mark = performance.now();
    const token = await seeded(postgres.location);
    rows.push({ figure: `ingest ${files.length} pages, PostgreSQL (ms)`, value: performance.now() - mark, baseline: readAndHash, unit: 'ms' });
    backends.push({ name: 'PostgreSQL', location: postgres.location, token });
  } else {
    notes.push('PostgreSQL rows skipped: no server answered at KB_BENCH_POSTGRES_URL.');
  }

  // JSON load: the baseline once per client count, then each backend.
  for (const [index, backend] of PARTS.has('json') ? backends.entries() : []) {
    const server = await startBenchServer(backend.location, backend.token);
    const headers = jsonHeaders(server.token);
    const requests = QUESTIONS.map((question) => ({ method: 'POST' as const, body: JSON.stringify({ question }) }));
    await load(`${server.baselineBase}/query`, headers, requests, 32, 2);
    await load(`${server.appBase}/query`, headers, requests, 32, 2);
    if (index === 0) {
      const single = await sequentialTimes(`${server.appBase}/query`, headers);
      const baselineSingle = await sequentialTimes(`${server.baselineBase}/query`, headers);
      rows.push({ figure: `JSON p50, one client, ${backend.name}`, value: quantile(single, 0.5), baseline: quantile(baselineSingle, 0.5), unit: 'ms' });
    }
    for (const clients of CLIENT_COUNTS) {
      const { baseline, app, cpu } = await pairedLoads(server, headers, requests, clients, () => ask(server.child, 'reset-delay'));
      const delay = (await ask(server.child, 'read-delay')) as { maxMilliseconds: number };
      const at = `@${clients} clients, ${backend.name}`;
      if (app.errors > 0) throw new Error(`JSON load ${at} had ${app.errors} connection errors`);
      if (app.non2xx > 0) notes.push(`JSON load ${at}: ${app.non2xx} of ${app.requests.total} answers were not 2xx (${statusCounts(app)}).`);
      rows.push(
        { figure: `JSON requests/s ${at}`, value: app.requests.average, baseline: baseline.requests.average, unit: 'req/s' },
        { figure: `JSON p50 ${at}`, value: app.latency.p50, baseline: baseline.latency.p50, unit: 'ms' },
        { figure: `JSON p95 ${at}`, value: percentile95(app), baseline: percentile95(baseline), unit: 'ms' },
        { figure: `JSON p99 ${at}`, value: app.latency.p99, baseline: baseline.latency.p99, unit: 'ms' },
        { figure: `event-loop max delay ${at}`, value: delay.maxMilliseconds, baseline: Number.NaN, unit: 'ms' },
        { figure: `server CPU per JSON answer ${at}`, value: cpu.app, baseline: cpu.baseline, unit: 'ms' },
      );
    }
    await stopChild(server.child);

    // The engine's own cost: the answer cache off, so every question is prepared afresh, and the questions the
    // Node.js docs set's first hundred (worded as visitors word them) rather than the eight popular ones.
    const uncached = await startBenchServer(backend.location, backend.token, { answerCache: false });
    const varied = (await nodeDocsQuestions(NODE_DOCS_QUESTIONS)).slice(0, SCALE_QUESTIONS).map((question) => ({ method: 'POST' as const, body: JSON.stringify({ question }) }));
    await load(`${uncached.appBase}/query`, headers, varied, 32, 2);
    const { baseline, app, cpu } = await pairedLoads(uncached, headers, varied, 32);
    const at = `@32 clients, ${backend.name}, answer cache off, ${varied.length} questions`;
    rows.push(
      { figure: `JSON p95 ${at}`, value: percentile95(app), baseline: percentile95(baseline), unit: 'ms' },
      { figure: `server CPU per JSON answer ${at}`, value: cpu.app, baseline: cpu.baseline, unit: 'ms' },
    );
    await stopChild(uncached.child);

    // The question log's cost (the target: within 5 %): the same load on a server with the log and one without,
    // alternated round by round so that the machine's drift falls on both; the median of the rounds.
    const logged = await startBenchServer(backend.location, backend.token, { questionLog: true });
    const unlogged = await startBenchServer(backend.location, backend.token, { questionLog: false });
    const rounds: { on: { result: autocannon.Result; cpu: number }; off: { result: autocannon.Result; cpu: number } }[] = [];
    await load(`${logged.appBase}/query`, headers, requests, 32, 2);
    await load(`${unlogged.appBase}/query`, headers, requests, 32, 2);
    for (let round = 0; round < QUESTION_LOG_ROUNDS; round += 1) {
      const off = await measuredLoad(unlogged, `${unlogged.appBase}/query`, headers, requests, 32);
      const on = await measuredLoad(logged, `${logged.appBase}/query`, headers, requests, 32);
      rounds.push({ on, off });
    }
    const median = (values: number[]) => quantile(values, 0.5);
    const logAt = `@32 clients, ${backend.name}, question log on (baseline: off), median of ${QUESTION_LOG_ROUNDS} alternated rounds`;
    rows.push(
      { figure: `JSON p50 ${logAt}`, value: median(rounds.map((r) => r.on.result.latency.p50)), baseline: median(rounds.map((r) => r.off.result.latency.p50)), unit: 'ms' },
      { figure: `JSON p95 ${logAt}`, value: median(rounds.map((r) => percentile95(r.on.result))), baseline: median(rounds.map((r) => percentile95(r.off.result))), unit: 'ms' },
      { figure: `server CPU per JSON answer ${logAt}`, value: median(rounds.map((r) => r.on.cpu)), baseline: median(rounds.map((r) => r.off.cpu)), unit: 'ms' },
    );
    await stopChild(logged.child);
    await stopChild(unlogged.child);
  }

  // Streams: memory of idle streams, and the first frame while many are open (embedded backend).
  if (PARTS.has('streams')) await streamFigures(embedded, embeddedToken);
  // Abandoned questions: their cost, and what they do to a normal client (embedded backend).
  if (PARTS.has('abandoned')) await abandonedFigures(embedded, embeddedToken);

  // The embedding model as npm install left it, for the embedding and hybrid parts (undefined when it is not in the model cache).
  const model = defaultModel();
  const folder = PARTS.has('embedding') || PARTS.has('hybrid') ? await installedModelFolder(modelFetchSettings(process.env).cacheDir, model) : undefined;
  const modelMissing = 'rows skipped: the embedding model is not in the model cache (npm install fetches it).';
  /** The demo's vectors and the scale questions' vectors, from the hybrid part, for the scale table's hybrid rows. */
  let scaleEmbedding: ScaleEmbedding | undefined;

  // The embedding model: passage throughput and question latency, beside raw ONNX Runtime on the same batches.
  if (PARTS.has('embedding')) {
    if (!folder) {
      notes.push(`Embedding ${modelMissing}`);
    } else {
      const store = openStore(embedded);
      const passages = (await store.passagesWithoutVector(modelKey(model), EMBEDDING_PASSAGES, DEMO_KB_ID)).map((passage) => passageEmbeddingText(passage));
      await store.close();
      const questions = (await nodeDocsQuestions(NODE_DOCS_QUESTIONS)).slice(0, SCALE_QUESTIONS);
      const figures = await measureEmbedding(model, folder, passages, questions, cpus().length);
      rows.push(
        { figure: `passage embedding, ${passages.length} node-docs passages (passages/s)`, value: figures.passagesPerSecond, baseline: figures.rawPassagesPerSecond, unit: '/s' },
        { figure: `question embedding p50, ${questions.length} questions, cache missed (ms)`, value: figures.queryP50Ms, baseline: figures.rawQueryP50Ms, unit: 'ms' },
      );
    }
  }

  // Hybrid retrieval (bench/README.md "Embedding and hybrid retrieval"): one client's JSON latency with the embedding model, beside BM25F alone, answer cache off.
  if (PARTS.has('hybrid')) {
    if (!folder) {
      notes.push(`Hybrid ${modelMissing}`);
    } else {
      const store = openStore(embedded);
      const embedder = createEmbeddingPool(model, folder, cpus().length);
      mark = performance.now();
      const report = await embedPendingPassages(store, { modelKey: modelKey(model), kbId: DEMO_KB_ID, embed: (texts) => embedder.embed(texts, 'passage'), concurrency: cpus().length });
      notes.push(
        `Hybrid rows: the ${report.embedded.toLocaleString('en')} node-docs passages and ${report.sentencesEmbedded.toLocaleString('en')} sentences embedded first, in ${((performance.now() - mark) / 1000).toFixed(0)} s.`,
      );
      await embedder.close();
      await store.close();
      const questions = (await nodeDocsQuestions(NODE_DOCS_QUESTIONS)).slice(0, SCALE_QUESTIONS);
      const lexical = await startBenchServer(embedded, embeddedToken, { answerCache: false });
      const hybrid = await startBenchServer(embedded, embeddedToken, { answerCache: false, embedding: true });
      // Once through each, so both have read the index (and the hybrid one its vectors) before the timed pass.
      await questionTimes(`${lexical.appBase}/query`, jsonHeaders(lexical.token), questions);
      await questionTimes(`${hybrid.appBase}/query`, jsonHeaders(hybrid.token), questions);
      const lexicalTimes = await questionTimes(`${lexical.appBase}/query`, jsonHeaders(lexical.token), questions);
      const hybridTimes = await questionTimes(`${hybrid.appBase}/query`, jsonHeaders(hybrid.token), questions);
      const at = `one client, ${questions.length} node-docs questions, answer cache off, embedded (baseline: BM25F alone)`;
      rows.push(
        { figure: `JSON p50, hybrid retrieval, ${at}`, value: quantile(hybridTimes, 0.5), baseline: quantile(lexicalTimes, 0.5), unit: 'ms' },
        { figure: `JSON p95, hybrid retrieval, ${at}`, value: quantile(hybridTimes, 0.95), baseline: quantile(lexicalTimes, 0.95), unit: 'ms' },
      );
      await stopChild(lexical.child);
      await stopChild(hybrid.child);
      if (existsSync(K8S_DOCS)) rows.push(...(await kubernetesHybridRows(join(dataDir, 'k8s'), notes)));
      else notes.push(`Hybrid rows: the Kubernetes docs are not at ${K8S_DOCS}; their rows are left out.`);

      // Dense search at scale: the demo's vectors tiled as the scale table tiles its pages, the 8-bit scan with exact rescoring beside the float32 scan it replaced.
      const vectorStore = openStore(embedded);
      const index = await vectorStore.readDenseIndex(DEMO_KB_ID, modelKey(model), model.dimensions);
      const demoPassages = await vectorStore.passagesById(DEMO_KB_ID, index.chunkIds);
      // Their sentences' vectors, from the embedding cache, for the scale table's copies of them.
      const demoSentences = await vectorStore.cachedVectors(
        modelKey(model),
        demoPassages.flatMap((passage) => sentenceEmbeddingTexts(passage).map((text) => embeddingTextHash(text))),
      );
      await vectorStore.close();
      const queryEmbedder = await loadEmbedder(model, folder);
      const questionVectors = await queryEmbedder.embed(questions, 'query');
      // The scale table's hybrid rows reuse these: each copy of a page embeds as the page does.
      const byText = new Map<string, Float32Array>();
      const slotOf = new Map(index.chunkIds.map((chunkId, slot) => [chunkId, slot]));
      for (const passage of demoPassages) {
        const slot = slotOf.get(passage.chunkId)!;
        byText.set(embeddingTextHash(passageEmbeddingText(passage)), index.vectors.subarray(slot * model.dimensions, (slot + 1) * model.dimensions));
      }
      for (const [hash, vector] of demoSentences) byText.set(hash, vector);
      const byQuestion = new Map(questions.map((question, position) => [question, questionVectors[position]!]));
      scaleEmbedding = {
        modelKey: modelKey(model),
        dimensions: model.dimensions,
        embedPassages: async (texts) => {
          const missing = texts.filter((text) => !byText.has(embeddingTextHash(text)));
          const computed = new Map(missing.length === 0 ? [] : (await queryEmbedder.embed(missing, 'passage')).map((vector, position) => [missing[position]!, vector]));
          return texts.map((text) => byText.get(embeddingTextHash(text)) ?? computed.get(text)!);
        },
        questionVector: (question) => {
          const vector = byQuestion.get(question);
          if (!vector) throw new Error(`No vector for the question "${question}"`);
          return vector;
        },
      };
      for (const copies of HYBRID_SCALES) {
        const scan = await measureDenseScan(index, copies, questionVectors);
        const of = `${copies}x node-docs vectors (${scan.passages.toLocaleString('en')} x ${model.dimensions}), ${questions.length} questions (baseline: float32 scan of every vector)`;
        rows.push(
          { figure: `dense search p50, ${of}`, value: scan.p50Ms, baseline: scan.baselineP50Ms, unit: 'ms' },
          { figure: `dense search p95, ${of}`, value: scan.p95Ms, baseline: scan.baselineP95Ms, unit: 'ms' },
        );
        notes.push(`Dense search, ${copies}x: the 8-bit scan with exact rescoring and the float32 scan put the same 10 passages first for ${scan.sameTopTen} of ${questions.length} questions.`);
      }
    }
  }

  if (PARTS.has('scale')) {
    if (!scaleEmbedding) notes.push(`Scale table: hybrid search not timed (it reuses the hybrid part's vectors${folder ? '; run the hybrid part too' : `; ${modelMissing}`}).`);
    const nodeQuestions = (await nodeDocsQuestions(NODE_DOCS_QUESTIONS)).slice(0, SCALE_QUESTIONS);
    const corpora: ScaleCorpus[] = SCALES.map((copies) => ({ name: `Node.js docs ${copies}x`, source: DEMO_CORPUS_PATH, copies, questions: nodeQuestions }));
    if (existsSync(K8S_DOCS)) {
      const k8sQuestions = (await loadK8sQuestions(join(K8S_DOCS, 'questions.jsonl'))).slice(0, SCALE_QUESTIONS).map((record) => record.question);
      corpora.push({ name: 'Kubernetes docs', source: join(K8S_DOCS, 'docs'), copies: 1, questions: k8sQuestions });
    } else {
      console.error(`The Kubernetes docs are not at ${K8S_DOCS}: the scale table leaves them out`);
    }
    const scaleRows = await measureScaleTable({
      corpora,
      passes: 1,
      folder: join(dataDir, 'scale'),
      ...(postgres && postgres.location.kind === 'postgres' ? { postgresUrl: postgres.location.url } : {}),
      onProgress: (message) => console.error(message),
      ...(scaleEmbedding && { embedding: scaleEmbedding, hybridCorpora: HYBRID_SCALES.filter((copies) => SCALES.includes(copies)).map((copies) => `Node.js docs ${copies}x`) }),
    });
    notes.push(scaleNote(scaleRows));
  }

  const text = report(rows, notes, (performance.now() - started) / 1000);
  if (ALL_PARTS.every((part) => PARTS.has(part))) await writeFile(RESULTS_FILE, text);
  process.stdout.write(text);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

/**
 * One client's JSON latency on the Kubernetes docs (bench/README.md
 * "Embedding and hybrid retrieval"), hybrid retrieval beside BM25F alone,
 * answer cache off: their passages embedded first (from the evaluation's
 * vector cache where it holds them, bench/kubernetes-store.ts), then the
 * first {@link SCALE_QUESTIONS} questions of their set asked of each server.
 */
async function kubernetesHybridRows(folder: string, notes: string[]): Promise<Row[]> {
  await mkdir(folder);
  const embedder = await openEvalEmbedder();
  let kubernetes: KubernetesStore;
  try {
    kubernetes = await kubernetesStore(folder, join(K8S_DOCS, 'docs'), embedder);
  } finally {
    await embedder.close();
  }
  notes.push(`Hybrid rows: the ${kubernetes.passages.toLocaleString('en')} Kubernetes passages given their vectors in ${kubernetes.embeddingSeconds.toFixed(0)} s (from eval/.cache where \`npm run eval\` left them).`);
  const questions = (await loadK8sQuestions(join(K8S_DOCS, 'questions.jsonl'))).slice(0, SCALE_QUESTIONS).map((record) => record.question);
  const lexical = await startBenchServer(kubernetes.location, kubernetes.token, { answerCache: false, kbId: KUBERNETES_KB_ID });
  const hybrid = await startBenchServer(kubernetes.location, kubernetes.token, { answerCache: false, embedding: true, kbId: KUBERNETES_KB_ID });
  try {
    await questionTimes(`${lexical.appBase}/query`, jsonHeaders(lexical.token), questions);
    await questionTimes(`${hybrid.appBase}/query`, jsonHeaders(hybrid.token), questions);
    const lexicalTimes = await questionTimes(`${lexical.appBase}/query`, jsonHeaders(lexical.token), questions);
    const hybridTimes = await questionTimes(`${hybrid.appBase}/query`, jsonHeaders(hybrid.token), questions);
    const at = `one client, ${questions.length} Kubernetes questions, answer cache off, embedded (baseline: BM25F alone)`;
    return [
      { figure: `JSON p50, hybrid retrieval, ${at}`, value: quantile(hybridTimes, 0.5), baseline: quantile(lexicalTimes, 0.5), unit: 'ms' },
      { figure: `JSON p95, hybrid retrieval, ${at}`, value: quantile(hybridTimes, 0.95), baseline: quantile(lexicalTimes, 0.95), unit: 'ms' },
    ];
  } finally {
    await stopChild(lexical.child);
    await stopChild(hybrid.child);
  }
}

async function streamFigures(embedded: StoreLocation, embeddedToken: string): Promise<void> {
  const server = await startBenchServer(embedded, embeddedToken);
  const raw = await startRawSseServer();
  const appStreams = `${server.appBase}/query/stream`;
  const rawStreams = `http://127.0.0.1:${raw.port}/query/stream`;
  const headers = jsonHeaders(server.token);

  // Warm-up of both stream paths (JIT, pools) before memory is read.
  await firstFrameTimes(appStreams, headers, 20);
  await firstFrameTimes(rawStreams, headers, 20);
  const appBefore = (await ask(server.child, 'rss')) as { bytes: number };
  const appHeld = await openIdleStreams(appStreams, headers, IDLE_QUESTION, IDLE_STREAMS);
  const appAfter = (await ask(server.child, 'rss')) as { bytes: number };
  appHeld.close();
  const rawBefore = (await ask(raw.child, 'rss')) as { bytes: number };
  const rawHeld = await openIdleStreams(rawStreams, headers, IDLE_QUESTION, IDLE_STREAMS);
  const rawAfter = (await ask(raw.child, 'rss')) as { bytes: number };
  rawHeld.close();
  rows.push({
    figure: `RSS per open idle stream, ${IDLE_STREAMS.toLocaleString('en')} streams in one process (KB)`,
    value: (appAfter.bytes - appBefore.bytes) / 1024 / IDLE_STREAMS,
    baseline: (rawAfter.bytes - rawBefore.bytes) / 1024 / IDLE_STREAMS,
    unit: 'KB',
  });
  rows.push({
    figure: `RSS with ${IDLE_STREAMS.toLocaleString('en')} open streams (MB)`,
    value: appAfter.bytes / 1024 / 1024,
    baseline: rawAfter.bytes / 1024 / 1024,
    unit: 'MB',
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));

  const appActive = await openIdleStreams(appStreams, headers, IDLE_QUESTION, ACTIVE_STREAMS);
  const appFirst = await firstFrameTimes(appStreams, headers, FIRST_FRAME_SAMPLES);
  appActive.close();
  const rawActive = await openIdleStreams(rawStreams, headers, IDLE_QUESTION, ACTIVE_STREAMS);
  const rawFirst = await firstFrameTimes(rawStreams, headers, FIRST_FRAME_SAMPLES);
  rawActive.close();
  rows.push(
    { figure: `stream first frame p50, ${ACTIVE_STREAMS.toLocaleString('en')} streams open`, value: quantile(appFirst, 0.5), baseline: quantile(rawFirst, 0.5), unit: 'ms' },
    { figure: `stream first frame p95, ${ACTIVE_STREAMS.toLocaleString('en')} streams open`, value: quantile(appFirst, 0.95), baseline: quantile(rawFirst, 0.95), unit: 'ms' },
  );
  await stopChild(server.child);
  await stopChild(raw.child);
}

/**
 * Abandoned questions (bench/README.md): a normal client's p50 undisturbed and while
 * one client, then 32 clients, abandon questions (post, then close 1-4 ms later); the server's
 * CPU per abandoned question beside its CPU per answered question; its open
 * files and threads before and after one client abandons 10,000.
 */
async function abandonedFigures(embedded: StoreLocation, embeddedToken: string): Promise<void> {
  const server = await startBenchServer(embedded, embeddedToken);
  const url = `${server.appBase}/query`;
  const headers = jsonHeaders(server.token);
  const bodies = QUESTIONS.map((question) => JSON.stringify({ question }));
  await sequentialTimes(url, headers); // warm-up

  const beforeAnswered = (await ask(server.child, 'resources')) as Resources;
  const undisturbed = await sequentialTimes(url, headers);
  const afterAnswered = (await ask(server.child, 'resources')) as Resources;
  for (const clients of [1, ABANDONING_CLIENTS]) {
    const abandoning = abandonQuestions(url, headers, bodies, clients, Number.POSITIVE_INFINITY);
    const disturbed = await sequentialTimes(url, headers);
    abandoning.stop();
    await abandoning.done;
    rows.push({
      figure: `JSON p50, one client, while ${clients} ${clients === 1 ? 'client abandons' : 'clients abandon'} questions (baseline: no abandons)`,
      value: quantile(disturbed, 0.5),
      baseline: quantile(undisturbed, 0.5),
      unit: 'ms',
    });
  }

  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = (await ask(server.child, 'resources')) as Resources;
  const abandoned = await abandonQuestions(url, headers, bodies, 1, ABANDONED_QUESTIONS).done;
  const afterCpu = (await ask(server.child, 'resources')) as Resources;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const after = (await ask(server.child, 'resources')) as Resources;
  rows.push(
    {
      figure: `server CPU per abandoned question, ${abandoned.toLocaleString('en')} from one client (baseline: per answered question)`,
      value: (afterCpu.cpuMicroseconds - before.cpuMicroseconds) / 1000 / abandoned,
      baseline: (afterAnswered.cpuMicroseconds - beforeAnswered.cpuMicroseconds) / 1000 / undisturbed.length,
      unit: 'ms',
    },
    { figure: `open files after ${abandoned.toLocaleString('en')} abandoned questions (baseline: before)`, value: after.files, baseline: before.files, unit: 'files' },
    { figure: `threads after ${abandoned.toLocaleString('en')} abandoned questions (baseline: before)`, value: after.threads, baseline: before.threads, unit: 'threads' },
  );
  const answered = await fetch(url, { method: 'POST', headers, body: bodies[0] });
  if (answered.status !== 200) throw new Error(`After the abandoned questions the server answered ${answered.status}`);
  await answered.body?.cancel();
  await stopChild(server.child);
}

/** The scale table and what its columns mean, as a note of the results. */
function scaleNote(scaleRows: readonly ScaleRow[]): string {
  return [
    '## Scale',
    '',
    `The bundled Node.js docs copied ${SCALES.map((scale) => `${scale}x`).join(', ')} under new names, and the Kubernetes docs of the evaluation data (\`eval/k8s-docs\`: many small pages with front matter and Hugo shortcodes), each ingested through \`ingestPaths\` into a fresh store of each backend, then the first ${SCALE_QUESTIONS} questions of its question set (\`eval/node-docs-questions.jsonl\`, \`k8s-docs/questions.jsonl\`) searched (top 10) and answered at one client. Baseline: SQLite FTS5 (porter stemmer, BM25, the question's words OR-ed) over the same passages, what a user could pick instead. Store MB is the whole database (documents, passages and index; FTS5: passages and index). "search" holds the whole index in memory once read, as an answer worker does (terms read instead when it is over the cap); "terms read" reads each search's postings from the store, as right after an ingest; "whole index read" is the time that read took. "same top 10": questions whose ten passages (documents, heading paths, texts, scores to 12 digits, in order) were the same on the backend's two search paths and, for PostgreSQL, the same as the embedded store's (the backend parity tests' check, at this scale).`,
    '',
    ...scaleTableMarkdown(scaleRows),
  ].join('\n');
}

/**
 * The constant-answer baseline's JSON load, then the app's, on one bench
 * server, each with the server's CPU time (every thread) per request it
 * completed (ms).
 *
 * @param beforeApp run between the two loads (resetting the event-loop delay, say)
 */
async function pairedLoads(
  server: BenchServer,
  headers: Record<string, string>,
  requests: { method: 'POST'; body: string }[],
  clients: number,
  beforeApp: () => Promise<unknown> = () => Promise.resolve(),
): Promise<{ baseline: autocannon.Result; app: autocannon.Result; cpu: { baseline: number; app: number } }> {
  const baseline = await measuredLoad(server, `${server.baselineBase}/query`, headers, requests, clients);
  await beforeApp();
  const app = await measuredLoad(server, `${server.appBase}/query`, headers, requests, clients);
  return { baseline: baseline.result, app: app.result, cpu: { baseline: baseline.cpu, app: app.cpu } };
}

/** A load of LOAD_SECONDS on one of the bench server's apps, with the server's CPU per request (ms, every thread). */
async function measuredLoad(
  server: BenchServer,
  url: string,
  headers: Record<string, string>,
  requests: { method: 'POST'; body: string }[],
  clients: number,
): Promise<{ result: autocannon.Result; cpu: number }> {
  const before = (await ask(server.child, 'resources')) as Resources;
  const result = await load(url, headers, requests, clients, LOAD_SECONDS);
  const after = (await ask(server.child, 'resources')) as Resources;
  return { result, cpu: (after.cpuMicroseconds - before.cpuMicroseconds) / 1000 / Math.max(result.requests.total, 1) };
}

/** What the bench server reports of itself: CPU time of all its threads, open files, threads. */
interface Resources {
  cpuMicroseconds: number;
  files: number;
  threads: number;
}

/** Seeds the demo knowledge base at `location` and issues a server-only token. */
async function seeded(location: StoreLocation): Promise<string> {
  const store = openStore(location);
  try {
    const seed = await seedDemo(store, { ownerEmail: 'owner@example.com' });
    const { token } = await issueToken(
      store,
      { kbId: DEMO_KB_ID, issuerId: seed.owner.id, allowedOrigins: [] },
      { ttlCapMinutes: 120, now: Date.now() },
    );
    return token;
  } finally {
    await store.close();
  }
}

/** A database for this run on the local PostgreSQL server, or undefined when none answers. */
async function createPostgresDatabase(): Promise<{ location: StoreLocation; drop: () => Promise<void> } | undefined> {
  const adminUrl = process.env.KB_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `kbw_bench_${process.pid}_${Date.now()}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  try {
    await admin(`CREATE DATABASE ${name}`);
  } catch {
    return undefined;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { location: { kind: 'postgres', url: url.toString() }, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * @param options.answerCache keep answers while the knowledge base is unchanged (default true, as the server)
 * @param options.questionLog log each answered question (default true, as the server)
 */
async function startBenchServer(
  location: StoreLocation,
  token: string,
  options: { answerCache?: boolean; questionLog?: boolean; embedding?: boolean; kbId?: string } = {},
): Promise<BenchServer> {
  const flags = [
    ...(options.answerCache === false ? ['no-answer-cache'] : []),
    ...(options.questionLog === false ? [] : ['question-log']),
    ...(options.embedding ? ['embedding'] : []),
  ];
  const child = fork(new URL('./bench-server.ts', import.meta.url), [JSON.stringify(location), ...flags], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
  });
  cleanups.push(() => stopChild(child));
  const [ready] = (await once(child, 'message')) as [{ appPort: number; baselinePort: number }];
  return {
    child,
    appBase: `http://127.0.0.1:${ready.appPort}/kb-api/api/v1/kb/${options.kbId ?? DEMO_KB_ID}/widget`,
    baselineBase: `http://127.0.0.1:${ready.baselinePort}`,
    token,
  };
}

async function startRawSseServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(new URL('./raw-sse-server.ts', import.meta.url), [], { execArgv: ['--import', 'tsx', '--expose-gc'] });
  cleanups.push(() => stopChild(child));
  const [ready] = (await once(child, 'message')) as [{ port: number }];
  return { child, port: ready.port };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (!child.connected || child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.send({ type: 'stop' });
  await exited;
}

function jsonHeaders(token: string): Record<string, string> {
  return { 'content-type': 'application/json', authorization: `Bearer ${token}` };
}

function load(
  url: string,
  headers: Record<string, string>,
  requests: { method: 'POST'; body: string }[],
  connections: number,
  seconds: number,
): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, headers, requests, method: 'POST' });
}

/** The non-2xx statuses of a load run, as `503 x2, 429 x1`. */
function statusCounts(result: autocannon.Result): string {
  return Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${status} x${count ?? 0}`)
    .join(', ');
}

/** autocannon reports p90 and p97.5; p95 is interpolated between them. */
function percentile95(result: autocannon.Result): number {
  return result.latency.p90 + ((95 - 90) / (97.5 - 90)) * (result.latency.p97_5 - result.latency.p90);
}

async function sequentialTimes(url: string, headers: Record<string, string>): Promise<number[]> {
  const times: number[] = [];
  for (let sample = 0; sample < FIRST_FRAME_SAMPLES; sample += 1) {
    const question = QUESTIONS[sample % QUESTIONS.length]!;
    const begun = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ question }) });
    await response.json();
    times.push(performance.now() - begun);
  }
  return times;
}

/** Milliseconds of each question's JSON answer, asked one at a time. */
async function questionTimes(url: string, headers: Record<string, string>, questions: readonly string[]): Promise<number[]> {
  const times: number[] = [];
  for (const question of questions) {
    const begun = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ question }) });
    await response.json();
    times.push(performance.now() - begun);
  }
  return times;
}

async function firstFrameTimes(url: string, headers: Record<string, string>, samples: number): Promise<number[]> {
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const question = QUESTIONS[sample % QUESTIONS.length]!;
    const begun = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ question }) });
    const reader = response.body!.getReader();
    let received = '';
    const decoder = new TextDecoder();
    while (!/^(event|data):/m.test(received)) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    times.push(performance.now() - begun);
    await reader.cancel();
  }
  return times;
}


function ask(child: ChildProcess, type: string): Promise<unknown> {
  const reply = once(child, 'message').then(([message]) => message);
  child.send({ type });
  return reply;
}

function report(table: Row[], extraNotes: string[], seconds: number): string {
  const format = formatFigure;
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return [
    '# kb-widget benchmark results',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString()} in ${seconds.toFixed(0)} s: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}, loopback, ${LOAD_SECONDS} s per load; the load generator runs on the same cores.`,
    '',
    '| figure | kb-widget | baseline | ratio |',
    '| --- | ---: | ---: | ---: |',
    ...table.map(
      (row) =>
        `| ${row.figure} | ${format(row.value)} ${row.unit} | ${Number.isNaN(row.baseline) ? '-' : `${format(row.baseline)} ${row.unit}`} | ${Number.isNaN(row.baseline) ? '-' : `${(row.value / row.baseline).toFixed(2)}x`} |`,
    ),
    '',
    'Baselines, measured in the same run: ingest = reading and hashing the same files; JSON = an Express handler returning a constant answer (same body parser, no engine, no store); streams = a raw `node:http` server writing SSE headers and a 15 s heartbeat per stream (bench/raw-sse-server.ts), in a process of its own; abandoned questions = the same server undisturbed, answering, or before the abandons, as each row says.',
    '',
    `Idle streams are real answer streams of the app (token check, limits, SSE writer, heartbeat timer) whose answer has not begun: the bench server's engine holds questions starting with \`IDLE:\` open until the client goes, as while a chat model has not sent its first token. RSS is read after a full GC, before and after opening them.`,
    ...extraNotes.map((note) => `\n${note}`),
    '',
  ].join('\n');
}
