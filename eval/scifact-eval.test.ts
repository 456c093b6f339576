import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateScifact, rankDocuments } from './scifact-eval.ts';

describe('evaluateScifact', () => {
  let folder: string;
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('ingests the corpus and scores the engine search with nDCG@10 and Recall@100', async () => {
    folder = await mkdtemp(join(tmpdir(), 'scifact-test-'));
    const corpus = [
      { _id: '10', title: 'Aspirin and myocardial infarction', text: 'Daily aspirin lowers the risk of a first heart attack.' },
      { _id: '20', title: 'Vitamin D in bone health', text: 'Vitamin D supplements increase bone mineral density.' },
      { _id: '30', title: 'Sleep and memory', text: 'Sleep deprivation impairs memory consolidation in adults.' },
    ];
    await writeFile(join(folder, 'corpus.jsonl'), corpus.map((entry) => JSON.stringify(entry)).join('\n'));
    await writeFile(
      join(folder, 'queries.jsonl'),
      [{ _id: '1', text: 'Aspirin reduces heart attack risk.' }, { _id: '2', text: 'Lack of sleep harms memory.' }, { _id: '3', text: 'No qrels.' }]
        .map((entry) => JSON.stringify(entry))
        .join('\n'),
    );
    await writeFile(join(folder, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\n1\t10\t1\n2\t30\t1\n');

    const run = await evaluateScifact(folder);

    expect(run.queries).toBe(2);
    expect(run.documents).toBe(3);
    expect(run.figures).toEqual({ ndcg_at_10: 1, recall_at_100: 1 });
  });
});

describe('rankDocuments', () => {
  it('ranks each document at its best passage and keeps the first 100', () => {
    const passages = ['a', 'b', 'a', ...Array.from({ length: 120 }, (_, index) => `d${index}`)];

    const ranked = rankDocuments(passages);

    expect(ranked.slice(0, 3)).toEqual(['a', 'b', 'd0']);
    expect(ranked).toHaveLength(100);
  });
});
