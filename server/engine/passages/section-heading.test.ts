import { describe, expect, test } from 'vitest';
import { namesApi, readHeading } from './section-heading.ts';

describe('readHeading', () => {
  test('signature in backticks: kind signature, shown as written, subject the name without parameters', () => {
    expect(readHeading('`fs.stat(path[, options], callback)`')).toEqual({
      kind: 'signature',
      text: '`fs.stat(path[, options], callback)`',
      subject: 'fs.stat',
    });
  });

  test('constructor signature: subject the class name without "new"', () => {
    expect(readHeading('`new URL(input[, base])`').subject).toBe('URL');
  });

  test('signature written without backticks: put into backticks for display', () => {
    expect(readHeading('fs.stat(path)')).toEqual({ kind: 'signature', text: '`fs.stat(path)`', subject: 'fs.stat' });
  });

  test('worded heading ending in a parenthesis: prose, not a call', () => {
    expect(readHeading('Hello world (part 2)').kind).toBe('prose');
  });

  test('labelled heading: kind labelled with its label, subject the name without label, backticks or parameters', () => {
    expect(readHeading('Class: `fs.Stats`')).toEqual({ kind: 'labelled', text: 'Class: `fs.Stats`', subject: 'fs.Stats', label: 'Class' });
    expect(readHeading('Static method: `Buffer.alloc(size[, fill[, encoding]])`').subject).toBe('Buffer.alloc');
    expect(readHeading("Event: `'exit'`").label).toBe('Event');
  });

  test('property in backticks: kind code, subject the name', () => {
    expect(readHeading('`stats.size`')).toEqual({ kind: 'code', text: '`stats.size`', subject: 'stats.size' });
  });

  test('several names in code joined by commas, "and" or a remark in parentheses: kind code, subject the names', () => {
    expect(readHeading('`-c`, `--check`')).toMatchObject({ kind: 'code', subject: '-c --check' });
    expect(readHeading('`--max-old-space-size=SIZE` (in megabytes)').kind).toBe('code');
    expect(readHeading('`dns.resolve()` and `dns.reverse()`')).toMatchObject({ kind: 'code', subject: 'dns.resolve dns.reverse' });
  });

  test('words around code: prose, its own subject', () => {
    expect(readHeading('Usage with `async/await`')).toEqual({ kind: 'prose', text: 'Usage with `async/await`', subject: 'Usage with `async/await`' });
  });

  test('custom heading id of a static-site generator: dropped from text and subject', () => {
    expect(readHeading('Adding worker nodes {#join-nodes}')).toEqual({ kind: 'prose', text: 'Adding worker nodes', subject: 'Adding worker nodes' });
  });

  test('extra whitespace: collapsed and trimmed', () => {
    expect(readHeading('  Read   a file ').text).toBe('Read a file');
  });
});

describe('namesApi', () => {
  test('signature, labelled name and code: yes; words: no', () => {
    expect(['`fs.stat(path)`', 'Class: `fs.Stats`', '`stats.size`', 'Caveats'].map((heading) => namesApi(readHeading(heading)))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
