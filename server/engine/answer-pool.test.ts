import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import type { AnswerEvent } from './answer-events.ts';
import { collectAnswer } from './answer-events.ts';
import { createPooledAnswerEngine, type PooledAnswerEngine } from './answer-pool.ts';
import { createChatCompletionsClient } from './generation/chat-completions-client.ts';
import { startFakeChatServer, type ChatScript, type FakeChatServer } from '../testing/fake-chat-server.ts';
import { DEFAULT_ABSTENTION_THRESHOLD } from './ranking/evidence.ts';
import { ingestPaths } from '../ingest/pipeline/ingest-files.ts';
import { openStore } from '../store/open-store.ts';
import { createTestStoreLocation } from '../testing/test-store.ts';
import type { ContentVersionRepository, Reach } from '../store/store.ts';

/**
 * The pooled engine with a chat model: a worker thread prepares the answer
 * over a real store (ingested through the real pipeline, on the test run's backend), the main
 * thread streams from a real HTTP server speaking the OpenAI protocol.
 */

const GUIDE = `# Guide

## Creating directories

Use \`mkdir\` with the \`recursive\` option to create a directory together with its missing parent directories.
Without the option, creating a nested directory fails when a parent directory does not exist.

## Reading files

Call \`readFile\` with a path and an encoding to read the whole file into a string.
`;

const REACH: Reach = { kbId: 'docs', userId: 'nobody', visibilities: ['public'] };
const QUESTION = 'How do I create a directory with its missing parents, and read a file?';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A temporary store (the test run's backend) with `guide.md` ingested from
 * `text`, removed after the test; `ingest` writes the file again and
 * re-ingests it.
 */
async function guideStore(text = GUIDE) {
  const folder = await mkdtemp(join(tmpdir(), 'kb-pool-test-'));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  const { location, dispose } = await createTestStoreLocation(folder);
  cleanups.push(dispose);
  const store = openStore(location);
  cleanups.push(() => store.close());
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  const guide = join(folder, 'guide.md');
  const ingest = async (markdown: string) => {
    await writeFile(guide, markdown);
    await ingestPaths(store, { kbId: 'docs', paths: [guide], visibility: 'public', readers: [], quotable: true });
  };
  await ingest(text);
  return { location, store, ingest };
}

/** A temporary store with `guide.md` ingested, a fake model running `script`, and the pooled engine over both. */
async function pooledEngineWith(script: ChatScript): Promise<{ engine: PooledAnswerEngine; server: FakeChatServer }> {
  const { location } = await guideStore();

  const server = await startFakeChatServer(script);
  cleanups.push(() => server.close());
  const engine = createPooledAnswerEngine({
    location,
    abstentionThreshold: DEFAULT_ABSTENTION_THRESHOLD,
    threads: 1,
    chat: createChatCompletionsClient({ baseUrl: server.baseUrl, model: 'fake-model', timeoutMs: 5_000 }),
  });
  cleanups.push(() => engine.close());
  return { engine, server };
}

/** The number the prompt gave the passage under `heading`, read from the request as a model would. */
function passageNumber(prompt: string, heading: string): number {
  const match = new RegExp(`^\\[(\\d+)\\] [^\\n]*${heading}$`, 'm').exec(prompt);
  if (!match) throw new Error(`No passage "${heading}" in the prompt`);
  return Number(match[1]);
}

describe('createPooledAnswerEngine with a chat model', () => {
  test('answerable question: prepared on a worker, streamed from the model, citations renumbered in order of use', async () => {
    let readingNumber = 0;
    const { engine, server } = await pooledEngineWith(async (request, reply) => {
      const prompt = request.body.messages?.find((message) => message.role === 'user')?.content ?? '';
      readingNumber = passageNumber(prompt, 'Reading files');
      const creating = passageNumber(prompt, 'Creating directories');
      reply.open();
      await reply.delta(`Read a whole file with \`readFile\` [${readingNumber}]. `);
      await reply.delta(`Use \`mkdir\` with the \`recursive\` option to create missing parent directories [${creating}].`);
      reply.finish();
    });
    const events: AnswerEvent[] = [];

    const answer = await collectAnswer(
      (async function* () {
        for await (const event of engine.answer({ question: QUESTION, reach: REACH })) {
          events.push(event);
          yield event;
        }
      })(),
    );

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body.messages?.[1]?.content).toContain(`Question: ${QUESTION}`);
    expect(answer.provenance).toBe('generated');
    expect(answer.answer).toBe(
      'Read a whole file with `readFile` [1]. Use `mkdir` with the `recursive` option to create missing parent directories [2].',
    );
    expect(answer.citations.map((citation) => [citation.index, citation.passage.headingPath.at(-1)])).toEqual([
      [1, 'Reading files'],
      [2, 'Creating directories'],
    ]);
    // BM25 ranks the directories passage first, so the model's markers changed: the text was sent again after a reset.
    expect(readingNumber).toBe(2);
    const types = events.map((event) => event.type);
    expect(types.includes('reset')).toBe(true);
    expect(types.indexOf('citations')).toBeGreaterThan(types.lastIndexOf('token'));
    expect(types.at(-1)).toBe('done');
  });

  test('model citing a passage it was not given: abstains after the streamed tokens', async () => {
    const { engine } = await pooledEngineWith(async (_request, reply) => {
      reply.open();
      await reply.delta('Use `mkdir` with the `recursive` option [9].');
      reply.finish();
    });

    const events: AnswerEvent[] = [];
    for await (const event of engine.answer({ question: QUESTION, reach: REACH })) events.push(event);

    expect(events.map((event) => event.type)).toEqual(['token', 'abstain', 'done']);
    expect(events.at(-1)).toEqual({ type: 'done', abstained: true, provenance: 'abstained' });
  });

  test('question the knowledge base has no evidence for: abstains in the worker, the model is never asked', async () => {
    const { engine, server } = await pooledEngineWith(async (_request, reply) => {
      reply.open();
      reply.finish();
    });

    const answer = await collectAnswer(engine.answer({ question: 'Which penguins live in Antarctica?', reach: REACH }));

    expect(answer).toMatchObject({ abstained: true, provenance: 'abstained' });
    expect(server.requests).toEqual([]);
  });

  test('asker gone while the model streams: no done, and the model request is closed', async () => {
    const { engine, server } = await pooledEngineWith(async (_request, reply) => {
      reply.open();
      await reply.delta('Use `mkdir`');
      await delay(2_000);
      reply.finish();
    });
    const controller = new AbortController();
    const events: AnswerEvent[] = [];

    for await (const event of engine.answer({ question: QUESTION, reach: REACH, signal: controller.signal })) {
      events.push(event);
      controller.abort();
    }

    expect(events).toEqual([{ type: 'token', text: 'Use `mkdir`' }]);
    const closed = await Promise.race([server.requests[0]!.closedEarly.then(() => true), delay(1_000, false)]);
    expect(closed).toBe(true);
  });
});

describe('createPooledAnswerEngine with an answer cache', () => {
  const QUESTION_ASKED = 'How do I create a directory with its missing parent directories?';
  const CHANGED_GUIDE = GUIDE.replace('Use `mkdir` with the `recursive` option', 'Run `mkdirp` from the toolbox');

  /** A temporary store with `guide.md` ingested and the pooled engine over it, its answer cache reading versions from `versions` (default: the store). */
  async function cachedEngine(versions?: ContentVersionRepository) {
    const { location, store, ingest } = await guideStore();
    const engine = createPooledAnswerEngine({ location, abstentionThreshold: DEFAULT_ABSTENTION_THRESHOLD, threads: 1, contentVersions: versions ?? store });
    cleanups.push(() => engine.close());
    const ask = (reach: Reach = REACH) => collectAnswer(engine.answer({ question: QUESTION_ASKED, reach }));
    return { store, ingest, ask };
  }

  test('a document changed, made restricted, or a curated answer added: the next answer reflects it at once', async () => {
    const { store, ingest, ask } = await cachedEngine();

    const first = await ask();
    const again = await ask();
    await ingest(CHANGED_GUIDE);
    const afterEdit = await ask();
    await store.replaceFaq('docs', [{ question: QUESTION_ASKED, answer: 'See the guide.', sources: [{ docId: 'guide.md' }] }]);
    const afterCurated = await ask();
    await store.setDocumentAccess('docs', 'guide.md', { visibility: 'restricted', readers: [], quotable: true });
    const afterRestricted = await ask();

    expect(first.answer).toContain('`recursive`');
    expect(again).toEqual(first);
    expect(afterEdit.answer).toContain('`mkdirp`');
    expect(afterEdit.answer).not.toContain('`recursive`');
    expect(afterCurated).toMatchObject({ answer: 'See the guide.', provenance: 'qa_shortcut' });
    expect(afterRestricted).toMatchObject({ abstained: true, citations: [] });
  });

  test('the same question at the same content version: the kept answer, not prepared again; another reach or version: prepared afresh', async () => {
    // The versions the cache reads, held still while the store changes behind them.
    let version = 'v1';
    const { ingest, ask } = await cachedEngine({ contentVersion: () => Promise.resolve(version) });

    const first = await ask();
    await ingest(CHANGED_GUIDE);
    const kept = await ask();
    const otherReader = await ask({ ...REACH, userId: 'someone-else' });
    version = 'v2';
    const afterVersion = await ask();

    expect(first.answer).toContain('`recursive`');
    expect(kept).toEqual(first);
    expect(otherReader.answer).toContain('`mkdirp`');
    expect(afterVersion.answer).toContain('`mkdirp`');
  });
});
