import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadNodeDocsQuestionRecords } from './docs-questions.ts';
import { HELD_OUT_SETS, HELD_OUT_SOURCES } from './held-out-sets.ts';
import { alternativesOf, containsKeyTerm, normalizeForKeys } from './key-terms.ts';

/**
 * The held-out sets (eval/pino-docs-questions.jsonl,
 * eval/piscina-docs-questions.jsonl): questions about a dependency's docs
 * (as its npm package ships them) worded as visitors word them, which no
 * weight, threshold or feature is ever fitted on. Their gold pages must
 * exist and state what a right answer names.
 */
const SETS = [
  { name: 'pino', answerable: 30 },
  { name: 'piscina', answerable: 25 },
] as const;

it('every held-out set is checked here', () => {
  expect(SETS.map(({ name }) => name)).toEqual([...HELD_OUT_SETS]);
});

describe.each(SETS)('the held-out $name docs set', ({ name, answerable: least }) => {
  it('asks answerable and off-topic questions, all in the report half, whose gold pages exist and name a key term', async () => {
    const { docs: folder, questions } = HELD_OUT_SOURCES[name];
    const records = await loadNodeDocsQuestionRecords(questions);
    const answerable = records.filter((record) => record.expect === 'answer');
    expect(answerable.length).toBeGreaterThanOrEqual(least);
    expect(records.length - answerable.length).toBeGreaterThanOrEqual(5);
    expect(records.every((record) => record.split === 'report')).toBe(true);

    const unsupported: string[] = [];
    for (const record of answerable) {
      const pages = await Promise.all(record.gold.map(async (docId) => normalizeForKeys(await readFile(join(folder, docId), 'utf8'))));
      for (const entry of record.key) {
        if (!pages.some((page) => alternativesOf(entry).some((term) => containsKeyTerm(page, term)))) unsupported.push(`${record.id}: ${JSON.stringify(entry)}`);
      }
    }
    expect(unsupported).toEqual([]);
  });
});
