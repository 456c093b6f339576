import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import type { Problem } from '../protocol/query-protocol.ts';
import { createApp } from './app.ts';
import { issueToken } from './auth/widget-tokens.ts';
import { createPooledAnswerEngine, type PooledAnswerEngine } from './engine/answer-pool.ts';
import { createSourceSpanCodec } from './api/source-span.ts';
import { INGEST_BATCH_DOCUMENTS } from './ingest/pipeline/ingest-files.ts';
import { ingestSource } from './ingest/pipeline/ingest-source.ts';
import { openStore, type StoreLocation } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import { readFrames } from './testing/read-frames.ts';
import { startTcpProxy, type TcpProxy } from './testing/tcp-proxy.ts';
import { openTestStore, testBackend, type TestStore } from './testing/test-store.ts';
import { createLexicalRetriever } from './retrieval/lexical-retriever.ts';

/**
 * Faults (docs/operations.md "Running several replicas"): the database unreachable under load (PostgreSQL behind a
 * TCP proxy the test cuts and restores, as a stopped and restarted server
 * looks to its clients), and a crash in the middle of an ingest (the CLI
 * killed with SIGKILL), on both backends.
 */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const KB_ID = 'docs';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A page whose three sections each name `marker`, so a question about the marker finds it. */
function page(index: number, marker: string): string {
  return [
    `# Topic ${index}`,
    '',
    `## Setup of ${marker}`,
    '',
    `To set up the ${marker} module, run the installer with the ${marker} flag and wait for it to finish.`,
    '',
    `## Usage of ${marker}`,
    '',
    `The ${marker} module reads its settings from a file named after ${marker} in the working folder.`,
    '',
    `## Troubleshooting ${marker}`,
    '',
    `When ${marker} reports an error, check the log written beside the ${marker} settings file.`,
    '',
  ].join('\n');
}

async function seed(store: Store, pages: number, version: string): Promise<string> {
  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  await store.createKnowledgeBase({ id: KB_ID, name: 'Docs' });
  await store.setRole(KB_ID, owner.id, 'owner');
  for (let index = 0; index < pages; index += 1) {
    await ingestSource(store, {
      kbId: KB_ID,
      docId: `topic-${index}.md`,
      bytes: Buffer.from(page(index, `${version}${index}`)),
      visibility: 'public',
      readers: [],
      quotable: true,
    });
  }
  return owner.id;
}

/** The proxied location: the same database and schema, reached through `proxy`. */
function throughProxy(location: StoreLocation, proxy: TcpProxy, timeouts: { connectionTimeoutMs?: number; queryTimeoutMs?: number } = {}): StoreLocation {
  if (location.kind !== 'postgres') throw new Error('PostgreSQL only');
  const url = new URL(location.url);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { ...location, url: url.toString(), connectionTimeoutMs: 3000, maxConnections: 10, ...timeouts };
}

interface Service {
  baseUrl: string;
  token: string;
  store: Store;
  engine: PooledAnswerEngine;
}

async function startService(
  storeLocation: StoreLocation,
  engineLocation: StoreLocation,
  ownerId: string,
  engineTimeoutMs?: number,
): Promise<Service> {
  const store = openStore(storeLocation);
  cleanups.push(() => store.close());
  const engine = createPooledAnswerEngine({
    location: engineLocation,
    abstentionThreshold: 0.5,
    threads: 1,
    ...(engineTimeoutMs === undefined ? {} : { timeoutMs: engineTimeoutMs }),
  });
  cleanups.push(() => engine.close());
  const { token } = await issueToken(store, { kbId: KB_ID, issuerId: ownerId, allowedOrigins: [] }, { ttlCapMinutes: 60, now: Date.now() });
  const app = createApp({
    store,
    engine,
    codec: createSourceSpanCodec('faults-test-secret-0123456789abcdef'),
    logger: pino({ level: 'silent' }),
    now: Date.now,
    rateLimitPerIp: 1_000_000,
    rateLimitPerToken: 1_000_000,
    trustedProxies: 0,
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/kb-api/api/v1/kb/${KB_ID}/widget`, token, store, engine };
}

/** What one request got: a status, and for a stream its frames' types, or for a problem its code and Retry-After. */
interface Outcome {
  /** When the request was sent and when its answer ended, epoch ms. */
  at: number;
  end?: number;
  kind: 'json' | 'stream';
  status: number;
  code?: string;
  retryAfter?: string | null;
  detail?: string;
  frames?: string[];
  cited?: boolean;
}

async function request(service: Service, kind: 'json' | 'stream', index: number): Promise<Outcome> {
  const outcome = await requestOnce(service, kind, index);
  return { ...outcome, end: Date.now() };
}

async function requestOnce(service: Service, kind: 'json' | 'stream', index: number): Promise<Outcome> {
  const at = Date.now();
  const response = await fetch(`${service.baseUrl}/${kind === 'json' ? 'query' : 'query/stream'}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${service.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question: `How do I set up the v${index % 20} module?` }),
    signal: AbortSignal.timeout(15_000),
  });
  if (response.headers.get('content-type')?.includes('application/problem+json')) {
    { const problem = (await response.json()) as Problem; return { at, kind, status: response.status, code: problem.code, retryAfter: response.headers.get('retry-after'), detail: problem.detail }; }
  }
  if (kind === 'json') {
    const body = (await response.json()) as { citations: unknown[] };
    return { at, kind, status: response.status, cited: body.citations.length > 0 };
  }
  const frames = (await readFrames(response)).map(({ frame }) => (frame.type === 'error' ? `error:${frame.code}` : frame.type));
  return { at, kind, status: response.status, frames };
}

/** Runs `clients` concurrent request loops until `stop()`; returns every outcome. `outcomes` grows as answers end. */
function load(service: Service, clients: number): { outcomes: readonly Outcome[]; stop(): Promise<Outcome[]> } {
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let index = client; running; index += clients) {
      outcomes.push(await request(service, client % 3 === 0 ? 'stream' : 'json', index));
    }
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

describe.skipIf(testBackend() !== 'postgres')('PostgreSQL unreachable under load', () => {
  test('cut under load: every request gets 503 unavailable with Retry-After or a stream ending in one error frame, never a 500 or a hang; restored: answers again without a restart, and every acknowledged document is whole', async () => {
    const opened: TestStore = await openTestStore();
    cleanups.push(() => opened.close());
    const ownerId = await seed(opened.store, 20, 'v');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL((opened.location as { url: string }).url).port || 5432) });
    cleanups.push(() => proxy.close());
    const proxied = throughProxy(opened.location, proxy);
    const service = await startService(proxied, proxied, ownerId);

    // Writers through the proxied store, across the outage: each document acknowledged or refused.
    const acknowledged: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let index = 0; writing; index += 1) {
        const docId = `written-${index}.md`;
        try {
          await ingestSource(service.store, { kbId: KB_ID, docId, bytes: Buffer.from(page(1000 + index, `w${index}`)), visibility: 'public', readers: [], quotable: true });
          acknowledged.push(docId);
        } catch {
          await sleep(50);
        }
      }
    })();

    const traffic = load(service, 6);
    // Under way before the cut: every client answered at least once (however busy the machine).
    for (let waited = 0; traffic.outcomes.length < 12 && waited < 20_000; waited += 100) await sleep(100);
    const cutAt = Date.now();
    await proxy.cut();
    await sleep(2500);
    const restoredAt = Date.now();
    await proxy.restore();
    await sleep(4000);
    const outcomes = await traffic.stop();
    writing = false;
    await writer;

    const before = outcomes.filter((outcome) => outcome.end! < cutAt);
    const during = outcomes.filter((outcome) => outcome.at > cutAt && outcome.end! < restoredAt);
    const recovered = outcomes.filter((outcome) => outcome.at > restoredAt + 2500);
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((outcome) => outcome.status !== 200)).toEqual([]);
    expect(during.length).toBeGreaterThan(0);
    for (const outcome of during) {
      if (outcome.status === 200) {
        // A stream opened before the cut: exactly one terminal frame, last.
        expect(outcome.kind).toBe('stream');
        expect(outcome.frames!.filter((frame) => frame === 'done' || frame.startsWith('error:'))).toHaveLength(1);
        expect(['done', 'error:upstream_unavailable']).toContain(outcome.frames!.at(-1));
      } else {
        expect({ status: outcome.status, code: outcome.code, retryAfter: Number(outcome.retryAfter) > 0 }).toEqual({
          status: 503,
          code: 'unavailable',
          retryAfter: true,
        });
      }
    }
    expect(outcomes.some((outcome) => outcome.status === 500 || outcome.code === 'internal')).toBe(false);
    expect(recovered.length).toBeGreaterThan(0);
    expect(recovered.every((outcome) => outcome.status === 200 && (outcome.kind === 'stream' ? outcome.frames!.at(-1) === 'done' : outcome.cited))).toBe(true);

    // No lost or half-written document: every acknowledged one is whole; any other is absent or whole.
    expect(acknowledged.length).toBeGreaterThan(0);
    const documents = await opened.store.listDocuments(KB_ID);
    const byId = new Map(documents.map((document) => [document.docId, document]));
    for (const docId of acknowledged) expect(byId.get(docId)?.chunkCount, docId).toBe(3);
    for (const document of documents) {
      expect(document.chunkCount, document.docId).toBe(3);
      expect(await opened.store.passagesOf({ kbId: KB_ID, userId: '', visibilities: ['public'] }, document.docId)).toHaveLength(3);
    }
  }, 60_000);

  test('the answer workers lose the database while the token check still reaches it: open streams end with one error frame upstream_unavailable, JSON gets 503', async () => {
    const opened: TestStore = await openTestStore();
    cleanups.push(() => opened.close());
    const ownerId = await seed(opened.store, 3, 'v');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL((opened.location as { url: string }).url).port || 5432) });
    cleanups.push(() => proxy.close());
    const service = await startService(opened.location, throughProxy(opened.location, proxy), ownerId);
    expect((await request(service, 'stream', 1)).frames?.at(-1)).toBe('done');

    await proxy.cut();
    const stream = await request(service, 'stream', 1);
    const json = await request(service, 'json', 1);
    await proxy.restore();

    expect(stream).toMatchObject({ status: 200, frames: ['error:upstream_unavailable'] });
    expect(json).toMatchObject({ status: 503, code: 'unavailable' });
  }, 30_000);
});

describe.skipIf(testBackend() !== 'postgres')('PostgreSQL silent (connections open, no bytes back)', () => {
  test('every request during the silence gets 503 unavailable with Retry-After (a stream: one error frame) within the configured timeout, none hangs; afterwards the service answers again without a restart', async () => {
    const opened: TestStore = await openTestStore();
    cleanups.push(() => opened.close());
    const ownerId = await seed(opened.store, 20, 'v');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL((opened.location as { url: string }).url).port || 5432) });
    cleanups.push(() => proxy.close());
    const timeoutMs = 1_500;
    const silenceable = throughProxy(opened.location, proxy, { connectionTimeoutMs: timeoutMs, queryTimeoutMs: timeoutMs });
    const service = await startService(silenceable, silenceable, ownerId, timeoutMs);
    const warm = await Promise.all([0, 1, 2, 3, 4, 5].map((index) => request(service, index % 3 === 0 ? 'stream' : 'json', index)));
    expect(warm.map((outcome) => outcome.status)).toEqual([200, 200, 200, 200, 200, 200]);

    proxy.silence();
    // Six clients at once, then each asks again as soon as it is answered, for 4 s.
    const silentUntil = Date.now() + 4_000;
    const during = (
      await Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (client) => {
          const outcomes: Outcome[] = [];
          for (let index = client; Date.now() < silentUntil; index += 6) outcomes.push(await request(service, client % 3 === 0 ? 'stream' : 'json', index));
          return outcomes;
        }),
      )
    ).flat();
    await proxy.restore();
    let recovered: Outcome | undefined;
    for (let attempt = 0; attempt < 40 && recovered?.status !== 200; attempt += 1) {
      recovered = await request(service, 'json', attempt);
      if (recovered.status !== 200) await sleep(250);
    }

    expect(during.length).toBeGreaterThanOrEqual(12);
    for (const outcome of during) {
      expect(outcome.end! - outcome.at, 'answered within the timeout, plus scheduling slack').toBeLessThan(timeoutMs + 1_000);
      if (outcome.kind === 'stream' && outcome.status === 200) {
        expect(outcome.frames).toEqual(['error:upstream_unavailable']);
      } else {
        expect({ status: outcome.status, code: outcome.code, retryAfter: Number(outcome.retryAfter) > 0 }).toEqual({
          status: 503,
          code: 'unavailable',
          retryAfter: true,
        });
      }
    }
    expect(recovered).toMatchObject({ status: 200, cited: true });
    expect((await request(service, 'stream', 3)).frames?.at(-1)).toBe('done');
  }, 60_000);
});

describe('a crash in the middle of an ingest', () => {
  test(`the CLI killed with SIGKILL while re-ingesting two batches of pages (${2 * INGEST_BATCH_DOCUMENTS}): every page is whole at its previous or its new version, and each is answerable`, async () => {
    const opened: TestStore = await openTestStore();
    cleanups.push(() => opened.close());
    // Two transactions' worth, so that the crash can come between them.
    const pages = 2 * INGEST_BATCH_DOCUMENTS;
    await seed(opened.store, pages, 'old');
    const folder = join(opened.folder, 'sources');
    await mkdir(folder);
    for (let index = 0; index < pages; index += 1) await writeFile(join(folder, `topic-${index}.md`), page(index, `new${index}`));
    const originalHashes = new Map((await opened.store.listDocuments(KB_ID)).map((document) => [document.docId, document.contentHash]));
    const location = opened.location;
    const env: Record<string, string> =
      location.kind === 'postgres'
        ? { DATABASE_URL: location.url, ...(location.schema === undefined ? {} : { KB_PG_SCHEMA: location.schema }) }
        : { KB_DATA_DIR: opened.folder, DATABASE_URL: '' };

    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'ingest', folder, '--kb', KB_ID], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const exited = once(child, 'exit');
    let updated = 0;
    while (child.exitCode === null && updated < 10) {
      updated = (await opened.store.listDocuments(KB_ID)).filter((document) => document.contentHash !== originalHashes.get(document.docId)).length;
      await sleep(5);
    }
    child.kill('SIGKILL');
    await exited;

    const documents = await opened.store.listDocuments(KB_ID);
    const changed = documents.filter((document) => document.contentHash !== originalHashes.get(document.docId)).length;
    expect(documents).toHaveLength(pages);
    expect(changed, 'the crash came before the ingest finished').toBeGreaterThan(0);
    expect(changed).toBeLessThan(pages);
    const reach = { kbId: KB_ID, userId: '', visibilities: ['public'] as const };
    for (const document of documents) {
      const version = document.contentHash === originalHashes.get(document.docId) ? 'old' : 'new';
      const index = document.docId.replace(/\D/g, '');
      const passages = await opened.store.passagesOf({ ...reach, visibilities: ['public'] }, document.docId);
      expect(passages.map((passage) => passage.text.includes(`${version}${index}`)), document.docId).toEqual([true, true, true]);
      const found = await createLexicalRetriever(opened.store).search({ reach: { ...reach, visibilities: ['public'] }, terms: [`${version}${index}`], topK: 3 });
      expect(found.passages.map((passage) => passage.docId), document.docId).toEqual([document.docId, document.docId, document.docId]);
    }
  }, 120_000);
});
