import { describe, expect, test } from 'vitest';
import { asksHow } from './question-intent.ts';

describe('asksHow', () => {
  test('"how do I", "how to", "how can we", "how should I": how-questions', () => {
    for (const question of ['How do I read a file?', 'how to read a file', 'How can we stop a stream?', 'how should I hash passwords']) {
      expect(asksHow(question), question).toBe(true);
    }
  });

  test('"how long" or "how many" alone: a quantity, not a how-question', () => {
    expect(asksHow('How long does a timeout last?')).toBe(false);
    expect(asksHow('how many listeners can an emitter have')).toBe(false);
  });

  test('"how do I find out how long ...": the doing wins', () => {
    expect(asksHow('How do I find out how long the process has been running?')).toBe(true);
  });

  test('"how do streams work?": asks for an explanation, not a how-question', () => {
    expect(asksHow('How do streams work?')).toBe(false);
  });

  test('imperative task typed into a search box: a how-question', () => {
    expect(asksHow('read a file line by line')).toBe(true);
    expect(asksHow('Delete a file')).toBe(true);
    expect(asksHow('please generate a uuid')).toBe(true);
  });

  test('asking for a way without "how": a how-question', () => {
    expect(asksHow('Is there a way to watch a folder?')).toBe(true);
    expect(asksHow("I'm trying to copy a directory")).toBe(true);
  });

  test('what / why / when / yes-no questions and noun phrases: not how-questions', () => {
    for (const question of ['What is a Buffer?', 'Why does my server crash?', 'When is the exit event emitted?', 'Is fs.exists deprecated?', 'sha256 hash of a string']) {
      expect(asksHow(question), question).toBe(false);
    }
  });
});
