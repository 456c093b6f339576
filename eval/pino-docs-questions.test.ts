import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadNodeDocsQuestionRecords } from './docs-questions.ts';
import { alternativesOf, containsKeyTerm, normalizeForKeys } from './key-terms.ts';

/**
 * The held-out set (eval/pino-docs-questions.jsonl): questions about pino's
 * docs (as the `pino` package ships them) worded as visitors word them,
 * which no weight, threshold or feature is ever fitted on. Its gold pages
 * must exist and state what a right answer names.
 */
const QUESTIONS = fileURLToPath(new URL('./pino-docs-questions.jsonl', import.meta.url));
const DOCS = fileURLToPath(new URL('../node_modules/pino/docs', import.meta.url));

describe('the held-out pino docs set', () => {
  it('asks answerable and off-topic questions, all in the report half, whose gold pages exist and name a key term', async () => {
    const records = await loadNodeDocsQuestionRecords(QUESTIONS);
    const answerable = records.filter((record) => record.expect === 'answer');
    expect(answerable.length).toBeGreaterThanOrEqual(30);
    expect(records.length - answerable.length).toBeGreaterThanOrEqual(5);
    expect(records.every((record) => record.split === 'report')).toBe(true);

    const unsupported: string[] = [];
    for (const record of answerable) {
      const pages = await Promise.all(record.gold.map(async (docId) => normalizeForKeys(await readFile(join(DOCS, docId), 'utf8'))));
      for (const entry of record.key) {
        if (!pages.some((page) => alternativesOf(entry).some((term) => containsKeyTerm(page, term)))) unsupported.push(`${record.id}: ${JSON.stringify(entry)}`);
      }
    }
    expect(unsupported).toEqual([]);
  });
});
