import { describe, expect, test } from 'vitest';
import { indexPage, indexPassage, indexPassages } from './index-fields.ts';

/**
 * The index of a document as ingest and re-indexing make it: the same
 * counts whichever way they are computed.
 */

const DOCUMENT = { title: 'Volumes', description: 'Storage that outlives a container.' };
const PASSAGES = [
  { headingPath: ['Volumes'], text: 'A volume is a directory, possibly with some data in it.' },
  { headingPath: ['Volumes', 'Types of volumes'], text: 'Kubernetes supports several types of volumes: `emptyDir`, `hostPath`.' },
  { headingPath: ['Volumes', 'Types of volumes', 'emptyDir'], text: 'An emptyDir volume is first created when a Pod is assigned to a node.' },
];

/** A map's entries in key order, so that maps built in another order compare equal. */
function sorted<V>(map: ReadonlyMap<string, V>): [string, V][] {
  return [...map].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
}

describe('indexPage', () => {
  test('with the passages\' own indexes: the same page counts and lengths as analyzing their text again', () => {
    // Arrange
    const indexes = indexPassages(DOCUMENT, PASSAGES);

    // Act
    const reused = indexPage('concepts/storage/volumes.md', DOCUMENT, PASSAGES.map((passage, position) => ({ ...passage, index: indexes[position]! })));
    const analyzed = indexPage('concepts/storage/volumes.md', DOCUMENT, PASSAGES);

    // Assert
    expect(reused.lengths).toEqual(analyzed.lengths);
    expect(sorted(reused.terms)).toEqual(sorted(analyzed.terms));
    expect(analyzed.terms.get('volum')).toEqual([1, 0, 0, 1, 3, 1]);
  });
});

describe('indexPassages', () => {
  test('each passage indexed as indexPassage indexes it alone', () => {
    // Act
    const together = indexPassages(DOCUMENT, PASSAGES);

    // Assert
    expect(together).toEqual(PASSAGES.map((passage) => indexPassage(DOCUMENT, passage)));
    expect(together[2]!.terms.get('emptydir')).toEqual([0, 0, 1, 1]);
  });
});
