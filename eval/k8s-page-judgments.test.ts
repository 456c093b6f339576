import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { K8S_PAGE_JUDGMENTS, loadK8sQuestions, loadPageJudgments, withPageJudgments, type DocsQuestion, type PageVerdict } from './docs-questions.ts';

const CORPUS = fileURLToPath(new URL('../../shared/eval/k8s-docs', import.meta.url));
const AVAILABLE = existsSync(join(CORPUS, 'questions.jsonl'));

describe('loadPageJudgments', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'kb-judgments-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const write = async (name: string, lines: readonly object[]): Promise<string> => {
    const path = join(folder, name);
    await writeFile(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    return path;
  };

  it('reads each question\'s pages and verdicts, and attaches them to the answerable questions only', async () => {
    const path = await write('good.jsonl', [
      { id: 'q-1', page: 'a.md', verdict: 'answers', why: 'says how' },
      { id: 'q-1', page: 'b.md', verdict: 'no', why: 'other subject' },
    ]);
    const judgments = await loadPageJudgments(path);
    const questions: DocsQuestion[] = [
      { id: 'q-1', question: 'how?', expect: 'answer', gold: ['g.md'], split: 'fit' },
      { id: 'q-2', question: 'and this?', expect: 'answer', gold: ['g.md'], split: 'fit' },
      { id: 'off', question: 'capital of France?', expect: 'abstain', gold: [], split: 'fit' },
    ];

    expect(withPageJudgments(questions, judgments).map((question) => question.judged)).toEqual([{ 'a.md': 'answers', 'b.md': 'no' }, {}, undefined]);
  });

  it('refuses a verdict outside answers / partly / no, and a page judged twice for one question, naming the line or page', async () => {
    await expect(loadPageJudgments(await write('verdict.jsonl', [{ id: 'q-1', page: 'a.md', verdict: 'maybe', why: '' }]))).rejects.toThrow(/line 1/);
    await expect(
      loadPageJudgments(
        await write('twice.jsonl', [
          { id: 'q-1', page: 'a.md', verdict: 'answers', why: '' },
          { id: 'q-1', page: 'a.md', verdict: 'no', why: '' },
        ]),
      ),
    ).rejects.toThrow(/"a\.md" of question "q-1" is judged twice/);
  });
});

describe('the Kubernetes page judgments (eval/k8s-docs-page-judgments.jsonl)', () => {
  it('judge pages of the corpus for its users\' rewordings, each of the 400 at least once', async (context) => {
    if (!AVAILABLE) context.skip(`the Kubernetes docs corpus is not at ${CORPUS}`);
    const questions = new Map((await loadK8sQuestions(join(CORPUS, 'questions.jsonl'))).map((question) => [question.id, question]));
    const judgments = await loadPageJudgments(K8S_PAGE_JUDGMENTS);
    const problems: string[] = [];
    const verdicts: PageVerdict[] = [];
    for (const [id, pages] of judgments) {
      const question = questions.get(id);
      if (question?.expect !== 'answer') problems.push(`${id}: not an answerable question of the set`);
      for (const [page, verdict] of Object.entries(pages)) {
        if (!existsSync(join(CORPUS, 'docs', page))) problems.push(`${id}: no page ${page}`);
        verdicts.push(verdict);
      }
    }

    expect(problems).toEqual([]);
    expect(judgments.size).toBe(400);
    // A second judgment that found every page to answer, or none, would be no judgment.
    expect(verdicts.filter((verdict) => verdict === 'answers').length).toBeGreaterThan(verdicts.length * 0.05);
    expect(verdicts.filter((verdict) => verdict === 'no').length).toBeGreaterThan(verdicts.length * 0.3);
  });
});
