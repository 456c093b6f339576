import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findCitationMarkers } from '../../protocol/citation-markers.ts';
import type { Citation, QueryResponse } from '../../protocol/query-protocol.ts';
import { ABSTENTION_MESSAGE } from '../engine/abstention.ts';
import { updateSiteSettings } from '../ingest/site-settings.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';
import { readFrames } from '../testing/read-frames.ts';

let fixture: WidgetFixture;
let token: string;

beforeAll(async () => {
  fixture = await createWidgetFixture();
  ({ token } = await fixture.issue());
});
afterAll(async () => {
  await fixture.close();
});

const DIRECTORY_QUESTION = 'How do I create a directory together with its missing parent directories?';

function markers(answer: string): number[] {
  return findCitationMarkers(answer);
}

describe('POST /widget/query', () => {
  test('answerable question: 200 with a cited, generated answer', async () => {
    const response = await fixture.post('query', { question: DIRECTORY_QUESTION }, { token });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as QueryResponse;
    expect(body.provenance).toBe('generated');
    expect(body.abstained).toBe(false);
    expect(body.answer).toContain('`recursive`');
    expect(body.citations.length).toBeGreaterThan(0);
    expect(body.citations[0]).toMatchObject({ index: 1, doc_id: 'guide.md', kb_id: 'docs' });
    expect(typeof body.citations[0]!.source_span.ref).toBe('string');
  });

  test('knowledge base without a site URL: each citation titled "document › section", no url field', async () => {
    const response = await fixture.post('query', { question: DIRECTORY_QUESTION }, { token });

    const body = (await response.json()) as QueryResponse;
    expect(body.citations[0]).toMatchObject({ doc_id: 'guide.md', title: 'Guide › Creating directories' });
    expect(body.citations[0]).not.toHaveProperty('url');
  });

  test('knowledge base with a site URL: each citation links to its page and section, on both endpoints', async () => {
    await updateSiteSettings(fixture.store, 'docs', { baseUrl: 'https://docs.example.com/guides/' });
    try {
      const json = (await (await fixture.post('query', { question: DIRECTORY_QUESTION }, { token })).json()) as QueryResponse;
      const frames = await readFrames(await fixture.post('query/stream', { question: DIRECTORY_QUESTION }, { token }));

      const streamed = frames.map(({ frame }) => frame).find((frame) => frame.type === 'citations');
      expect(json.citations[0]).toMatchObject({ title: 'Guide › Creating directories', url: 'https://docs.example.com/guides/guide/#creating-directories' });
      expect(streamed).toMatchObject({ citations: [{ title: json.citations[0]!.title, url: json.citations[0]!.url }] });
    } finally {
      await updateSiteSettings(fixture.store, 'docs', { baseUrl: null });
    }
  });

  test('answer markers and citations: every marker has a citation and every citation is referenced', async () => {
    const response = await fixture.post('query', { question: 'How do I read a large file with a stream?' }, { token });

    const body = (await response.json()) as QueryResponse;
    expect(body.citations.length).toBeGreaterThan(0);
    expect(new Set(markers(body.answer))).toEqual(new Set(body.citations.map((citation) => citation.index)));
  });

  test('citations of the JSON endpoint never carry quoted text', async () => {
    const response = await fixture.post('query', { question: DIRECTORY_QUESTION }, { token });

    const body = (await response.json()) as QueryResponse;
    for (const citation of body.citations) expect(citation).not.toHaveProperty('text');
  });

  test('question with a misspelled word: the same answer and citations as spelled right', async () => {
    const questions = ['When does backpressure pause a writer?', 'When does backpresure pause a writer?'];

    const [right, wrong] = await Promise.all(
      questions.map(async (question) => (await fixture.post('query', { question }, { token })).json() as Promise<QueryResponse>),
    );

    expect(wrong?.abstained).toBe(false);
    expect(wrong).toEqual(right);
  });

  test('question with no evidence in the knowledge base: 200, abstained, refusal message, no citations', async () => {
    const response = await fixture.post('query', { question: 'What is the capital of Australia?' }, { token });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      answer: ABSTENTION_MESSAGE,
      citations: [],
      provenance: 'abstained',
      abstained: true,
    });
  });

  test('response JSON contains no null anywhere', async () => {
    const response = await fixture.post('query', { question: DIRECTORY_QUESTION, conversation_id: 'c-1' }, { token });

    expect(await response.text()).not.toContain('null');
  });

  test('X-Widget-Token header: accepted like a Bearer token', async () => {
    const response = await fixture.post('query', { question: DIRECTORY_QUESTION }, { headers: { 'X-Widget-Token': token } });

    expect(response.status).toBe(200);
  });

  test('request from a server (no Origin header): accepted', async () => {
    const response = await fixture.post('query', { question: DIRECTORY_QUESTION }, { token });

    expect(response.status).toBe(200);
  });

  test('unknown top-level fields and options keys: ignored', async () => {
    const response = await fixture.post(
      'query',
      { question: DIRECTORY_QUESTION, top_k: 3, options: { temperature: 1 }, extra: [1, 2] },
      { token },
    );

    expect(response.status).toBe(200);
  });

  test('source_span: stable for the same passage and opaque', async () => {
    const first = (await (await fixture.post('query', { question: DIRECTORY_QUESTION }, { token })).json()) as QueryResponse;
    const second = (await (await fixture.post('query', { question: DIRECTORY_QUESTION }, { token })).json()) as QueryResponse;

    expect(second.citations[0]!.source_span).toEqual(first.citations[0]!.source_span);
    expect(Object.keys(first.citations[0]!.source_span)).toEqual(['ref']);
    expect(first.citations[0]!.source_span.ref).not.toContain('guide');
    expect(fixture.codec.decode(first.citations[0]!.source_span)?.docId).toBe('guide.md');
  });
});

describe('POST /widget/query/stream', () => {
  test('answerable question: event-stream headers that survive proxies', async () => {
    const response = await fixture.post('query/stream', { question: DIRECTORY_QUESTION }, { token });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    await response.body?.cancel();
  });

  test('every frame: JSON whose type equals its event name, exactly one terminal frame, last', async () => {
    const frames = await readFrames(await fixture.post('query/stream', { question: DIRECTORY_QUESTION }, { token }));

    for (const { event, frame } of frames) expect(frame.type).toBe(event);
    const terminal = frames.filter(({ frame }) => frame.type === 'done' || frame.type === 'error');
    expect(terminal).toHaveLength(1);
    expect(frames.at(-1)!.frame).toEqual({ type: 'done', abstained: false, provenance: 'generated' });
  });

  test('same question on both endpoints: the same answer text and citations', async () => {
    for (const question of [DIRECTORY_QUESTION, 'How does backpressure work in streams?', 'What is the capital of Australia?']) {
      const json = (await (await fixture.post('query', { question }, { token })).json()) as QueryResponse;
      const frames = await readFrames(await fixture.post('query/stream', { question }, { token }));

      let text = '';
      let citations: Citation[] = [];
      for (const { frame } of frames) {
        if (frame.type === 'token') text += frame.text;
        if (frame.type === 'abstain') text = frame.answer;
        if (frame.type === 'citations') citations = frame.citations;
      }
      expect(text).toBe(json.answer);
      expect(citations.map(({ text: _quote, ...citation }) => citation)).toEqual(json.citations);
    }
  });

  test('citations frame: carries the quotable passage text', async () => {
    const frames = await readFrames(await fixture.post('query/stream', { question: DIRECTORY_QUESTION }, { token }));

    const citations = frames.find(({ frame }) => frame.type === 'citations')!.frame;
    expect(citations.type === 'citations' && citations.citations[0]!.text).toContain('missing parent directories');
  });

  test('citations frame of a document marked not quotable: no text', async () => {
    const frames = await readFrames(
      await fixture.post('query/stream', { question: 'When does the walrus migration move archives to cold storage?' }, { token }),
    );

    const citations = frames.find(({ frame }) => frame.type === 'citations')?.frame;
    expect(citations?.type).toBe('citations');
    if (citations?.type !== 'citations') return;
    expect(citations.citations[0]!.doc_id).toBe('private-notes.md');
    expect(citations.citations[0]).not.toHaveProperty('text');
  });

  test('answer with related sections: suggestions from their headings, before done', async () => {
    const frames = await readFrames(
      await fixture.post('query/stream', { question: 'How do I read a large file with a stream?' }, { token }),
    );

    const types = frames.map(({ frame }) => frame.type);
    expect(types.indexOf('suggestions')).toBeGreaterThan(-1);
    expect(types.indexOf('suggestions')).toBeLessThan(types.indexOf('done'));
    const suggestions = frames.find(({ frame }) => frame.type === 'suggestions')!.frame;
    expect(suggestions).toEqual({ type: 'suggestions', questions: ['What are Streams?'] });
  });

  test('a curated answer: done carries provenance qa_shortcut, as the JSON response does', async () => {
    await fixture.store.replaceFaq('docs', [
      { question: 'How do I make nested directories?', answer: 'Pass `recursive: true` to `mkdir` [1].', sources: [{ docId: 'guide.md' }] },
    ]);
    try {
      const frames = await readFrames(await fixture.post('query/stream', { question: 'How can I make nested directories?' }, { token }));
      const json = (await (await fixture.post('query', { question: 'How can I make nested directories?' }, { token })).json()) as QueryResponse;

      expect(json.provenance).toBe('qa_shortcut');
      expect(frames.at(-1)!.frame).toEqual({ type: 'done', abstained: false, provenance: 'qa_shortcut' });
    } finally {
      await fixture.store.replaceFaq('docs', []);
    }
  });

  test('question with no evidence: abstain frame then done with abstained true, no tokens', async () => {
    const frames = await readFrames(await fixture.post('query/stream', { question: 'What is the capital of Australia?' }, { token }));

    expect(frames.map(({ frame }) => frame)).toEqual([
      { type: 'abstain', answer: ABSTENTION_MESSAGE },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ]);
  });

  test('client disconnecting mid-stream: the server keeps serving others', async () => {
    const controller = new AbortController();
    const response = await fixture.post('query/stream', { question: DIRECTORY_QUESTION }, { token, signal: controller.signal });
    controller.abort();
    await response.body?.cancel().catch(() => undefined);

    const next = await fixture.post('query', { question: DIRECTORY_QUESTION }, { token });
    expect(next.status).toBe(200);
  });
});
