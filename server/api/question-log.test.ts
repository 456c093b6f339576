import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { QueryResponse } from '../../protocol/query-protocol.ts';
import { readFrames } from '../testing/read-frames.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * The question log over real HTTP on the test run's backend: each question
 * answered on either endpoint is logged with what became of it, and the
 * feedback that follows lands on its entry; nothing identifying the
 * visitor (token, address) is stored.
 */

let fixture: WidgetFixture;
let token: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ questionLog: true });
  ({ token } = await fixture.issue());
});
afterAll(async () => {
  await fixture.close();
});

async function logged() {
  await fixture.questionLog!.flush();
  return fixture.store.listQuestionLog('docs', { limit: 100 });
}

describe('question log', () => {
  test('a JSON answer, a streamed answer and an abstention: each logged with its provenance, cited documents, channel and latency', async () => {
    const before = (await logged()).length;

    const answered = (await (await fixture.post('query', { question: 'How do I create a directory with its parents?' }, { token })).json()) as QueryResponse;
    const streamed = await fixture.post('query/stream', { question: 'How do I read a whole file into a string?' }, { token });
    const frames = await readFrames(streamed);
    await fixture.post('query', { question: 'What is the airspeed of an unladen swallow?' }, { token });

    expect(answered.abstained).toBe(false);
    expect(frames.at(-1)).toMatchObject({ event: 'done' });
    const all = await logged();
    const entries = all.slice(0, all.length - before).reverse();
    expect(entries.map(({ question, provenance, citedDocIds, channel }) => ({ question, provenance, citedDocIds, channel }))).toEqual([
      { question: 'How do I create a directory with its parents?', provenance: 'generated', citedDocIds: ['guide.md'], channel: 'json' },
      { question: 'How do I read a whole file into a string?', provenance: 'generated', citedDocIds: ['guide.md'], channel: 'stream' },
      { question: 'What is the airspeed of an unladen swallow?', provenance: 'abstained', citedDocIds: [], channel: 'json' },
    ]);
    for (const entry of entries) {
      expect(entry.latencyMs).toBeGreaterThanOrEqual(0);
      expect(entry.createdAt).toBe(fixture.now());
      expect(JSON.stringify(entry)).not.toContain(token.slice(0, 12));
      expect(JSON.stringify(entry)).not.toContain('127.0.0.1');
    }
  });

  test('a 👎 with its reason, sent the moment the answer ends, and a problem report: on the entry of that question', async () => {
    const question = 'What does backpressure do to a fast writer?';
    const answer = (await (await fixture.post('query', { question }, { token })).json()) as QueryResponse;

    const rated = await fixture.post('feedback', { kind: 'rating', question, provenance: answer.provenance, rating: 'down', reason: 'incorrect', source_spans: [] }, { token });
    const reported = await fixture.post(
      'feedback',
      { kind: 'problem', question, provenance: answer.provenance, source_span: answer.citations[0]!.source_span, reason: 'out_of_date' },
      { token },
    );

    expect([rated.status, reported.status]).toEqual([204, 204]);
    expect((await logged()).find((entry) => entry.question === question)).toMatchObject({ rating: 'down', ratingReason: 'incorrect', problemReports: 1 });
  });

  test('entries older than the retention are removed; younger ones kept', async () => {
    await fixture.post('query', { question: 'How do I create a directory with its parents?' }, { token });
    const entries = await logged();

    const removed = await fixture.store.pruneQuestionLog(fixture.now() + 1);

    expect(removed).toBe(entries.length);
    expect(await logged()).toEqual([]);
  });
});
