import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createQuestionLogWriter } from './question-log/question-log-writer.ts';
import { startQuestionLogRetention } from './question-log/question-log-retention.ts';
import { createApp } from './app.ts';
import { loadConfig } from './config.ts';
import { DEFAULT_ABSTENTION_THRESHOLD } from './engine/ranking/evidence.ts';
import { createSourceSpanCodec } from './api/source-span.ts';
import { createLogger } from './logger.ts';
import { createDownloadProgress, createProgressBar } from './progress-bar.ts';
import { prepareEmbeddingModel, retrievalStatus, type RetrievalStatus } from './embedding/embedding-model.ts';
import { createEmbeddingPool } from './embedding/embedding-pool.ts';
import { startEmbeddingSweeper, type EmbeddingSweeper } from './embedding/embedding-sweeper.ts';
import { modelFetchSettings } from './embedding/model-fetch.ts';
import { reindexStaleDocuments } from './retrieval/reindex.ts';
import { ImportJobs } from './ingest/jobs/import-jobs.ts';
import { startImportResync } from './ingest/jobs/import-sources.ts';
import { DEMO_KB_ID, ensureOwner, ensureOwnerPassword, seedDemo, type OwnerPasswordOutcome, type OwnerSeed, type SeedResult } from './seed.ts';
import { describeStoreLocation, openStore, type StoreLocation } from './store/open-store.ts';
import { storeLocationFromEnv } from './store/postgres/postgres-config.ts';
import { createPooledAnswerEngine } from './engine/answer-pool.ts';
import { createChatCompletionsClient } from './engine/generation/chat-completions-client.ts';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoServer } from './demo/demo-server.ts';
import { tokenIssueCommand } from './banner-commands.ts';

/**
 * `npm start`: opens (or creates) the store, seeds the owner and (unless
 * `KB_DEMO_SEED=off`) the demo knowledge base, serves the API and the built
 * widget (`dist/`), and the demo page on a second origin (`KB_DEMO_PORT`).
 * The only module besides the CLI entry that reads `process.env`.
 */
/** Prints a failure a person can act on, without a stack trace, and exits. */
function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env, { abstentionThreshold: DEFAULT_ABSTENTION_THRESHOLD });
} catch (error) {
  fail((error as Error).message);
}
const logger = createLogger(config.logLevel);
/** Output of `npm run build` (built by `npm start` when missing or stale). */
const widgetDistDir = fileURLToPath(new URL('../dist', import.meta.url));
const started = Date.now();
// PostgreSQL when DATABASE_URL is set (docs/operations.md "PostgreSQL"), else the embedded store in KB_DATA_DIR.
let location: StoreLocation;
try {
  location = storeLocationFromEnv(process.env, config.dataDir);
} catch (error) {
  fail((error as Error).message);
}
const store = openStore(location);
// Applies the schema migrations (PostgreSQL runs them on first use) and fails early when the database is unreachable.
await store.ping().catch((error: Error) => fail(`Cannot open the store at ${describeStoreLocation(location)}: ${error.message}`));

// The embedding model: `npm install` fetched it; a start that lacks it fetches it now, and without it answers lexically (BM25F alone).
const modelDownload = createDownloadProgress('Embedding model');
const embedding = await prepareEmbeddingModel({
  ...modelFetchSettings(process.env),
  enabled: config.embedding,
  onProgress: modelDownload.update,
});
modelDownload.stop();
if (embedding.state === 'unavailable') logger.warn({ reason: embedding.reason }, 'the embedding model is unavailable: answers use lexical retrieval (BM25F) alone');

// An index made by an older analysis is re-made from the stored passages before anything is searched.
const reindexing = createProgressBar('Re-indexing');
const reindexed = await reindexStaleDocuments(store, (step) => reindexing.update(step)).finally(() => reindexing.stop());
if (reindexed.reindexed > 0) logger.info({ documents: reindexed.reindexed }, 're-indexed documents made by an older analysis');

// The owner, and the demo knowledge base with the bundled Node.js docs unless KB_DEMO_SEED=off (a deployment for
// its own documents): then no demo knowledge base is created or updated, and no demo page is served.
const seed: OwnerSeed & Partial<Pick<SeedResult, 'report'>> = config.demoSeed
  ? await seedDemoWithProgress()
  : await ensureOwner(store, config.ownerEmail);
for (const failure of seed.report?.failed ?? []) logger.warn({ docId: failure.docId, reason: failure.reason }, 'page failed');
for (const skipped of seed.report?.skipped ?? []) logger.info({ docId: skipped.docId, reason: skipped.reason }, 'page skipped');

async function seedDemoWithProgress(): Promise<SeedResult> {
  const progress = createProgressBar(`Ingesting ${DEMO_KB_ID}`);
  try {
    return await seedDemo(store, { ownerEmail: config.ownerEmail, onProgress: (step) => progress.update(step) });
  } finally {
    progress.stop();
  }
}

// Every passage gets a vector of the current model, in the background: questions are answered from the
// start, each passage found by BM25F alone until its vector is stored. After a model change the other
// model's vectors are removed first, so two models' vectors never mix.
const embeddingPool = embedding.state === 'ready' ? createEmbeddingPool(embedding.model, embedding.folder, config.embeddingThreads) : undefined;
let sweeper: EmbeddingSweeper | undefined;
const pendingVectors = embedding.state === 'ready' ? await store.countPassagesWithoutVector(embedding.key) : 0;
if (embedding.state === 'ready' && embeddingPool) {
  const removed = await store.removeOtherModelVectors(embedding.key);
  if (removed > 0) logger.info({ vectors: removed, model: embedding.key }, 'removed the vectors of another embedding model');
  let reported = 0;
  sweeper = startEmbeddingSweeper(store, {
    modelKey: embedding.key,
    embed: (texts) => embeddingPool.embed(texts, 'passage'),
    // As many batches in flight as the pool has threads, so a shutdown waits for those alone.
    concurrency: config.embeddingThreads,
    onProgress: ({ done, total }) => {
      // A line at most every 10 s (and at the end) while a large sweep runs.
      if (done < total && Date.now() - reported < 10_000) return;
      reported = Date.now();
      logger.info({ done, total }, `embedding passages: ${done} of ${total}`);
    },
    onSweep: (report) => logger.info({ passages: report.embedded, cached: report.cached }, 'embedded passages'),
    onError: (error) => logger.error({ err: error }, 'passages could not be embedded; the next sweep tries again'),
  });
  sweeper.trigger();
}

const secret = await store.getOrCreateSetting('source_span_secret', () => randomBytes(32).toString('hex'));
const chat = config.llm
  ? createChatCompletionsClient({
      baseUrl: config.llm.baseUrl,
      model: config.llm.model,
      ...(config.llm.apiKey === undefined ? {} : { apiKey: config.llm.apiKey }),
      timeoutMs: config.llm.timeoutMs,
      maxTokens: config.llm.maxTokens,
    })
  : undefined;
const engine = createPooledAnswerEngine({
  location,
  abstentionThreshold: config.abstentionThreshold,
  threads: config.answerThreads,
  contentVersions: store,
  answerCacheSize: config.answerCacheSize,
  indexCachePostings: config.indexCachePostings,
  timeoutMs: config.retrievalTimeoutMs,
  chat,
  onRejectedAnswer: (rejection) => logger.info(rejection, 'generated answer withheld: it failed the grounding check'),
  onWorkerError: (error) => logger.error({ err: error }, 'answer worker failed; it is replaced'),
  ...(embedding.state === 'ready' ? { embedding: { model: embedding.model, folder: embedding.folder } } : {}),
});
// The question log: written off the request path, kept for its retention period (0: off).
const questionLog =
  config.questionLogRetentionDays === 0
    ? undefined
    : createQuestionLogWriter(store, { onError: (error) => logger.error({ err: error }, 'question log entries could not be written; they were dropped') });
const stopRetention = startQuestionLogRetention(store, {
  retentionDays: config.questionLogRetentionDays,
  now: Date.now,
  onError: (error) => logger.error({ err: error }, 'old question log entries could not be removed'),
});
const imports = new ImportJobs({ now: Date.now });
// An upload or import that ends is embedded at once, not at the next sweep.
imports.registry.subscribe({ started: () => undefined, ended: () => sweeper?.trigger() });
// Websites set up to be imported again: due syncs are claimed through the store, so replicas run each once.
const stopResync = startImportResync({ store, imports, allowPrivateAddresses: config.importAllowPrivateAddresses, now: Date.now }, (error) =>
  logger.error({ err: error }, 'due website re-syncs could not be started; the next check tries again'),
);
const app = createApp({
  store,
  imports,
  importAllowPrivateAddresses: config.importAllowPrivateAddresses,
  engine,
  ...(questionLog === undefined ? {} : { questionLog }),
  codec: createSourceSpanCodec(secret),
  logger,
  now: Date.now,
  rateLimitPerIp: config.rateLimitPerIp,
  rateLimitPerToken: config.rateLimitPerToken,
  trustedProxies: config.trustedProxies,
  // Replicas on one PostgreSQL share their rate-limit counts through it.
  sharedRateLimits: location.kind === 'postgres',
  maxStreamsPerToken: config.maxStreamsPerToken,
  maxStreamSeconds: config.maxStreamSeconds,
  widgetDistDir,
  tokenTtlCapMinutes: config.tokenTtlCapMinutes,
  retrieval: retrievalStatus(embedding),
});
const server = config.host === undefined ? app.listen(config.port) : app.listen(config.port, config.host);
await once(server, 'listening').catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') fail(`Port ${config.port} is already in use; set PORT to another port`);
  fail(`Cannot listen on port ${config.port}: ${error.message}`);
});
const { port } = server.address() as AddressInfo;
const baseUrl = `http://localhost:${port}`;

const demo =
  config.demoPort === 0 || !config.demoSeed
    ? undefined
    : startDemoServer({
        store,
        apiBaseUrl: baseUrl,
        port: config.demoPort,
        host: config.host,
        ownerId: seed.owner.id,
        kbId: DEMO_KB_ID,
        ttlCapMinutes: config.tokenTtlCapMinutes,
        now: Date.now,
        logger,
      });
if (demo) {
  await once(demo, 'listening').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') fail(`Port ${config.demoPort} is already in use; set KB_DEMO_PORT to another port, or to 0 to turn the demo page off`);
    fail(`Cannot listen on port ${config.demoPort} for the demo page: ${error.message}`);
  });
}
const demoUrl = demo ? `http://localhost:${(demo.address() as AddressInfo).port}` : undefined;

// Set only once the server listens, so a generated password is printed right
// after it is stored (a failed start leaves the owner without one, not with an unseen one).
const ownerPassword = await ensureOwnerPassword(store, seed.owner.id, config.ownerPassword);

const changed = seed.report === undefined ? 0 : seed.report.created.length + seed.report.updated.length;
process.stdout.write(
  [
    '',
    `kb-widget is serving ${baseUrl} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    `  data: ${location.kind === 'sqlite' ? config.dataDir : describeStoreLocation(location)}${changed > 0 ? ` (indexed ${changed} pages of ${DEMO_KB_ID})` : ''}`,
    `  owner: ${seed.owner.email}${seed.ownerCreated ? ' (created)' : ''}`,
    ...consoleLines(ownerPassword),
    `  answers: ${config.llm ? `written by "${config.llm.model}" at ${config.llm.baseUrl}, checked for grounding` : 'extractive'}`,
    `  retrieval: ${retrievalLine(retrievalStatus(embedding))}${pendingVectors > 0 ? ` (embedding ${pendingVectors} passages in the background; until all have their vectors, answers use BM25F alone)` : ''}`,
    `  widget: ${baseUrl}/widget/kb-widget.js${existsSync(join(widgetDistDir, 'kb-widget.js')) ? '' : ' (not built: run npm run build)'}`,
    ...(config.demoSeed ? demoLines() : ['  demo: off (KB_DEMO_SEED=off): no demo knowledge base or demo page; add your documents with npm run kb (docs/cli.md)', '']),
  ].join('\n'),
);

/** The banner's demo page line and the commands that ask the demo knowledge base a question. */
function demoLines(): string[] {
  return [
    demoUrl
      ? `  demo page: ${demoUrl}/ (its token allows only this origin; ${demoUrl.replace('localhost', '127.0.0.1')}/ shows a site that is not allowed)`
      : '  demo page: off (KB_DEMO_PORT=0)',
    '',
    'Get a widget token into $TOKEN (in another terminal, in this folder):',
    `  TOKEN=$(${tokenIssueCommand(DEMO_KB_ID, { location, dataDir: config.dataDir, projectDir: process.cwd(), demoPort: config.demoPort })} | tail -n 1)`,
    'Then ask a question with it (same terminal):',
    `  curl -s ${baseUrl}/kb-api/api/v1/kb/${DEMO_KB_ID}/widget/query \\`,
    '    -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\',
    `    -d '{"question":"How do I create a directory and its parent directories?"}'`,
    '',
  ];
}

/** The banner's retrieval line: hybrid with the model, else lexical only and why. */
function retrievalLine(status: RetrievalStatus): string {
  return status.mode === 'hybrid'
    ? `hybrid: BM25F and dense retrieval (${status.model}) fused`
    : `lexical only (BM25F): ${status.reason}`;
}

/**
 * How to sign in to the console. A generated password is written here, to
 * stdout, once - never through the logger.
 */
function consoleLines(outcome: OwnerPasswordOutcome): string[] {
  const email = seed.owner.email;
  const change = `npm run kb -- user password ${email}`;
  switch (outcome.kind) {
    case 'generated':
      return [
        `  console: ${baseUrl}/console, sign in as ${email} with password ${outcome.password}`,
        `    (shown only this once; change it with: ${change})`,
      ];
    case 'configured':
      return [`  console: ${baseUrl}/console, sign in as ${email} with the password of KB_OWNER_PASSWORD`];
    case 'unchanged':
      return [
        `  console: ${baseUrl}/console, sign in as ${email}` +
          (config.ownerPassword === undefined ? '' : ' (KB_OWNER_PASSWORD ignored: the owner already has a password)'),
        ...(config.ownerPassword === undefined ? [] : [`    (change it with: ${change})`]),
      ];
  }
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  server.closeIdleConnections();
  demo?.closeAllConnections();
  const closed = Promise.all([
    new Promise((resolve) => server.close(resolve)),
    demo ? new Promise((resolve) => demo.close(resolve)) : undefined,
  ]);
  setTimeout(() => server.closeAllConnections(), 5_000).unref();
  await closed;
  stopResync();
  // A running sweep ends after the batches in flight (ONNX Runtime must not be torn down mid-run); the passages left are embedded at the next start.
  await sweeper?.stop();
  await embeddingPool?.close();
  // A website import or upload still running (they share the imports' registry) stops with the process; its documents so far are stored, and running it again goes on from there (unchanged ones stay unchanged).
  await Promise.race([imports.registry.idle(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  stopRetention();
  await questionLog?.close();
  await engine.close();
  await store.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
