import { afterEach, describe, expect, test } from 'vitest';
import type { Problem, QueryResponse, StreamFrame } from '../../protocol/query-protocol.ts';
import { ABSTENTION_MESSAGE } from '../engine/abstention.ts';
import { createChatCompletionsClient } from '../engine/generation/chat-completions-client.ts';
import { replyWith, startFakeChatServer, type ChatScript, type FakeChatServer } from '../testing/fake-chat-server.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { readFrames } from '../testing/read-frames.ts';

/**
 * Both endpoints with a chat model writing the answers: a fake
 * OpenAI-compatible server (real HTTP, real streaming protocol) scripted per
 * test, behind the real app, store and answer pool.
 */
const QUESTION = 'How do I create a directory together with its missing parent directories?';
let model: FakeChatServer | undefined;
let fixture: WidgetFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  await model?.close();
  fixture = undefined;
  model = undefined;
});

async function setUp(script: ChatScript): Promise<{ fixture: WidgetFixture; token: string }> {
  model = await startFakeChatServer(script);
  fixture = await createWidgetFixture({
    chat: createChatCompletionsClient({ baseUrl: model.baseUrl, model: 'fake-model', timeoutMs: 5_000 }),
  });
  const { token } = await fixture.issue();
  return { fixture, token };
}

function types(frames: { frame: StreamFrame }[]): string[] {
  return frames.map(({ frame }) => frame.type);
}

describe('answers written by a chat model', () => {
  test('grounded answer: streamed as tokens, then its citation, provenance generated; JSON gives the same text', async () => {
    const { fixture, token } = await setUp(
      replyWith(['Use `mkdir` with the `recursive` option ', 'to create a directory together with its missing parent directories [1].']),
    );

    const frames = await readFrames(await fixture.post('query/stream', { question: QUESTION }, { token }));
    const json = (await (await fixture.post('query', { question: QUESTION }, { token })).json()) as QueryResponse;

    expect(types(frames)).toContain('token');
    expect(frames.at(-1)!.frame).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
    const text = frames.flatMap(({ frame }) => (frame.type === 'token' ? [frame.text] : [])).join('');
    expect(text).toBe(json.answer);
    expect(json).toMatchObject({ provenance: 'generated', abstained: false });
    expect(json.citations.map((citation) => citation.doc_id)).toEqual(['guide.md']);
  });

  test('answer citing a passage it was not given: tokens withdrawn by abstain, then done with abstained true', async () => {
    const { fixture, token } = await setUp(replyWith(['Directories are made with the mkdir tool ', 'of the operating system [7].']));

    const frames = await readFrames(await fixture.post('query/stream', { question: QUESTION }, { token }));
    const json = (await (await fixture.post('query', { question: QUESTION }, { token })).json()) as QueryResponse;

    const sequence = types(frames);
    expect(sequence.indexOf('token')).toBeGreaterThan(-1);
    expect(sequence.indexOf('token')).toBeLessThan(sequence.indexOf('abstain'));
    expect(sequence).not.toContain('citations');
    expect(frames.slice(-2).map(({ frame }) => frame)).toEqual([
      { type: 'abstain', answer: ABSTENTION_MESSAGE },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ]);
    expect(json).toEqual({ answer: ABSTENTION_MESSAGE, citations: [], provenance: 'abstained', abstained: true });
  });

  test('model server answering 500: stream ends with one error frame upstream_unavailable; JSON is 503 unavailable', async () => {
    const { fixture, token } = await setUp((_request, reply) => {
      reply.response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":{"message":"boom"}}');
    });

    const frames = await readFrames(await fixture.post('query/stream', { question: QUESTION }, { token }));
    const response = await fixture.post('query', { question: QUESTION }, { token });

    expect(frames.map(({ frame }) => frame)).toEqual([
      { type: 'error', code: 'upstream_unavailable', message: 'The answer generator is unavailable; try again shortly' },
    ]);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(((await response.json()) as Problem).code).toBe('unavailable');
  });

  test('model connection dropped part-way: the tokens that arrived, then one error frame generation_failed', async () => {
    const { fixture, token } = await setUp(async (_request, reply) => {
      reply.open();
      await reply.delta('Use `mkdir` with the ');
      await reply.delta('`recursive` option ');
      reply.drop();
    });

    const frames = await readFrames(await fixture.post('query/stream', { question: QUESTION }, { token }));

    expect(types(frames).filter((type) => type === 'token').length).toBeGreaterThan(0);
    expect(frames.at(-1)!.frame).toMatchObject({ type: 'error', code: 'generation_failed' });
    expect(types(frames).filter((type) => type === 'done' || type === 'error')).toEqual(['error']);
  });

  test('question without evidence: abstains without calling the model', async () => {
    const { fixture, token } = await setUp(replyWith(['Canberra [1].']));

    const json = (await (await fixture.post('query', { question: 'What is the capital of Australia?' }, { token })).json()) as QueryResponse;

    expect(json.provenance).toBe('abstained');
    expect(model!.requests).toHaveLength(0);
  });
});
