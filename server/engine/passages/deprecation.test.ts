import { describe, expect, test } from 'vitest';
import { deprecationOf, isReplacementSection, sectionDeprecation } from './deprecation.ts';
import type { ScoredPassage } from '../../store/store.ts';

function passage(chunkId: number, heading: string, text: string): ScoredPassage {
  return { chunkId, kbId: 'kb', docId: 'fs.md', title: 'File system', headingPath: ['File system', heading], text, quotable: true, contentHash: 'h', score: 1 };
}

describe('deprecationOf', () => {
  test('reads a Node.js stability line and the replacement it names', () => {
    expect(deprecationOf({ text: 'Stability: 0 - Deprecated: Use `fs.stat()` or `fs.access()` instead.\n\n- `path` {string}' })).toEqual({
      notice: 'Deprecated: Use `fs.stat()` or `fs.access()` instead.',
      replacement: '`fs.stat()` or `fs.access()`',
      replacementSubject: 'fs.stat',
    });
    expect(deprecationOf({ text: 'Stability: 0 - Deprecated. Check `request.destroyed` instead.' })?.replacementSubject).toBe('request.destroyed');
    expect(deprecationOf({ text: 'Stability: 0 - Deprecated. Use `request.socket`.' })?.replacementSubject).toBe('request.socket');
    expect(deprecationOf({ text: 'Stability: 0 - Deprecated: Use `Buffer.alloc()` instead (also see `Buffer.allocUnsafe()`).' })?.replacementSubject).toBe('Buffer.alloc');
  });

  test('reads other generators\' marks, with or without a replacement', () => {
    expect(deprecationOf({ text: '**Deprecated.** Use `client.connect()` instead.' })?.replacementSubject).toBe('client.connect');
    expect(deprecationOf({ text: 'Deprecated: this API will be removed.' })).toEqual({ notice: 'Deprecated: this API will be removed.' });
  });

  test('a mark inside an option or in running prose does not deprecate the section', () => {
    expect(deprecationOf({ text: '- `recursive` {boolean} If `true`, perform a recursive directory removal. **Deprecated.**' })).toBeUndefined();
    expect(deprecationOf({ text: 'The `buf.parent` property is a deprecated alias for `buf.buffer`.' })).toBeUndefined();
    expect(deprecationOf({ text: 'Stability: 1 - Experimental' })).toBeUndefined();
  });
});

describe('sectionDeprecation and isReplacementSection', () => {
  test('a later passage of a marked section is deprecated too; the replacement section is found by its heading subject', () => {
    const marked = passage(1, '`fs.exists(path, callback)`', 'Stability: 0 - Deprecated: Use `fs.stat()` instead.');
    const later = passage(2, '`fs.exists(path, callback)`', 'Then call the `callback` argument with either true or false.');
    const other = passage(3, '`fs.stat(path[, options], callback)`', 'Asynchronous stat(2).');
    const deprecation = sectionDeprecation(later, [marked, later, other]);
    expect(deprecation?.replacementSubject).toBe('fs.stat');
    expect(sectionDeprecation(other, [marked, later, other])).toBeUndefined();
    expect(isReplacementSection(other, deprecation!)).toBe(true);
    expect(isReplacementSection(marked, deprecation!)).toBe(false);
  });
});
