import { describe, expect, test } from 'vitest';
import { collectAnswer, type AnswerEvent, type EngineCitation } from './answer-events.ts';
import type { ScoredPassage } from '../store/store.ts';

/** The events as an async stream, the way the engine produces them. */
async function* streamOf(events: AnswerEvent[]): AsyncGenerator<AnswerEvent> {
  for (const event of events) yield event;
}

function citationOf(index: number): EngineCitation {
  const passage: ScoredPassage = {
    chunkId: index,
    kbId: 'kb',
    docId: `doc-${index}.md`,
    title: 'Doc',
    headingPath: ['Doc', 'Section'],
    text: 'Passage text.',
    quotable: true,
    contentHash: 'hash',
    score: 1,
  };
  return { index, passage };
}

describe('collectAnswer', () => {
  test('citations, tokens, suggestions, done: text is the tokens appended, the rest kept', async () => {
    const citations = [citationOf(1)];
    const events: AnswerEvent[] = [
      { type: 'citations', citations },
      { type: 'token', text: 'Creates' },
      { type: 'token', text: ' a directory' },
      { type: 'token', text: ' [1].' },
      { type: 'suggestions', questions: ['What is a file mode?'] },
      { type: 'done', abstained: false, provenance: 'generated' },
    ];

    const collected = await collectAnswer(streamOf(events));

    expect(collected).toEqual({
      answer: 'Creates a directory [1].',
      citations,
      provenance: 'generated',
      abstained: false,
      suggestions: ['What is a file mode?'],
    });
  });

  test('reset after a partial answer: text and citations discarded, what follows kept', async () => {
    const replacement = [citationOf(2)];
    const events: AnswerEvent[] = [
      { type: 'citations', citations: [citationOf(1)] },
      { type: 'token', text: 'A withdrawn start' },
      { type: 'reset' },
      { type: 'citations', citations: replacement },
      { type: 'token', text: 'The grounded answer [1].' },
      { type: 'done', abstained: false, provenance: 'generated' },
    ];

    const collected = await collectAnswer(streamOf(events));

    expect(collected.answer).toBe('The grounded answer [1].');
    expect(collected.citations).toEqual(replacement);
  });

  test('reset as the last frame before done: empty answer, no citations', async () => {
    const events: AnswerEvent[] = [
      { type: 'citations', citations: [citationOf(1)] },
      { type: 'token', text: 'Partial' },
      { type: 'reset' },
      { type: 'done', abstained: false, provenance: 'generated' },
    ];

    const collected = await collectAnswer(streamOf(events));

    expect(collected.answer).toBe('');
    expect(collected.citations).toEqual([]);
  });

  test('abstain after a partial answer: its message replaces the text, citations dropped', async () => {
    const events: AnswerEvent[] = [
      { type: 'citations', citations: [citationOf(1)] },
      { type: 'token', text: 'Something unsupported' },
      { type: 'abstain', answer: 'I could not find that.' },
      { type: 'done', abstained: true, provenance: 'abstained' },
    ];

    const collected = await collectAnswer(streamOf(events));

    expect(collected).toEqual({
      answer: 'I could not find that.',
      citations: [],
      provenance: 'abstained',
      abstained: true,
      suggestions: [],
    });
  });

  test('qa_shortcut provenance on done: reported as is', async () => {
    const events: AnswerEvent[] = [
      { type: 'token', text: 'Curated.' },
      { type: 'done', abstained: false, provenance: 'qa_shortcut' },
    ];

    const collected = await collectAnswer(streamOf(events));

    expect(collected.provenance).toBe('qa_shortcut');
  });

  test('events after done: not read', async () => {
    const events: AnswerEvent[] = [
      { type: 'token', text: 'Final.' },
      { type: 'done', abstained: false, provenance: 'generated' },
      { type: 'token', text: ' Extra.' },
    ];

    const collected = await collectAnswer(streamOf(events));

    expect(collected.answer).toBe('Final.');
  });

  test('stream ending without done: rejects', async () => {
    const events: AnswerEvent[] = [{ type: 'token', text: 'Cut off' }];

    await expect(collectAnswer(streamOf(events))).rejects.toThrow('The answer ended without a done event');
  });

  test('empty stream: rejects', async () => {
    await expect(collectAnswer(streamOf([]))).rejects.toThrow(/without a done event/);
  });
});
