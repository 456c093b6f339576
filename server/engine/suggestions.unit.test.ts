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
  test.each([
    ['API signature in backticks: "How do I use" with the name, no markup', '`fs.mkdtemp(prefix[, options])`', 'How do I use fs.mkdtemp()?'],
    ['method signature with only optional parameters', '`readable.read([size])`', 'How do I use readable.read()?'],
    ['constructor signature with "new": the class name without "new"', '`new URL(input[, base])`', 'How do I use URL()?'],
    ['"Class: X" heading', 'Class: `fs.Dir`', 'What is fs.Dir?'],
    ['"Event: X" heading: asks when the event is emitted', "Event: `'close'`", "When is the 'close' event emitted?"],
    ['label in lower case: recognised all the same', 'event: data', 'When is the data event emitted?'],
    ['task in the -ing form', 'Creating a Deployment', 'How do I create a Deployment?'],
    ['task in the -ing form with a doubled consonant', 'Debugging Pods', 'How do I debug Pods?'],
    ['task in the imperative', 'Configure TLS for the API server', 'How do I configure TLS for the API server?'],
    ['noun-like verb followed by a determiner: a task', 'Use a ConfigMap', 'How do I use a ConfigMap?'],
    ['noun-like verb followed by a noun: a subject', 'Access control', 'What is Access control?'],
    ['a subject in the plural', 'Persistent Volumes', 'What are Persistent Volumes?'],
    ['property name in backticks: a subject, without backticks', '`process.argv`', 'What is process.argv?'],
    ['a heading that is a question: kept', 'What is a Pod?', 'What is a Pod?'],
    ['a link in the heading: its text', 'Using [kubectl](https://kubernetes.io/docs/reference/kubectl/)', 'How do I use kubectl?'],
  ])('%s: %s -> %s', (_name, heading, question) => {
    expect(headingToQuestion(heading)).toBe(question);
  });

  test.each(['Examples', 'Before you begin', '  Caveats:  ', "What's next", 'Planning the migration'])(
    'generic heading, or a task whose verb is not known (%s): no question',
    (heading) => {
      expect(headingToQuestion(heading)).toBeUndefined();
    },
  );

  test('no question holds markdown markup', () => {
    for (const heading of ['`fs.stat(path)`', '**Bold** move', 'Class: `Buffer`', '_Emphasis_ matters']) {
      expect(headingToQuestion(heading) ?? '').not.toMatch(/[`*_]/);
    }
  });
});

describe('suggestFollowUps', () => {
  test('related curated questions and uncited headings: curated ones first, then headings in rank order', () => {
    const passages = [
      passageUnder(1, ['File system', 'File modes']),
      passageUnder(2, ['File system', 'File descriptors']),
    ];

    const suggestions = suggestFollowUps('How do I create a directory?', ['How do I remove a directory?'], passages, []);

    expect(suggestions).toEqual(['How do I remove a directory?', 'What are File modes?', 'What are File descriptors?']);
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
    const other = passageUnder(3, ['File system', 'File descriptors']);

    const suggestions = suggestFollowUps('What is a file mode?', [], [cited, sameHeadingElsewhere, other], [cited]);

    expect(suggestions).toEqual(['What are File descriptors?']);
  });

  test('passage with only the page title as heading path: no suggestion from it', () => {
    const passages = [passageUnder(1, ['File system']), passageUnder(2, ['File system', 'File descriptors'])];

    const suggestions = suggestFollowUps('What is fs?', [], passages, []);

    expect(suggestions).toEqual(['What are File descriptors?']);
  });

  test('several passages under one heading, and a curated question equal to a heading question: each offered once', () => {
    const passages = [
      passageUnder(1, ['File system', 'File descriptors']),
      passageUnder(2, ['File system', 'File descriptors']),
      passageUnder(3, ['Streams', 'File descriptors']),
    ];

    const suggestions = suggestFollowUps('What is fs?', ['What are file descriptors?'], passages, []);

    expect(suggestions).toEqual(['What are file descriptors?']);
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
    expect(suggestions).toEqual(['Curated one?', 'Curated two?', 'What is First heading?']);
  });

  test('nothing related and no passages: no suggestions', () => {
    expect(suggestFollowUps('Anything?', [], [], [])).toEqual([]);
  });
});
