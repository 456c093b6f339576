import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { QueryResponse } from '../protocol/query-protocol.ts';
import { defaultModel, networkFiles } from '../server/embedding/model-manifest.ts';
import { issueTokenAsPrinted, startServer, stopServer } from './start-server.ts';

/**
 * `npm start` where no source of the embedding model can be reached (an
 * empty model cache, the hub and the package index unreachable) and the
 * hand-prepared folder holds a tampered file: the server refuses the file,
 * starts all the same, answers with lexical retrieval, and says so in its
 * banner, `/readyz` and `/metrics`.
 */
const model = defaultModel();
/** The model's weights: model.onnx, or model.onnx_data beside a bundled graph. */
const weights = networkFiles(model)[0]!;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
let folder: string;
let server: ChildProcess | undefined;
let baseUrl: string;
let output: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kb-e2e-no-model-'));
  const modelDir = join(folder, 'prepared-by-hand');
  await mkdir(modelDir);
  await writeFile(join(modelDir, weights.name), 'these are not the pinned weights');
  await writeFile(join(modelDir, 'tokenizer.json'), '{}');
  const started = await startServer({
    PORT: '0',
    KB_DEMO_PORT: '0',
    KB_DATA_DIR: join(folder, 'data'),
    KB_EMBEDDING: 'on',
    KB_MODEL_CACHE: join(folder, 'empty-model-cache'),
    // Port 9 (discard) on the loopback: nothing listens there, so both network sources are refused at once.
    HF_ENDPOINT: 'http://127.0.0.1:9',
    KB_MODEL_INDEX_URL: 'http://127.0.0.1:9/simple',
    KB_MODEL_DIR: modelDir,
  });
  server = started.process;
  baseUrl = started.apiUrl;
  output = started.output;
}, 120_000);

afterAll(async () => {
  await stopServer(server);
  await rm(folder, { recursive: true, force: true });
});

describe('npm start without a verified embedding model', () => {
  test('the banner says retrieval is lexical only and why, naming the refused file', () => {
    const file = escape(weights.name);
    expect(output).toMatch(new RegExp(`retrieval: lexical only \\(BM25F\\): the embedding model is unavailable: No source could provide model file "${file}"`));
    expect(output).toMatch(new RegExp(`KB_MODEL_DIR: Model file "${file}" from .*prepared-by-hand/${file} has sha256 [0-9a-f]{64}, not the ${weights.sha256.slice(0, 8)}`));
  });

  test('/readyz is ready and says lexical, /metrics exports the mode', async () => {
    const ready = (await (await fetch(`${baseUrl}/readyz`)).json()) as { status: string; retrieval: { mode: string; reason: string } };
    expect(ready.status).toBe('ready');
    expect(ready.retrieval.mode).toBe('lexical');
    expect(ready.retrieval.reason).toContain('the embedding model is unavailable');

    const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^kb_retrieval_info\\{mode="lexical",model="${escape(`${model.id} (${model.variant})`)}"\\} 1$`, 'm'));
  });

  test('answers a question from the docs all the same, lexically, with a citation', async () => {
    const token = await issueTokenAsPrinted(output);

    const response = await fetch(`${baseUrl}/kb-api/api/v1/kb/node-docs/widget/query`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ question: 'How do I create a directory and its parent directories?' }),
    });
    const body = (await response.json()) as QueryResponse;
    expect(body.abstained).toBe(false);
    expect(body.citations.map((citation) => citation.doc_id)).toContain('fs.md');
  });
});
