import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import * as consoleCsp from './console-csp.ts';
import * as consoleTerms from './console-terms.ts';
import * as queryTerms from './query-terms.ts';
import * as workspaceTerms from './workspace-terms.ts';

/**
 * Each wire value list and constant is written once, in its home under
 * protocol/, and imported everywhere else: a second copy in the widget, the
 * console or the server would drift from the first the day one of them
 * changes. Scans the non-test TypeScript of those folders for a second
 * definition of a name, and for a list's values written out again (as an
 * array or a union, in their order).
 */

const ROOT = join(import.meta.dirname, '..');
const FOLDERS = ['protocol', 'widget', 'console', 'server'];

/** Every constant of the wire vocabulary, by the module that defines it. */
const HOMES: Record<string, Record<string, unknown>> = {
  'protocol/query-terms.ts': queryTerms,
  'protocol/workspace-terms.ts': workspaceTerms,
  'protocol/console-terms.ts': consoleTerms,
  'protocol/console-csp.ts': consoleCsp,
};

/**
 * Files that must restate a list because they cannot import it: the SQL
 * schemas' CHECK constraints on `provenance`.
 */
const RESTATING = new Set(['server/store/sqlite/sqlite-schema.ts', 'server/store/postgres/postgres-schema.ts']);

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** A list's values in order, in code quotes (not a comment's backticks), separated by commas (an array) or bars (a union). */
function listPattern(values: readonly string[]): RegExp {
  const quoted = values.map((value) => `['"]${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`);
  return new RegExp(quoted.join(String.raw`\s*[,|]\s*`));
}

/**
 * @returns `file: what` for each definition of a wire constant outside its home,
 *   given the files' texts by path
 */
export function restatedWireTerms(files: ReadonlyMap<string, string>, homes = HOMES, restating = RESTATING): string[] {
  const found: string[] = [];
  for (const [home, constants] of Object.entries(homes)) {
    for (const [name, value] of Object.entries(constants)) {
      if (!/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
      const definition = new RegExp(String.raw`\b(?:const|let|var)\s+${name}\b`);
      const list = Array.isArray(value) && value.length > 1 ? listPattern(value as string[]) : undefined;
      for (const [file, text] of files) {
        if (file === home) continue;
        if (definition.test(text)) found.push(`${file}: defines ${name} (home: ${home})`);
        if (list?.test(text) && !restating.has(file)) found.push(`${file}: writes out the values of ${name} (home: ${home})`);
      }
    }
  }
  return found;
}

describe('wire value lists and constants', () => {
  test('the widget, console, server and protocol sources: each defined once, in its home under protocol/', async () => {
    const files = new Map<string, string>();
    for (const folder of FOLDERS) {
      for (const file of await sources(folder)) files.set(file, await readFile(join(ROOT, file), 'utf8'));
    }

    expect(restatedWireTerms(files)).toEqual([]);
  });

  test('a second definition by name, or the values written out as an array or a union: each reported', () => {
    const files = new Map([
      ['widget/kb-widget.ts', "const RATING_REASONS = ['a'];\nconst x = ['incorrect', 'out_of_date', 'broken_link', 'unrelated', 'other'];"],
      ['server/store/feedback/feedback.ts', "provenance: 'generated' | 'abstained' | 'qa_shortcut';"],
    ]);

    expect(restatedWireTerms(files)).toEqual([
      'server/store/feedback/feedback.ts: writes out the values of PROVENANCES (home: protocol/query-terms.ts)',
      'widget/kb-widget.ts: defines RATING_REASONS (home: protocol/query-terms.ts)',
      'widget/kb-widget.ts: writes out the values of PROBLEM_REASONS (home: protocol/query-terms.ts)',
    ]);
  });
});
