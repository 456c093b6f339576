import { describe, expect, test } from 'vitest';
import { buildAnswerPrompt, NO_ANSWER } from './answer-prompt.ts';
import type { ScoredPassage } from '../../store/store.ts';

function passageOf(chunkId: number, headingPath: string[], text: string): ScoredPassage {
  return { chunkId, kbId: 'docs', docId: 'guide.md', title: 'Guide', headingPath, text, quotable: true, contentHash: 'h', score: 1 };
}

describe('buildAnswerPrompt', () => {
  test('two passages: system rules, then the passages numbered from 1 with heading paths, then the question', () => {
    const messages = buildAnswerPrompt('  How do I create a directory?  ', [
      passageOf(1, ['Guide', 'Creating directories'], 'Use `mkdir` with `recursive`.\n'),
      passageOf(2, ['Guide', 'Reading files'], 'Call `readFile`.'),
    ]);

    expect(messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(messages[1]?.content).toBe(
      [
        'Passages:',
        '',
        '[1] Guide > Creating directories',
        'Use `mkdir` with `recursive`.',
        '',
        '[2] Guide > Reading files',
        'Call `readFile`.',
        '',
        'Question: How do I create a directory?',
      ].join('\n'),
    );
  });

  test('system message: answer only from the passages, cite with [n], be short, refuse with exactly NO_ANSWER', () => {
    const [system] = buildAnswerPrompt('Why?', []);

    expect(system?.content).toMatch(/only/i);
    expect(system?.content).toContain('[1]');
    expect(system?.content).toMatch(/short/i);
    expect(system?.content).toContain(`reply exactly ${NO_ANSWER}`);
  });
});
