import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evaluateDocsSet } from './docs-eval.ts';
import type { DocsQuestion } from './docs-questions.ts';

describe('evaluateDocsSet', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'docs-eval-test-'));
    await writeFile(
      join(folder, 'fs.md'),
      '# File system\n\n## `fs.stat(path, callback)`\n\nReturns the stats of a file. The `stats.size` property is the size of the file in bytes.\n',
    );
    await writeFile(
      join(folder, 'timers.md'),
      '# Timers\n\n## `setInterval(callback, delay)`\n\nSchedules repeated execution of the callback every delay milliseconds.\n',
    );
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const questions: DocsQuestion[] = [
    { id: 'size', question: 'size of a file in bytes', expect: 'answer', gold: ['fs.md'], key: ['fs.stat', 'size'], split: 'report' },
    { id: 'interval', question: 'repeated execution every few milliseconds', expect: 'answer', gold: ['timers.md'], split: 'fit' },
    { id: 'missing', question: 'compress a file with gzip', expect: 'answer', gold: ['zlib.md'], split: 'report' },
    { id: 'peru', question: 'What is the capital of Peru?', expect: 'abstain', gold: [], split: 'report' },
  ];

  it('ingests the folder in place, judges every question into its half, and records each for the dump', async () => {
    const run = await evaluateDocsSet('test', folder, questions);

    expect(run.documents).toBe(2);
    expect(run.missingGold).toEqual(['zlib.md']);
    expect([run.report.answerable, run.report.off_topic, run.fit.answerable, run.fit.off_topic]).toEqual([2, 1, 1, 0]);
    expect(run.records.map((record) => [record.id, record.split])).toEqual([
      ['size', 'report'],
      ['interval', 'fit'],
      ['missing', 'report'],
      ['peru', 'report'],
    ]);
    const [size] = run.records;
    expect(size?.top[0]?.doc_id).toBe('fs.md');
    expect(size?.hit_at_5).toBe(true);
    const peru = run.records.find((record) => record.id === 'peru');
    expect(peru).toMatchObject({ abstained: true, cited: [], top: [], evidence: null });
    expect(run.report.off_topic_abstained).toBe(1);
  });

  it('splits the answerable questions of a half into cited gold, confidently wrong and abstained, summing to 1', async () => {
    const run = await evaluateDocsSet('test', folder, questions);

    const { cited_gold: cited, confidently_wrong: wrong, abstained } = run.report;
    expect((cited ?? 0) + (wrong ?? 0) + (abstained ?? 0)).toBeCloseTo(1, 12);
    expect(run.records.every((record) => record.ms > 0)).toBe(true);
  });
});
