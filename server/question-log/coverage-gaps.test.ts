import { describe, expect, test } from 'vitest';
import { coverageGaps } from './coverage-gaps.ts';

describe('coverageGaps', () => {
  test('questions worded differently about one subject form one gap, most asked first; unrelated questions stay apart', () => {
    const asked = [
      { question: 'How do I rotate certificates?', createdAt: 1 },
      { question: 'how do i rotate certificates', createdAt: 5 },
      { question: 'rotating a certificate', createdAt: 3 },
      { question: 'Can I export invoices to CSV?', createdAt: 4 },
      { question: 'How do I rotate certificates?', createdAt: 2 },
    ];

    const gaps = coverageGaps(asked);

    expect(gaps).toEqual([
      { question: 'How do I rotate certificates?', count: 4, questions: ['How do I rotate certificates?', 'how do i rotate certificates', 'rotating a certificate'], lastAskedAt: 5 },
      { question: 'Can I export invoices to CSV?', count: 1, questions: ['Can I export invoices to CSV?'], lastAskedAt: 4 },
    ]);
  });

  test('questions sharing one word of several are separate gaps; a question of stop words only is its own', () => {
    const gaps = coverageGaps([
      { question: 'How do I configure the proxy timeout?', createdAt: 1 },
      { question: 'How do I configure billing alerts?', createdAt: 2 },
      { question: 'what is it', createdAt: 3 },
    ]);

    expect(gaps.map((gap) => gap.question)).toEqual(['what is it', 'How do I configure billing alerts?', 'How do I configure the proxy timeout?']);
    expect(gaps.every((gap) => gap.count === 1)).toBe(true);
  });
});
