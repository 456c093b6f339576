import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import express from 'express';
import { pino } from 'pino';
import { createApp } from '../server/app.ts';
import type { AnswerEngine } from '../server/engine/answer-engine.ts';
import { DEFAULT_ABSTENTION_THRESHOLD } from '../server/engine/ranking/evidence.ts';
import { createSourceSpanCodec } from '../server/api/source-span.ts';
import { openStore, type StoreLocation } from '../server/store/open-store.ts';
import { createPooledAnswerEngine } from '../server/engine/answer-pool.ts';
import { createQuestionLogWriter } from '../server/question-log/question-log-writer.ts';
import { installedModelFolder } from '../server/embedding/model-files.ts';
import { modelFetchSettings } from '../server/embedding/model-fetch.ts';
import { defaultModel } from '../server/embedding/model-manifest.ts';

/**
 * The process under load in `npm run bench`: the real app on the store whose
 * location (JSON) is `argv[2]` (its answer cache off when a later argument
 * is `no-answer-cache`; its question log on, as server/main.ts has it by
 * default, when one is `question-log`; hybrid retrieval with the installed
 * embedding model when one is `embedding`), and beside it the baseline, an Express app
 * answering every query with a constant answer (JSON and SSE) and no engine.
 * It reports its event-loop delay, its CPU time, open files and threads, and
 * (after a full GC; run it with `--expose-gc`) its RSS over IPC, so the load generator's own work and
 * memory are not counted.
 *
 * Questions starting with `IDLE:` get a stream that stays open and idle (as
 * while a chat model has not yet sent its first token) until the client
 * goes: the streams the memory figure holds. Every other question gets the
 * real engine's answer.
 */
const location = JSON.parse(process.argv[2]!) as StoreLocation;
const store = openStore(location);
const flags = new Set(process.argv.slice(3));
// As server/main.ts: answers kept while the knowledge base is unchanged, unless the load measures the engine ("no-answer-cache").
const answerCache = !flags.has('no-answer-cache');
// As server/main.ts: each answered question logged off the request path ("question-log").
const questionLog = flags.has('question-log') ? createQuestionLogWriter(store) : undefined;
// As server/main.ts with the embedding model ("embedding"): each answer worker searches by BM25F and dense retrieval, fused.
const modelFolder = flags.has('embedding') ? await installedModelFolder(modelFetchSettings(process.env).cacheDir, defaultModel()) : undefined;
if (flags.has('embedding') && !modelFolder) throw new Error('The embedding model is not in the model cache: run npm install');
const pooled = createPooledAnswerEngine({
  location,
  abstentionThreshold: DEFAULT_ABSTENTION_THRESHOLD,
  threads: availableParallelism(),
  ...(modelFolder === undefined ? {} : { embedding: { model: defaultModel(), folder: modelFolder } }),
  ...(answerCache ? { contentVersions: store } : {}),
});
const engine: AnswerEngine & { close(): Promise<void> } = {
  answer(request) {
    if (!request.question.startsWith('IDLE:')) return pooled.answer(request);
    return (async function* idle() {
      if (request.signal && !request.signal.aborted) await once(request.signal, 'abort');
    })();
  },
  close: () => pooled.close(),
};
const app = createApp({
  store,
  engine,
  ...(questionLog === undefined ? {} : { questionLog }),
  codec: createSourceSpanCodec('bench-secret-0123456789abcdef0123456789'),
  logger: pino({ level: 'silent' }),
  now: Date.now,
  rateLimitPerIp: 1_000_000_000,
  rateLimitPerToken: 1_000_000_000,
  // As server/main.ts: replicas on one PostgreSQL share their rate-limit counts through it.
  sharedRateLimits: location.kind === 'postgres',
  trustedProxies: 0,
  maxStreamsPerToken: 1_000_000,
  maxStreamSeconds: 3600,
});

const constantAnswer = {
  answer: 'Pass `recursive: true` to `fs.mkdir()` [1].',
  citations: [{ index: 1, doc_id: 'fs.md', kb_id: 'node-docs', source_span: { ref: 'constant' } }],
  provenance: 'generated',
  abstained: false,
};
const baseline = express();
baseline.use(express.json({ limit: 16 * 1024 }));
baseline.post('/query', (_request, response) => {
  response.json(constantAnswer);
});
baseline.post('/query/stream', (_request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
  response.write(`event: token\ndata: ${JSON.stringify({ type: 'token', text: constantAnswer.answer })}\n\n`);
  response.end(`event: done\ndata: {"type":"done","abstained":false}\n\n`);
});

const appServer = app.listen(0, '127.0.0.1');
const baselineServer = baseline.listen(0, '127.0.0.1');
await Promise.all([once(appServer, 'listening'), once(baselineServer, 'listening')]);

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
process.on('message', (message: { type: string }) => {
  if (message.type === 'reset-delay') {
    histogram.reset();
    process.send!({ type: 'delay-reset' });
  } else if (message.type === 'read-delay') {
    process.send!({ type: 'delay', maxMilliseconds: histogram.max / 1e6, p99Milliseconds: histogram.percentile(99) / 1e6 });
  } else if (message.type === 'rss') {
    (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    process.send!({ type: 'rss', bytes: usage.rss, heapUsed: usage.heapUsed, external: usage.external });
  } else if (message.type === 'resources') {
    // CPU of the whole process (every thread, answer workers included), open files and threads, from Linux's /proc.
    const usage = process.cpuUsage();
    void Promise.all([readdir('/proc/self/fd'), readdir('/proc/self/task')]).then(([files, threads]) =>
      process.send!({ type: 'resources', cpuMicroseconds: usage.user + usage.system, files: files.length, threads: threads.length }),
    );
  } else if (message.type === 'stop') {
    appServer.closeAllConnections();
    baselineServer.closeAllConnections();
    appServer.close();
    baselineServer.close();
    void Promise.all([engine.close(), questionLog?.close()])
      .then(() => store.close())
      .then(() => process.exit(0));
  }
});
process.send!({
  type: 'ready',
  appPort: (appServer.address() as AddressInfo).port,
  baselinePort: (baselineServer.address() as AddressInfo).port,
});
