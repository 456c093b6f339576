import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { QueryResponse, StreamFrame } from '../protocol/query-protocol.ts';
import { readFrames } from '../server/testing/read-frames.ts';
import { askAsPrinted, issueTokenAsPrinted, startServer, stopServer } from './start-server.ts';

/**
 * The README's journey (its Quick start and Ask a question), as a new user runs it: `npm start` on an empty data
 * folder, a token from `npm run --silent kb -- token issue`, then questions
 * on both endpoints; then a second start that reuses the store.
 */
let dataDir: string;
let server: ChildProcess | undefined;
let baseUrl: string;
let token: string;
let firstStartOutput: string;

const DIRECTORY_QUESTION = 'How do I create a directory and its parent directories?';
const CAPITAL_QUESTION = 'What is the capital of Australia?';

/** Starts `npm start` on the test's data folder (no demo page: only the API matters here). */
async function start(): Promise<{ process: ChildProcess; url: string; output: string }> {
  const started = await startServer({ PORT: '0', KB_DEMO_PORT: '0', KB_DATA_DIR: dataDir });
  return { process: started.process, url: started.apiUrl, output: started.output };
}

function post(path: string, question: string): Promise<Response> {
  return fetch(`${baseUrl}/kb-api/api/v1/kb/node-docs/widget/${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question }),
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'kb-e2e-'));
  const started = await start();
  server = started.process;
  baseUrl = started.url;
  firstStartOutput = started.output;
  // The banner's token command, run as printed in another terminal: a shell in the project folder without this server's variables.
  token = await issueTokenAsPrinted(firstStartOutput);
}, 120_000);

afterAll(async () => {
  await stopServer(server);
  await rm(dataDir, { recursive: true, force: true });
});

describe('a new user after npm install && npm start', () => {
  test('first start: seeds node-docs from the bundled pages and prints a token command that works as printed (its data folder included)', () => {
    expect(firstStartOutput).toMatch(/indexed 64 pages of node-docs/);
    expect(firstStartOutput).toContain(`KB_DATA_DIR=${dataDir} npm run --silent kb -- token issue --kb node-docs`);
    expect(token).toMatch(/^kbw_/);
  });

  test("the banner's two commands pasted in order into another terminal: the token goes into $TOKEN and the question gets a cited answer", async () => {
    const answer = JSON.parse(await askAsPrinted(firstStartOutput)) as { answer: string; abstained: boolean; citations: unknown[] };

    expect(answer.abstained).toBe(false);
    expect(answer.citations.length).toBeGreaterThan(0);
    expect(answer.answer).toContain('mkdir');
  });

  test('GET /healthz: ok', async () => {
    expect(await (await fetch(`${baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  test('directory question, JSON: names the recursive option and cites the fs page', async () => {
    const body = (await (await post('query', DIRECTORY_QUESTION)).json()) as QueryResponse;

    expect(body.provenance).toBe('generated');
    expect(body.answer).toContain('`recursive`');
    expect(body.citations.map((citation) => citation.doc_id)).toContain('fs.md');
  });

  test('capital of Australia, JSON: 200, abstained', async () => {
    const response = await post('query', CAPITAL_QUESTION);

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ abstained: true, provenance: 'abstained', citations: [] });
  });

  test('both questions on the stream: same answer and citations as JSON, ending in done, type equal to event', async () => {
    for (const question of [DIRECTORY_QUESTION, CAPITAL_QUESTION]) {
      const json = (await (await post('query', question)).json()) as QueryResponse;
      const frames = await readFrames(await post('query/stream', question));

      let text = '';
      let citations: unknown[] = [];
      for (const { event, frame } of frames) {
        expect(frame.type).toBe(event);
        if (frame.type === 'token') text += frame.text;
        if (frame.type === 'abstain') text = frame.answer;
        if (frame.type === 'citations') citations = frame.citations.map(({ text: _quote, ...citation }) => citation);
      }
      expect(text).toBe(json.answer);
      expect(citations).toEqual(json.citations);
      expect(frames.at(-1)!.frame).toEqual<StreamFrame>({ type: 'done', abstained: json.abstained, provenance: json.provenance });
    }
  });

  test('second start on the same data folder: nothing re-indexed, ready within seconds', async () => {
    await stopServer(server);
    const startedAt = Date.now();
    const restarted = await start();
    server = restarted.process;
    baseUrl = restarted.url;

    expect(restarted.output).not.toMatch(/indexed \d+ pages/);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect((await post('query', DIRECTORY_QUESTION)).status).toBe(200);
  }, 60_000);
});
