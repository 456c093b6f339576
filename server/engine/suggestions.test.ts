import { describe, expect, test } from 'vitest';
import { MAX_SUGGESTIONS, headingToQuestion, suggestFollowUps } from './suggestions.ts';
import type { ScoredPassage } from '../store/store.ts';

/** A retrieved passage under the given heading path; only the headings matter here. */
function passageUnder(chunkId: number, headingPath: string[]): ScoredPassage {
  return {
    chunkId,
    kbId: 'kb',
    docId: 'fs.md',
    title: headingPath[0] ?? 'File system',
    headingPath,
    text: 'Some text.',
    quotable: true,
    contentHash: 'hash',
    score: 10 - chunkId,
  };
}

describe('headingToQuestion', () => {
  test('API signature in backticks: "How do I use" with the name and empty parentheses', () => {
    expect(headingToQuestion('`fs.mkdtemp(prefix[, options])`')).toBe('How do I use `fs.mkdtemp()`?');
  });

  test('method signature with only optional parameters: same form', () => {
    expect(headingToQuestion('`readable.read([size])`')).toBe('How do I use `readable.read()`?');
  });

  test('constructor signature with "new": the class name without "new"', () => {
    expect(headingToQuestion('`new URL(input[, base])`')).toBe('How do I use `URL()`?');
  });

  test('"Class: X" heading: "What is X?"', () => {
    expect(headingToQuestion('Class: `fs.Dir`')).toBe('What is `fs.Dir`?');
  });

  test('"Event: X" heading: asks when the event is emitted', () => {
    expect(headingToQuestion("Event: `'close'`")).toBe("When is the `'close'` event emitted?");
  });

  test('label in lower case: recognised all the same', () => {
    expect(headingToQuestion('event: data')).toBe('When is the data event emitted?');
  });

  test('plain heading: "What should I know about" it', () => {
    expect(headingToQuestion('File modes')).toBe('What should I know about File modes?');
  });

  test('plain heading ending in punctuation, padded with spaces: trimmed, punctuation dropped', () => {
    expect(headingToQuestion('  Caveats:  ')).toBe('What should I know about Caveats?');
  });

  test('property name in backticks without parentheses: treated as a plain heading', () => {
    expect(headingToQuestion('`process.argv`')).toBe('What should I know about `process.argv`?');
  });
});

describe('suggestFollowUps', () => {
  test('related curated questions and uncited headings: curated ones first, then headings in rank order', () => {
    const passages = [
      passageUnder(1, ['File system', 'File modes']),
      passageUnder(2, ['File system', 'Caveats']),
    ];

    const suggestions = suggestFollowUps('How do I create a directory?', ['How do I remove a directory?'], passages, []);

    expect(suggestions).toEqual([
      'How do I remove a directory?',
      'What should I know about File modes?',
      'What should I know about Caveats?',
    ]);
  });

  test('heading whose question is the one asked (other case and punctuation): not suggested', () => {
    const passages = [passageUnder(1, ['File system', '`fs.mkdtemp(prefix[, options])`'])];

    const suggestions = suggestFollowUps('how do I use fs.mkdtemp()', [], passages, []);

    expect(suggestions).toEqual([]);
  });

  test('related curated question equal to the one asked: not suggested', () => {
    const suggestions = suggestFollowUps(
      'How do I create a directory?',
      ['how do I create a directory', 'How do I remove a directory?'],
      [],
      [],
    );

    expect(suggestions).toEqual(['How do I remove a directory?']);
  });

  test("cited passages' headings: not suggested, also when another retrieved passage shares the heading", () => {
    const cited = passageUnder(1, ['File system', 'File modes']);
    const sameHeadingElsewhere = passageUnder(2, ['Permissions', 'File modes']);
    const other = passageUnder(3, ['File system', 'Caveats']);

    const suggestions = suggestFollowUps('What is a file mode?', [], [cited, sameHeadingElsewhere, other], [cited]);

    expect(suggestions).toEqual(['What should I know about Caveats?']);
  });

  test('passage with only the page title as heading path: no suggestion from it', () => {
    const passages = [passageUnder(1, ['File system']), passageUnder(2, ['File system', 'Caveats'])];

    const suggestions = suggestFollowUps('What is fs?', [], passages, []);

    expect(suggestions).toEqual(['What should I know about Caveats?']);
  });

  test('several passages under one heading, and a curated question equal to a heading question: each offered once', () => {
    const passages = [
      passageUnder(1, ['File system', 'Caveats']),
      passageUnder(2, ['File system', 'Caveats']),
      passageUnder(3, ['Streams', 'Caveats']),
    ];

    const suggestions = suggestFollowUps('What is fs?', ['What should I know about caveats?'], passages, []);

    expect(suggestions).toEqual(['What should I know about caveats?']);
  });

  test(`more candidates than MAX_SUGGESTIONS: only the first ${MAX_SUGGESTIONS}, curated before headings`, () => {
    const related = ['Curated one?', 'Curated two?'];
    const passages = [
      passageUnder(1, ['Guide', 'First heading']),
      passageUnder(2, ['Guide', 'Second heading']),
      passageUnder(3, ['Guide', 'Third heading']),
    ];

    const suggestions = suggestFollowUps('Something else?', related, passages, []);

    expect(suggestions).toHaveLength(MAX_SUGGESTIONS);
    expect(suggestions).toEqual(['Curated one?', 'Curated two?', 'What should I know about First heading?']);
  });

  test('nothing related and no passages: no suggestions', () => {
    expect(suggestFollowUps('Anything?', [], [], [])).toEqual([]);
  });
});
