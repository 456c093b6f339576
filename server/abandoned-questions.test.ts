import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import { ingestPaths } from './ingest/pipeline/ingest-files.ts';
import { createWidgetFixture, type WidgetFixture } from './testing/widget-fixture.ts';

/**
 * Abandoned questions (docs/http-api.md "Refused requests"): a visitor who posts a valid question and
 * closes the connection a few milliseconds later, again and again, once made
 * the server terminate and respawn an answer worker per question, leaking
 * file descriptors until it died of EMFILE. Cancellation is now cooperative
 * (engine/answer-pool.ts): the server's open files and threads come back to
 * where they were, and it keeps answering. On the test run's backend.
 */

/** Questions the Node.js docs answer, and the fixture's own guide does not (a second page answering alike would make the engine abstain). */
const QUESTIONS = [
  'How can I hash a string with sha256?',
  'How do I read a file line by line?',
  'How do I spawn a child process and read its output?',
  'How do I parse command line arguments?',
];

const NODE_DOCS = fileURLToPath(new URL('../demo/node-docs', import.meta.url));

let fixture: WidgetFixture;
let token: string;

beforeAll(async () => {
  fixture = await createWidgetFixture();
  // The bundled Node.js docs, so preparing an answer takes a few milliseconds
  // and most questions are abandoned while a worker is preparing them.
  await ingestPaths(fixture.store, { kbId: 'docs', paths: [NODE_DOCS], visibility: 'public', readers: [], quotable: true });
  ({ token } = await fixture.issue({ allowedOrigins: [] }));
}, 120_000);
afterAll(async () => {
  await fixture.close();
});

/** What this process (the server runs in it) holds, from Linux's /proc: open file descriptors, and its threads' ids. */
interface Resources {
  files: number;
  threads: string[];
}

async function processResources(): Promise<Resources> {
  const [files, threads] = await Promise.all([readdir('/proc/self/fd'), readdir('/proc/self/task')]);
  return { files: files.length, threads: threads.sort() };
}

/** Posts a valid question on a raw connection and closes it `afterMs` later, without reading the answer. */
async function abandonQuestion(path: 'query' | 'query/stream', question: string, afterMs: number): Promise<void> {
  const url = new URL(fixture.baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const body = JSON.stringify({ question });
  socket.write(
    `POST /kb-api/api/v1/kb/docs/widget/${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await sleep(afterMs);
  socket.destroy();
}

/** Asks a question normally; resolves to the status and whether the answer cited a source. */
async function ask(question: string): Promise<{ status: number; cited: boolean }> {
  const response = await fixture.post('query', { question }, { token });
  const body = (await response.json()) as { citations?: unknown[] };
  return { status: response.status, cited: (body.citations?.length ?? 0) > 0 };
}

/** Polls until `settled` holds or `timeoutMs` passes; returns the last resources read. */
async function settle(settled: (resources: Resources) => boolean, timeoutMs: number): Promise<Resources> {
  const deadline = Date.now() + timeoutMs;
  let resources = await processResources();
  while (!settled(resources) && Date.now() < deadline) {
    await sleep(100);
    resources = await processResources();
  }
  return resources;
}

test('2,000 questions abandoned 1-4 ms after they were sent, by 4 clients at once: open files return to their starting level, the same threads run (no answer worker was replaced), and the server keeps answering', async () => {
  // Warm up: workers started, store connections opened (as many as 4 clients at once need).
  for (let round = 0; round < 3; round += 1) {
    const answers = await Promise.all(QUESTIONS.map((question) => ask(question)));
    expect(answers).toEqual(QUESTIONS.map(() => ({ status: 200, cited: true })));
  }
  await sleep(200);
  const before = await processResources();

  let abandoned = 0;
  await Promise.all(
    Array.from({ length: 4 }, async (_, client) => {
      for (let index = client; index < 2_000; index += 4) {
        await abandonQuestion(index % 3 === 0 ? 'query/stream' : 'query', QUESTIONS[index % QUESTIONS.length]!, 1 + (index % 4));
        abandoned += 1;
      }
    }),
  );
  const after = await settle((resources) => resources.files <= before.files && resources.threads.length <= before.threads.length, 10_000);

  expect(abandoned).toBe(2_000);
  expect(after.threads).toEqual(before.threads);
  expect(after.files).toBeLessThanOrEqual(before.files);
  const answers = await Promise.all(QUESTIONS.map((question) => ask(question)));
  expect(answers).toEqual(QUESTIONS.map(() => ({ status: 200, cited: true })));
}, 120_000);
