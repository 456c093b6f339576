import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNodeDocsQuestionRecords, nodeDocsStratum, type NodeDocsQuestionRecord } from './docs-questions.ts';
import { assignSplits } from './docs-split.ts';
import { alternativesOf, containsKeyTerm, normalizeForKeys } from './key-terms.ts';
import { DEMO_CORPUS_PATH } from '../server/seed.ts';

const QUESTIONS_PATH = fileURLToPath(new URL('./node-docs-questions.jsonl', import.meta.url));

describe('the Node.js dev set (eval/node-docs-questions.jsonl)', () => {
  let records: NodeDocsQuestionRecord[];
  const pages = new Map<string, string>();

  beforeAll(async () => {
    records = await loadNodeDocsQuestionRecords(QUESTIONS_PATH);
    const gold = new Set(records.flatMap((record) => record.gold));
    for (const docId of gold) {
      const text = await readFile(join(DEMO_CORPUS_PATH, docId), 'utf8').catch(() => undefined);
      if (text !== undefined) pages.set(docId, normalizeForKeys(text));
    }
  });

  const answerable = (): Extract<NodeDocsQuestionRecord, { expect: 'answer' }>[] =>
    records.filter((record) => record.expect === 'answer');
  const offTopic = (): Extract<NodeDocsQuestionRecord, { expect: 'abstain' }>[] =>
    records.filter((record) => record.expect === 'abstain');

  it('holds at least 100 answerable and 30 off-topic questions, a third of those sharing words with the docs', () => {
    expect(answerable().length).toBeGreaterThanOrEqual(100);
    expect(offTopic().length).toBeGreaterThanOrEqual(30);
    expect(offTopic().filter((record) => record.shares_words).length * 3).toBeGreaterThanOrEqual(offTopic().length);
  });

  it('names only gold documents that exist in demo/node-docs', () => {
    const missing = answerable().flatMap((record) => record.gold.filter((docId) => !pages.has(docId)).map((docId) => `${record.id}: ${docId}`));
    expect(missing).toEqual([]);
  });

  it('has every alternative of every key term in at least one of its gold documents', () => {
    const absent = answerable().flatMap((record) =>
      record.key.flatMap((entry) =>
        alternativesOf(entry)
          .filter((term) => !record.gold.some((docId) => containsKeyTerm(pages.get(docId) ?? '', term)))
          .map((term) => `${record.id}: ${term}`),
      ),
    );
    expect(absent).toEqual([]);
  });

  it('lists no gold document twice in one question', () => {
    expect(answerable().filter((record) => new Set(record.gold).size !== record.gold.length).map((record) => record.id)).toEqual([]);
  });

  it('records the stratified split of eval/docs-split.ts, so no question was moved between halves by hand', () => {
    const splits = assignSplits(records.map((record) => ({ id: record.id, stratum: nodeDocsStratum(record) })));
    const moved = records.filter((record) => splits.get(record.id) !== record.split).map((record) => record.id);
    expect(moved).toEqual([]);
  });

  it('puts answerable and off-topic questions in both halves, and every module with two questions or more in both', () => {
    for (const group of [answerable(), offTopic()]) {
      expect(new Set(group.map((record) => record.split))).toEqual(new Set(['fit', 'report']));
    }
    const halvesByModule = new Map<string, Set<string>>();
    const counts = new Map<string, number>();
    for (const record of answerable()) {
      const stratum = nodeDocsStratum(record);
      halvesByModule.set(stratum, (halvesByModule.get(stratum) ?? new Set()).add(record.split));
      counts.set(stratum, (counts.get(stratum) ?? 0) + 1);
    }
    const oneSided = [...counts].filter(([stratum, count]) => count >= 2 && halvesByModule.get(stratum)?.size !== 2);
    expect(oneSided).toEqual([]);
  });
});
