import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import express from 'express';
import { pino } from 'pino';
import { createApp } from '../server/app.ts';
import { createSourceSpanCodec } from '../server/engine/source-span.ts';
import { embeddedStoreLocation, openStore } from '../server/store/open-store.ts';
import { createPooledAnswerEngine } from '../server/engine/answer-pool.ts';

/**
 * The process under load in `npm run bench`: the real app on the store in
 * `argv[2]`, and beside it the baseline, an Express app answering every query
 * with a constant answer (JSON and SSE) and no engine. It reports its
 * event-loop delay over IPC, so the load generator's own work is not counted.
 */
const dataDir = process.argv[2]!;
const location = embeddedStoreLocation(dataDir);
const store = openStore(location);
const engine = createPooledAnswerEngine({ location, abstentionThreshold: 0.5, threads: availableParallelism() });
const app = createApp({
  store,
  engine,
  codec: createSourceSpanCodec('bench-secret-0123456789abcdef0123456789'),
  logger: pino({ level: 'silent' }),
  now: Date.now,
  rateLimitPerIp: 1_000_000_000,
  rateLimitPerToken: 1_000_000_000,
  trustedProxies: 0,
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
  } else if (message.type === 'stop') {
    appServer.closeAllConnections();
    baselineServer.closeAllConnections();
    appServer.close();
    baselineServer.close();
    void Promise.all([engine.close(), store.close()]).then(() => process.exit(0));
  }
});
process.send!({
  type: 'ready',
  appPort: (appServer.address() as AddressInfo).port,
  baselinePort: (baselineServer.address() as AddressInfo).port,
});
