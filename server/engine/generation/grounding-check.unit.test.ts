import { describe, expect, test } from 'vitest';
import { findCitationMarkers } from '../../../protocol/citation-markers.ts';
import { checkGrounding } from './grounding-check.ts';
import type { ScoredPassage } from '../../store/store.ts';

function passageOf(chunkId: number, headingPath: string[], text: string): ScoredPassage {
  return {
    chunkId,
    kbId: 'docs',
    docId: 'guide.md',
    title: headingPath[0] ?? 'Guide',
    headingPath,
    text,
    quotable: true,
    contentHash: 'hash',
    score: 5,
  };
}

const DIRECTORIES = passageOf(
  1,
  ['Guide', 'Creating directories'],
  'Use `mkdir` with the `recursive` option to create a directory together with its missing parent directories.',
);
const FILES = passageOf(
  2,
  ['Guide', 'Reading files'],
  'Call `readFile` with a path and an encoding to read the whole file into a string. Large files are better read with a stream.',
);
const ROLLOUT = passageOf(3, ['Runbook', 'Zebra rollout'], 'The zebra rollout deploys the service to the staging cluster every Tuesday before noon.');
const PASSAGES = [DIRECTORIES, FILES, ROLLOUT];

describe('checkGrounding', () => {
  test('sentence drawn from the passage it cites: accepted with that passage as citation 1', () => {
    const verdict = checkGrounding('Use `mkdir` with the `recursive` option to create missing parent directories [1].', PASSAGES);

    expect(verdict).toEqual({
      accepted: true,
      text: 'Use `mkdir` with the `recursive` option to create missing parent directories [1].',
      cited: [DIRECTORIES],
    });
  });

  test('passages cited out of order: renumbered by first appearance, markers rewritten', () => {
    const verdict = checkGrounding(
      'The zebra rollout deploys to the staging cluster on Tuesday [3]. Read whole files with `readFile` [2]. Staging gets it before noon [3].',
      PASSAGES,
    );

    expect(verdict).toEqual({
      accepted: true,
      text: 'The zebra rollout deploys to the staging cluster on Tuesday [1]. Read whole files with `readFile` [2]. Staging gets it before noon [1].',
      cited: [ROLLOUT, FILES],
    });
    if (verdict.accepted) expect(findCitationMarkers(verdict.text)).toEqual([1, 2, 1]);
  });

  test('grouped marker [3, 1]: rewritten as separate markers, both passages supporting the sentence', () => {
    const verdict = checkGrounding('Create the directory with `mkdir` before the zebra rollout to staging [3, 1].', PASSAGES);

    expect(verdict).toMatchObject({
      accepted: true,
      text: 'Create the directory with `mkdir` before the zebra rollout to staging [1][2].',
      cited: [ROLLOUT, DIRECTORIES],
    });
  });

  test('marker written after the full stop: belongs to the sentence before it', () => {
    const verdict = checkGrounding('Use `mkdir` with the `recursive` option. [1] Read whole files with `readFile`. [2]', PASSAGES);

    expect(verdict).toMatchObject({ accepted: true, cited: [DIRECTORIES, FILES] });
  });

  test('exactly NO_ANSWER, with surrounding whitespace: rejected as no_answer', () => {
    expect(checkGrounding('  NO_ANSWER\n', PASSAGES)).toMatchObject({ accepted: false, reason: 'no_answer' });
  });

  test('empty reply: rejected as no_answer', () => {
    expect(checkGrounding('   ', PASSAGES)).toMatchObject({ accepted: false, reason: 'no_answer' });
  });

  test('answer without any marker: rejected as no_citation', () => {
    expect(checkGrounding('Use `mkdir` with the `recursive` option.', PASSAGES)).toMatchObject({
      accepted: false,
      reason: 'no_citation',
    });
  });

  test('bracketed numbers only inside code or escaped: not markers, rejected as no_citation', () => {
    const verdict = checkGrounding('Read `process.argv[2]` with `readFile` \\[2].', PASSAGES);

    expect(verdict).toMatchObject({ accepted: false, reason: 'no_citation' });
  });

  test('marker [7] with three passages given: rejected as unknown_passage', () => {
    const verdict = checkGrounding('Use `mkdir` with the `recursive` option [7].', PASSAGES);

    expect(verdict).toMatchObject({ accepted: false, reason: 'unknown_passage' });
  });

  test('marker [0]: rejected as unknown_passage', () => {
    expect(checkGrounding('Use `mkdir` with the `recursive` option [0].', PASSAGES)).toMatchObject({
      accepted: false,
      reason: 'unknown_passage',
    });
  });

  test('sentence whose terms are not in the passage it cites: rejected as unsupported_sentence naming it', () => {
    const verdict = checkGrounding(
      'Use `mkdir` with the `recursive` option [1]. Kubernetes operators reconcile custom resources asynchronously [1].',
      PASSAGES,
    );

    expect(verdict).toMatchObject({ accepted: false, reason: 'unsupported_sentence' });
    if (!verdict.accepted) expect(verdict.detail).toContain('Kubernetes operators');
  });

  test('true sentence citing the wrong passage: rejected', () => {
    const verdict = checkGrounding('The zebra rollout deploys the service to the staging cluster [1].', PASSAGES);

    expect(verdict).toMatchObject({ accepted: false, reason: 'unsupported_sentence' });
  });

  test('changed number, every other term supported: rejected', () => {
    const passages = [passageOf(4, ['Plan', 'Launch'], 'The quokka launch has a limited beta for 10 customers in March.')];

    expect(checkGrounding('The quokka launch has a limited beta for 12 customers in March [1].', passages)).toMatchObject({
      accepted: false,
      reason: 'unsupported_sentence',
    });
    expect(checkGrounding('The quokka launch has a limited beta for 10 customers in March [1].', passages)).toMatchObject({
      accepted: true,
    });
  });

  test('unmarked sentence with material from no cited passage: rejected', () => {
    const verdict = checkGrounding('Use `mkdir` with the `recursive` option [1]. It was added in version 7 by the Rust team.', PASSAGES);

    expect(verdict).toMatchObject({ accepted: false, reason: 'unsupported_sentence' });
  });

  test('one marker covering two supported sentences: accepted', () => {
    const verdict = checkGrounding(
      'Call `mkdir` with the `recursive` option. It creates the missing parent directories too [1].',
      PASSAGES,
    );

    expect(verdict).toMatchObject({ accepted: true, cited: [DIRECTORIES] });
  });

  test('paraphrase sharing half the sentence terms with the passage: accepted; less than half: rejected', () => {
    // Terms: creat, nest, folder, recurs -> creat and recurs in the passage: 2 of 4.
    expect(checkGrounding('Create nested folders with `recursive` [1].', PASSAGES)).toMatchObject({ accepted: true });
    // Terms: build, nest, folder, recurs -> only recurs: 1 of 4.
    expect(checkGrounding('Build nested folders with `recursive` [1].', PASSAGES)).toMatchObject({
      accepted: false,
      reason: 'unsupported_sentence',
    });
  });

  test('heading path of the cited passage counts as its content', () => {
    // Terms: guid, explain -> "Guide" only in the heading path: 1 of 2.
    expect(checkGrounding('The guide explains this [1].', PASSAGES)).toMatchObject({ accepted: true });
  });

  test('numbered list with a marker per item: list numbers are not claims, accepted', () => {
    const verdict = checkGrounding(
      '1. Use `mkdir` with the `recursive` option [1]\n2. Read whole files with `readFile` [2]',
      PASSAGES,
    );

    expect(verdict).toMatchObject({ accepted: true, text: '1. Use `mkdir` with the `recursive` option [1]\n2. Read whole files with `readFile` [2]' });
  });

  test('accepted answer: every marker has a citation and every citation is referenced', () => {
    const verdict = checkGrounding(
      'Large files are better read with a stream [2]. The `recursive` option of `mkdir` creates missing parents [3, 1]. The zebra rollout reaches staging [3].',
      [DIRECTORIES, FILES, ROLLOUT, passageOf(5, ['Guide', 'Streams'], 'A stream moves data in chunks.')],
    );

    expect(verdict.accepted).toBe(true);
    if (!verdict.accepted) return;
    const markers = findCitationMarkers(verdict.text);
    expect(markers).toEqual([1, 2, 3, 2]);
    expect(new Set(markers)).toEqual(new Set(verdict.cited.map((_, position) => position + 1)));
    expect(verdict.cited).toEqual([FILES, ROLLOUT, DIRECTORIES]);
  });
});
