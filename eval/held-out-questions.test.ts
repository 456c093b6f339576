import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadNodeDocsQuestionRecords } from './docs-questions.ts';
import { alternativesOf, containsKeyTerm, normalizeForKeys } from './key-terms.ts';

/**
 * The held-out sets (eval/pino-docs-questions.jsonl,
 * eval/piscina-docs-questions.jsonl): questions about a dependency's docs
 * (as its npm package ships them) worded as visitors word them, which no
 * weight, threshold or feature is ever fitted on. Their gold pages must
 * exist and state what a right answer names.
 */
const SETS = [
  { name: 'pino', docs: '../node_modules/pino/docs', answerable: 30 },
  { name: 'piscina', docs: '../node_modules/piscina/docs/docs', answerable: 25 },
];

describe.each(SETS)('the held-out $name docs set', ({ name, docs, answerable: least }) => {
  it('asks answerable and off-topic questions, all in the report half, whose gold pages exist and name a key term', async () => {
    const records = await loadNodeDocsQuestionRecords(fileURLToPath(new URL(`./${name}-docs-questions.jsonl`, import.meta.url)));
    const folder = fileURLToPath(new URL(docs, import.meta.url));
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
