import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { findCitationMarkers } from '../../protocol/citation-markers.ts';
import { ABSTENTION_MESSAGE } from './abstention.ts';
import { createAnswerEngine, MAX_REPLY_CHARACTERS, type AnswerEngine, type AnswerSources } from './answer-engine.ts';
import { collectAnswer, type AnswerEvent } from './answer-events.ts';
import { createChatCompletionsClient } from './generation/chat-completions-client.ts';
import { completionChunk, replyWith, startFakeChatServer, type ChatScript, type FakeChatServer } from '../testing/fake-chat-server.ts';
import { GenerationError } from '../errors.ts';
import type { SearchResult } from '../retrieval/retriever.ts';
import type { FaqPair, Reach, ScoredPassage } from '../store/store.ts';

/**
 * The engine with a chat model: a real HTTP server speaking the OpenAI
 * streaming protocol stands in for the model, a fake store for retrieval.
 */

const REACH: Reach = { kbId: 'docs', userId: 'user-1', visibilities: ['public'] };
const QUESTION = 'How do I create a directory with its missing parents?';

function passageOf(chunkId: number, headingPath: string[], text: string, score: number): ScoredPassage {
  return { chunkId, kbId: 'docs', docId: 'guide.md', title: 'Guide', headingPath, text, quotable: true, contentHash: 'hash', score };
}

const DIRECTORIES = passageOf(
  1,
  ['Guide', 'Creating directories'],
  'Use `mkdir` with the `recursive` option to create a directory together with its missing parent directories.',
  6,
);
const FILES = passageOf(
  2,
  ['Guide', 'Reading files'],
  'Call `readFile` with a path and an encoding to read the whole file into a string.',
  3,
);
const STREAMS = passageOf(3, ['Guide', 'Streams'], 'A stream moves data in chunks. Backpressure pauses a fast writer.', 1);
const PASSAGES = [DIRECTORIES, FILES, STREAMS];

/** A store holding only what the engine reads: curated pairs and one search result. */
function storeWith(passages: ScoredPassage[], faq: FaqPair[] = []): AnswerSources {
  const search: SearchResult = {
    passages,
    passageCount: 20,
    documentFrequencies: { creat: 2, directori: 2, miss: 1, parent: 1 },
  };
  return {
    store: {
      listFaq: async () => faq,
      passagesOf: async (_reach, docId) => passages.filter((passage) => passage.docId === docId),
      countPassages: async (_reach, docId) => passages.filter((passage) => passage.docId === docId).length,
    },
    retriever: { search: async () => search },
  };
}

let servers: FakeChatServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

/** An engine over PASSAGES whose chat model is a fake server running `script`. */
async function engineWith(
  script: ChatScript,
  options: { passages?: ScoredPassage[]; faq?: FaqPair[]; timeoutMs?: number } = {},
): Promise<{ engine: AnswerEngine; server: FakeChatServer }> {
  const server = await startFakeChatServer(script);
  servers.push(server);
  const chat = createChatCompletionsClient({ baseUrl: server.baseUrl, model: 'fake-model', timeoutMs: options.timeoutMs ?? 5_000 });
  // Threshold 0: every retrieved answer goes to the model, whatever the evidence calibration.
  const engine = createAnswerEngine({ ...storeWith(options.passages ?? PASSAGES, options.faq), abstentionThreshold: 0, chat });
  return { engine, server };
}

async function eventsOf(events: AsyncIterable<AnswerEvent>): Promise<{ events: AnswerEvent[]; error?: unknown }> {
  const seen: AnswerEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen };
  } catch (error) {
    return { events: seen, error };
  }
}

function tokenText(events: readonly AnswerEvent[]): string {
  return events.map((event) => (event.type === 'token' ? event.text : '')).join('');
}

function typesOf(events: readonly AnswerEvent[]): string[] {
  return events.map((event) => event.type).filter((type, position, types) => type !== 'token' || types[position - 1] !== 'token');
}

const GROUNDED = ['Use `mkdir` with the ', '`recursive` option to ', 'create the missing parent ', 'directories [1].'];

describe('AnswerEngine.answer with a chat model', () => {
  test('grounded answer: tokens as they arrive, then citations, then done(generated)', async () => {
    const { engine } = await engineWith(replyWith(GROUNDED));

    const { events, error } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(error).toBeUndefined();
    // One token per delta; trailing whitespace waits for the next delta.
    expect(events.filter((event) => event.type === 'token').map((event) => (event as { text: string }).text)).toEqual([
      'Use `mkdir` with the',
      ' `recursive` option to',
      ' create the missing parent',
      ' directories [1].',
    ]);
    expect(typesOf(events)).toEqual(['token', 'citations', 'suggestions', 'done']);
    expect(events.find((event) => event.type === 'citations')).toEqual({
      type: 'citations',
      citations: [{ index: 1, passage: DIRECTORIES }],
    });
    expect(events.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
  });

  test('grounded answer: the collected (JSON) answer is the streamed text with its citations', async () => {
    const { engine } = await engineWith(replyWith(GROUNDED));

    const answer = await collectAnswer(engine.answer({ question: QUESTION, reach: REACH }));

    expect(answer).toMatchObject({
      answer: GROUNDED.join(''),
      citations: [{ index: 1, passage: DIRECTORIES }],
      provenance: 'generated',
      abstained: false,
    });
  });

  test('passages cited as [2] then [1]: original text streamed, then reset and the renumbered text, citations in order of first use', async () => {
    const reply = ['Read a whole file with `readFile` [2]. ', 'Create missing parent directories with `mkdir` and `recursive` [1].'];
    const { engine } = await engineWith(replyWith(reply));

    const { events } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    const reset = events.findIndex((event) => event.type === 'reset');
    expect(reset).toBeGreaterThan(0);
    expect(tokenText(events.slice(0, reset))).toBe(reply.join('').trim());
    const corrected = tokenText(events.slice(reset + 1));
    expect(corrected).toBe('Read a whole file with `readFile` [1]. Create missing parent directories with `mkdir` and `recursive` [2].');
    expect(typesOf(events)).toEqual(['token', 'reset', 'token', 'citations', 'suggestions', 'done']);
    const answer = await collectAnswer((async function* () { yield* events; })());
    expect(answer.answer).toBe(corrected);
    expect(answer.citations).toEqual([
      { index: 1, passage: FILES },
      { index: 2, passage: DIRECTORIES },
    ]);
    expect(findCitationMarkers(answer.answer)).toEqual([1, 2]);
  });

  test('answer citing [7] when three passages were given: tokens, then abstain, then done(abstained), no citations', async () => {
    const { engine } = await engineWith(replyWith(['Use `mkdir` with the ', '`recursive` option [7].']));

    const { events } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(typesOf(events)).toEqual(['token', 'abstain', 'done']);
    expect(tokenText(events)).toBe('Use `mkdir` with the `recursive` option [7].');
    expect(events.slice(-2)).toEqual([
      { type: 'abstain', answer: ABSTENTION_MESSAGE },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ]);
  });

  test('answer citing [7]: the collected (JSON) answer is the abstention', async () => {
    const { engine } = await engineWith(replyWith(['Use `mkdir` with the ', '`recursive` option [7].']));

    const answer = await collectAnswer(engine.answer({ question: QUESTION, reach: REACH }));

    expect(answer).toEqual({ answer: ABSTENTION_MESSAGE, citations: [], provenance: 'abstained', abstained: true, suggestions: [] });
  });

  test('model replying NO_ANSWER in pieces: abstain and done(abstained), the refusal never shown as tokens', async () => {
    const { engine } = await engineWith(replyWith(['NO_', 'ANSWER']));

    const { events } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(events).toEqual([
      { type: 'abstain', answer: ABSTENTION_MESSAGE },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ]);
  });

  test('reply starting like NO_ANSWER but going on: shown once it cannot be the refusal', async () => {
    const { engine } = await engineWith(replyWith(['N', 'ot with `readFile`: use `mkdir` with `recursive` [1].']));

    const { events } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(tokenText(events)).toBe('Not with `readFile`: use `mkdir` with `recursive` [1].');
    expect(events.at(-1)).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
  });

  test('model adding a sentence whose terms are not in the passage: tokens, then abstain, done(abstained)', async () => {
    const { engine } = await engineWith(
      replyWith(['Use `mkdir` with the `recursive` option [1]. ', 'Kubernetes operators reconcile volumes asynchronously [1].']),
    );

    const { events } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(typesOf(events)).toEqual(['token', 'abstain', 'done']);
    expect(events.at(-1)).toEqual({ type: 'done', abstained: true, provenance: 'abstained' });
  });

  test('model answering without any marker: abstains', async () => {
    const { engine } = await engineWith(replyWith(['Use `mkdir` with the `recursive` option.']));

    const answer = await collectAnswer(engine.answer({ question: QUESTION, reach: REACH }));

    expect(answer.abstained).toBe(true);
  });

  test('rejected answer: the rejection is reported with its reason', async () => {
    const server = await startFakeChatServer(replyWith(['Use `mkdir` [7].']));
    servers.push(server);
    const rejections: unknown[] = [];
    const engine = createAnswerEngine({
      ...storeWith(PASSAGES),
      abstentionThreshold: 0,
      chat: createChatCompletionsClient({ baseUrl: server.baseUrl, model: 'fake-model' }),
      onRejectedAnswer: (rejection) => rejections.push(rejection),
    });

    await collectAnswer(engine.answer({ question: QUESTION, reach: REACH }));

    expect(rejections).toEqual([{ reason: 'unknown_passage', detail: expect.stringContaining('[7]') }]);
  });

  test('model that never stops (ignoring max_tokens): withdrawn with abstain once the reply passes the cap, its request aborted, reported as too_long', async () => {
    let sent = 0;
    const server = await startFakeChatServer(async (_request, reply) => {
      reply.open();
      const chunk = `data: ${completionChunk({ content: 'Use `mkdir` with the recursive option [1]. ' })}\n\n`;
      while (reply.response.writable && !reply.response.destroyed) {
        sent += 1;
        if (!reply.response.write(chunk)) await once(reply.response, 'drain').catch(() => undefined);
      }
    });
    servers.push(server);
    const rejections: Array<{ reason: string }> = [];
    const engine = createAnswerEngine({
      ...storeWith(PASSAGES),
      abstentionThreshold: 0,
      chat: createChatCompletionsClient({ baseUrl: server.baseUrl, model: 'fake-model' }),
      onRejectedAnswer: (rejection) => rejections.push(rejection),
    });

    const { events, error } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(error).toBeUndefined();
    expect(typesOf(events)).toEqual(['token', 'abstain', 'done']);
    expect(tokenText(events).length).toBeLessThanOrEqual(MAX_REPLY_CHARACTERS);
    expect(events.at(-1)).toEqual({ type: 'done', abstained: true, provenance: 'abstained' });
    expect(rejections.map((rejection) => rejection.reason)).toEqual(['too_long']);
    const closed = await Promise.race([server.requests[0]!.closedEarly.then(() => true), delay(1_000, false)]);
    expect(closed).toBe(true);
    expect(sent).toBeGreaterThan(MAX_REPLY_CHARACTERS / 45);
  });

  test('model server answering 500: GenerationError upstream_unavailable before any token', async () => {
    const { engine } = await engineWith((_request, reply) => {
      reply.response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":{"message":"boom"}}');
    });

    const { events, error } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(GenerationError);
    expect((error as GenerationError).code).toBe('upstream_unavailable');
  });

  test('connection dropped after two deltas: the two tokens, then GenerationError generation_failed, no done', async () => {
    const { engine } = await engineWith(async (_request, reply) => {
      reply.open();
      await reply.delta('Use `mkdir` ');
      await reply.delta('with the `recursive` option');
      await delay(20);
      reply.drop();
    });

    const { events, error } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(tokenText(events)).toBe('Use `mkdir` with the `recursive` option');
    expect(events.every((event) => event.type === 'token')).toBe(true);
    expect((error as GenerationError).code).toBe('generation_failed');
  });

  test('model slower than the timeout: GenerationError timeout', async () => {
    const { engine } = await engineWith(
      async (_request, reply) => {
        reply.open();
        await delay(2_000);
        reply.finish();
      },
      { timeoutMs: 150 },
    );

    const { events, error } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(events).toEqual([]);
    expect((error as GenerationError).code).toBe('timeout');
  });

  test('asker gone after the first token: no more events, no done, and the model request is closed', async () => {
    const { engine, server } = await engineWith(async (_request, reply) => {
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

  test('request to the model: the numbered passages, the question and stream: true', async () => {
    const { engine, server } = await engineWith(replyWith(GROUNDED));

    await collectAnswer(engine.answer({ question: QUESTION, reach: REACH }));

    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({ model: 'fake-model', stream: true, temperature: 0, max_tokens: expect.any(Number) });
    const user = body.messages?.find((message) => message.role === 'user')?.content ?? '';
    PASSAGES.forEach((passage, position) => {
      expect(user).toContain(`[${position + 1}] ${passage.headingPath.join(' > ')}\n${passage.text}`);
    });
    expect(user).toContain(`Question: ${QUESTION}`);
    expect(body.messages?.[0]).toMatchObject({ role: 'system', content: expect.stringContaining('NO_ANSWER') });
  });

  test('nothing retrieved: abstains without asking the model', async () => {
    const { engine, server } = await engineWith(replyWith(GROUNDED), { passages: [] });

    const { events } = await eventsOf(engine.answer({ question: QUESTION, reach: REACH }));

    expect(events.map((event) => event.type)).toEqual(['abstain', 'done']);
    expect(server.requests).toEqual([]);
  });

  test('curated pair answering the question: qa_shortcut without asking the model', async () => {
    const pair: FaqPair = {
      question: QUESTION,
      answer: 'Pass `recursive: true` to `mkdir` [1].',
      sources: [{ docId: 'guide.md' }],
    };
    const { engine, server } = await engineWith(replyWith(GROUNDED), { faq: [pair] });

    const answer = await collectAnswer(engine.answer({ question: QUESTION, reach: REACH }));

    expect(answer).toMatchObject({ answer: pair.answer, provenance: 'qa_shortcut' });
    expect(server.requests).toEqual([]);
  });
});
