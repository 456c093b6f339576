import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { NO_ANSWER } from './answer-prompt.ts';
import { StreamedReply } from './streamed-reply.ts';

/** The definition StreamedReply implements incrementally: the whole reply trimmed, nothing while it could be NO_ANSWER. */
function showableOf(reply: string): string {
  const text = reply.trim();
  return NO_ANSWER.startsWith(text) ? '' : text;
}

/** What a reader shows after each delta: the concatenation of what push returned so far. */
function shownAfterEach(deltas: readonly string[]): string[] {
  const reply = new StreamedReply();
  let shown = '';
  return deltas.map((delta) => (shown += reply.push(delta)));
}

describe('StreamedReply', () => {
  test('an answer in pieces: shown as it arrives, leading and trailing whitespace held back', () => {
    expect(shownAfterEach(['  \n', 'Use ', '`mkdir`', '  ', '[1].', '\n'])).toEqual(['', 'Use', 'Use `mkdir`', 'Use `mkdir`', 'Use `mkdir`  [1].', 'Use `mkdir`  [1].']);
  });

  test('NO_ANSWER in pieces: nothing is ever shown', () => {
    expect(shownAfterEach([' NO', '_ANS', 'WER', '\n'])).toEqual(['', '', '', '']);
  });

  test('a reply that starts like NO_ANSWER and goes on: shown whole once it cannot be the refusal', () => {
    expect(shownAfterEach(['NO', ' way: use `mkdir` [1].'])).toEqual(['', 'NO way: use `mkdir` [1].']);
  });

  test('text(): the reply exactly as received, whitespace included', () => {
    const reply = new StreamedReply();
    for (const delta of [' a', ' b ', '\n']) reply.push(delta);

    expect(reply.text()).toBe(' a b \n');
    expect(reply.length).toBe(6);
  });

  test('any split of any reply: after each delta, what was shown equals the trimmed reply so far (the non-incremental definition)', () => {
    const piece = fc.oneof(
      fc.constantFrom('NO', '_', 'ANSWER', 'NO_ANSWER', ' ', '\n', '\t', '\u00a0', 'x', 'Use `mkdir`', '[1]', '.'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (deltas) => {
        const expected = deltas.map((_, index) => showableOf(deltas.slice(0, index + 1).join('')));
        expect(shownAfterEach(deltas)).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
