import { describe, expect, test } from 'vitest';
import { AnswerCache, type AnswerKey } from './answer-cache.ts';
import type { PreparedAnswer } from './answer-engine.ts';

const KEY: AnswerKey = { question: 'How do I create a directory?', reach: { kbId: 'docs', userId: 'usr_1', visibilities: ['public', 'workspace'] } };

function answer(text: string): PreparedAnswer {
  return { kind: 'qa_shortcut', events: [{ type: 'token', text }] };
}

describe('AnswerCache', () => {
  test('an answer is found for its key at its version; at another version it is gone, also for the first version after', () => {
    const cache = new AnswerCache(4);
    const kept = answer('Use mkdir.');
    cache.set(KEY, '1:5', kept);

    expect(cache.get(KEY, '1:5')).toBe(kept);
    expect(cache.get(KEY, '1:6')).toBeUndefined();
    expect(cache.get(KEY, '1:5')).toBeUndefined();
  });

  test('another question, reader, visibility set or top-k: not the same answer; visibilities in another order: the same', () => {
    const cache = new AnswerCache(8);
    cache.set(KEY, 'v', answer('Use mkdir.'));

    expect(cache.get({ ...KEY, question: 'How do I create a directory' }, 'v')).toBeUndefined();
    expect(cache.get({ ...KEY, reach: { ...KEY.reach, userId: 'usr_2' } }, 'v')).toBeUndefined();
    expect(cache.get({ ...KEY, reach: { ...KEY.reach, visibilities: ['public'] } }, 'v')).toBeUndefined();
    expect(cache.get({ ...KEY, reach: { ...KEY.reach, kbId: 'other' } }, 'v')).toBeUndefined();
    expect(cache.get({ ...KEY, topK: 3 }, 'v')).toBeUndefined();
    expect(cache.get({ ...KEY, reach: { ...KEY.reach, visibilities: ['workspace', 'public'] } }, 'v')).toBeDefined();
  });

  test('full: the least recently used answer goes first; size 0 keeps none', () => {
    const cache = new AnswerCache(2);
    const keyOf = (question: string): AnswerKey => ({ ...KEY, question });
    cache.set(keyOf('a'), 'v', answer('a'));
    cache.set(keyOf('b'), 'v', answer('b'));
    cache.get(keyOf('a'), 'v');
    cache.set(keyOf('c'), 'v', answer('c'));

    expect(cache.size).toBe(2);
    expect(cache.get(keyOf('b'), 'v')).toBeUndefined();
    expect(cache.get(keyOf('a'), 'v')).toBeDefined();
    expect(cache.get(keyOf('c'), 'v')).toBeDefined();
    const none = new AnswerCache(0);
    none.set(KEY, 'v', answer('a'));
    expect(none.get(KEY, 'v')).toBeUndefined();
  });
});
