import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { describe, expect, onTestFinished, test } from 'vitest';
import { prepareSource, type PrepareTask, type PrepareWireResult } from './ingest/pipeline/prepare-worker.ts';
import { toWire } from './store/index/packed-index.ts';
import type { KnowledgeBase } from './store/store.ts';
import { workerModule } from './worker-module.ts';

const SITE: KnowledgeBase = { id: 'kb', name: 'Docs', createdAt: 0, urlStyle: 'pretty', anchorStyle: 'github' };

function markdownTask(text: string): PrepareTask {
  return {
    source: { kbId: 'kb', docId: 'guide/env.md', bytes: Buffer.from(text), visibility: 'public', readers: [], quotable: true },
    site: SITE,
    contentHash: 'hash',
  };
}

describe('workerModule', () => {
  test('a TypeScript entry becomes one plain JavaScript module that a worker runs without tsx, preparing a document as the calling thread does', async () => {
    // Arrange
    const module = workerModule(new URL('./ingest/pipeline/prepare-worker.ts', import.meta.url));
    const pool = new Piscina<PrepareTask, PrepareWireResult>({ filename: module.url.href, execArgv: module.execArgv, maxThreads: 1 });
    onTestFinished(() => pool.destroy());
    const task = markdownTask('---\ntitle: Environment variables\n---\n\nRead them from `process.env`.\n\n## Defaults\n\nSet a default with `??`.\n');

    // Act
    const inWorker = await pool.run(task);

    // Assert
    expect(module.url.pathname).toMatch(/\/node_modules\/\.cache\/kb-widget\/prepare-worker-[0-9a-f]{16}\.mjs$/);
    expect(module.execArgv).toEqual([]);
    const inThread = await prepareSource(task);
    expect(inThread.kind).toBe('prepared');
    expect(inWorker).toEqual(inThread.kind === 'prepared' ? { kind: 'prepared', input: toWire(inThread.input) } : inThread);
  });

  test('an entry with no node_modules to keep a bundle in is loaded through tsx, as before', async () => {
    // Arrange
    const folder = await mkdtemp(join(tmpdir(), 'kb-worker-module-test-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const entry = join(folder, 'worker.ts');
    await writeFile(entry, 'export default function double(value: number): number { return value * 2; }\n');

    // Act
    const module = workerModule(pathToFileURL(entry));
    const pool = new Piscina<number, number>({ filename: module.url.href, execArgv: module.execArgv, maxThreads: 1 });
    onTestFinished(() => pool.destroy());

    // Assert
    expect(module).toEqual({ url: pathToFileURL(entry), execArgv: ['--import', 'tsx'] });
    await expect(pool.run(21)).resolves.toBe(42);
  });

  test('a compiled JavaScript entry is used as it is', () => {
    // Arrange
    const entry = new URL('./ingest/pipeline/prepare-worker.js', import.meta.url);

    // Act
    const module = workerModule(entry);

    // Assert
    expect(module).toEqual({ url: entry, execArgv: [] });
  });
});
