import { describe, expect, onTestFinished, test } from 'vitest';
import { openTestStore } from '../../testing/test-store.ts';
import type { QuestionLogEntry, Store } from '../store.ts';

/** The question log's storage on the test run's backend. */

async function openLogStore(): Promise<Store> {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  await store.createKnowledgeBase({ id: 'other', name: 'Other' });
  return store;
}

function entry(kbId: string, question: string, createdAt: number): QuestionLogEntry {
  return { kbId, createdAt, question, provenance: 'abstained', citedDocIds: [], latencyMs: 12.6, channel: 'stream' };
}

describe('question log storage', () => {
  test('listed per knowledge base, newest first, a page at a time from a cursor, and from a date; an entry of an unknown knowledge base dropped', async () => {
    const store = await openLogStore();
    await store.addQuestionLogEntries([entry('docs', 'q1', 1000), entry('other', 'elsewhere', 1500), entry('docs', 'q2', 2000), entry('docs', 'q3', 2000), entry('gone', 'lost', 2500)]);

    const first = await store.listQuestionLog('docs', { limit: 2 });
    const rest = await store.listQuestionLog('docs', { limit: 2, before: { createdAt: first[1]!.createdAt, id: first[1]!.id } });
    const recent = await store.listQuestionLog('docs', { limit: 10, since: 1500 });

    expect(first.map((record) => record.question)).toEqual(['q3', 'q2']);
    expect(rest.map((record) => record.question)).toEqual(['q1']);
    expect(recent.map((record) => record.question)).toEqual(['q3', 'q2']);
    expect(first[0]).toMatchObject({ kbId: 'docs', provenance: 'abstained', citedDocIds: [], latencyMs: 13, channel: 'stream', problemReports: 0 });
    expect(await store.listQuestionLog('gone', { limit: 10 })).toEqual([]);
  });

  test('feedback lands on the latest entry of the same question inside the window, not on an older one or another question', async () => {
    const store = await openLogStore();
    await store.addQuestionLogEntries([entry('docs', 'same', 1000), entry('docs', 'same', 5000), entry('docs', 'other', 6000)]);

    const rated = await store.recordQuestionFeedback('docs', 'same', 7000, 10_000, { kind: 'rating', rating: 'down', reason: 'incorrect' });
    const late = await store.recordQuestionFeedback('docs', 'never asked', 7000, 10_000, { kind: 'problem' });

    const records = await store.listQuestionLog('docs', { limit: 10 });
    expect([rated, late]).toEqual([true, false]);
    expect(records.map((record) => [record.question, record.createdAt, record.rating ?? null])).toEqual([
      ['other', 6000, null],
      ['same', 5000, 'down'],
      ['same', 1000, null],
    ]);
  });
});
