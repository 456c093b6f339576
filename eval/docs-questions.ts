import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { assignSplits, type Split } from './docs-split.ts';
import type { KeyEntry } from './key-terms.ts';

/**
 * The question sets of the documentation evaluation (eval/docs-eval.ts):
 *
 * - **Node.js dev set** (`eval/node-docs-questions.jsonl`, written for this
 *   project): one JSON object a line. Answerable questions:
 *   `{"id", "question", "expect": "answer", "gold": ["fs.md"], "key": [...], "split"}`;
 *   off-topic ones: `{"id", "question", "expect": "abstain", "gold": [],
 *   "shares_words": true|false, "split"}`. `gold` are document ids of the
 *   bundled Node.js v18 docs (`demo/node-docs/api`), `key` the terms a right
 *   answer must name (eval/key-terms.ts: every entry, any alternative of an
 *   entry), `shares_words` marks off-topic questions worded with the docs'
 *   words ("how do I buffer a video?"), `split` the half (eval/docs-split.ts).
 * - **Kubernetes docs** (`shared/eval/k8s-docs/questions.jsonl`, see its
 *   SOURCE.md): `q1` rewordings are the fit half, `q2` the report half; the
 *   30 out-of-scope questions are split by eval/docs-split.ts (one stratum).
 *   Gold pages only, no key: a right answer is one citing the gold page.
 */

/** One question as the evaluation asks it. */
export interface DocsQuestion {
  id: string;
  /** The text asked. */
  question: string;
  /** `answer`: the docs answer it; `abstain`: off-topic, the engine should abstain. */
  expect: 'answer' | 'abstain';
  /** Document ids that answer it (empty for off-topic questions). */
  gold: string[];
  /** Terms a right answer names; undefined when the set has none (right = gold cited). */
  key?: KeyEntry[];
  split: Split;
  /**
   * A reader's verdict on the pages retrieved for the question (page id →
   * verdict), where the set has a second judgment
   * ({@link loadPageJudgments}); undefined when it has none. A gold page
   * answers whatever its verdict.
   */
  judged?: Readonly<Record<string, PageVerdict>>;
}

/**
 * Whether a page answers a question, by a reader's judgment
 * (eval/README.md "Pages judged to answer"): `answers` - a visitor reading
 * it gets what was asked; `partly` - right subject, part of the answer;
 * `no` - another subject, or shared words only.
 */
export type PageVerdict = 'answers' | 'partly' | 'no';

/** Which wording of the Kubernetes questions is asked. */
export type K8sWording = 'q' | 'source';

const keyEntrySchema = z.union([z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1)]);
const nodeQuestionSchema = z.discriminatedUnion('expect', [
  z.strictObject({
    id: z.string().min(1),
    question: z.string().trim().min(1),
    expect: z.literal('answer'),
    gold: z.array(z.string().min(1)).min(1),
    key: z.array(keyEntrySchema).min(1),
    split: z.enum(['fit', 'report']),
  }),
  z.strictObject({
    id: z.string().min(1),
    question: z.string().trim().min(1),
    expect: z.literal('abstain'),
    gold: z.array(z.string()).max(0),
    shares_words: z.boolean(),
    split: z.enum(['fit', 'report']),
  }),
]);

/** A Node.js dev-set line as stored. */
export type NodeDocsQuestionRecord = z.infer<typeof nodeQuestionSchema>;

const k8sQuestionSchema = z.object({
  id: z.string().min(1),
  q: z.string().min(1),
  variant: z.enum(['q1', 'q2']).optional(),
  gold: z.array(z.string().min(1)),
  expect: z.enum(['answer', 'abstain']),
  source_question: z.string().min(1).optional(),
});

const pageJudgmentSchema = z.strictObject({
  id: z.string().min(1),
  page: z.string().min(1),
  verdict: z.enum(['answers', 'partly', 'no']),
  why: z.string(),
});

/**
 * Reads a second judgment of a question set's answers: one JSON object a
 * line, `{"id", "page", "verdict", "why"}` - whether the page answers
 * question `id` ({@link PageVerdict}), and the reader's reason.
 *
 * @param path the judgments file (`eval/k8s-docs-page-judgments.jsonl`)
 * @returns question id → page id → verdict
 * @throws Error naming the line and field when a line is malformed, or a
 *   (question, page) pair is judged twice
 */
export async function loadPageJudgments(path: string): Promise<Map<string, Record<string, PageVerdict>>> {
  const judgments = new Map<string, Record<string, PageVerdict>>();
  for (const record of parseLines(await readFile(path, 'utf8'), path, pageJudgmentSchema)) {
    const pages = judgments.get(record.id) ?? {};
    if (pages[record.page] !== undefined) throw new Error(`"${path}": page "${record.page}" of question "${record.id}" is judged twice`);
    pages[record.page] = record.verdict;
    judgments.set(record.id, pages);
  }
  return judgments;
}

/**
 * The second judgment of the Kubernetes questions (eval/README.md "Pages
 * judged to answer"): for each users' rewording, which of the pages the
 * engine retrieved for it answer it, by a reader who did not see the gold page.
 */
export const K8S_PAGE_JUDGMENTS = fileURLToPath(new URL('./k8s-docs-page-judgments.jsonl', import.meta.url));

/**
 * {@link loadK8sQuestions} with {@link K8S_PAGE_JUDGMENTS} attached to the
 * users' rewordings (the judgment is of those; the source wording gets none).
 *
 * @throws Error as {@link loadK8sQuestions} and {@link loadPageJudgments}
 */
export async function loadJudgedK8sQuestions(path: string, wording: K8sWording = 'q'): Promise<DocsQuestion[]> {
  const questions = await loadK8sQuestions(path, wording);
  return wording === 'q' ? withPageJudgments(questions, await loadPageJudgments(K8S_PAGE_JUDGMENTS)) : questions;
}

/**
 * @returns the questions, each answerable one with its pages' verdicts
 *   ({@link DocsQuestion.judged}; an empty record when none of its pages was judged)
 */
export function withPageJudgments(questions: readonly DocsQuestion[], judgments: ReadonlyMap<string, Record<string, PageVerdict>>): DocsQuestion[] {
  return questions.map((question) => (question.expect === 'answer' ? { ...question, judged: judgments.get(question.id) ?? {} } : question));
}

/**
 * @param path the Node.js dev-set file
 * @returns the lines in file order, as stored
 * @throws Error naming the line and field when a line is malformed, or an id repeats
 */
export async function loadNodeDocsQuestionRecords(path: string): Promise<NodeDocsQuestionRecord[]> {
  const records = parseLines(await readFile(path, 'utf8'), path, nodeQuestionSchema);
  const seen = new Set<string>();
  for (const record of records) {
    if (seen.has(record.id)) throw new Error(`"${path}": question id "${record.id}" occurs more than once`);
    seen.add(record.id);
  }
  return records;
}

/**
 * @param path the Node.js dev-set file
 * @throws Error as {@link loadNodeDocsQuestionRecords}
 */
export async function loadNodeDocsQuestions(path: string): Promise<DocsQuestion[]> {
  return (await loadNodeDocsQuestionRecords(path)).map((record) =>
    record.expect === 'answer'
      ? { id: record.id, question: record.question, expect: 'answer', gold: record.gold, key: record.key, split: record.split }
      : { id: record.id, question: record.question, expect: 'abstain', gold: [], split: record.split },
  );
}

/**
 * The stratum of a Node.js dev-set question for {@link assignSplits}: its
 * first gold page, or for an off-topic question whether it shares words
 * with the docs.
 */
export function nodeDocsStratum(record: NodeDocsQuestionRecord): string {
  if (record.expect === 'abstain') return record.shares_words ? 'off-topic, shares words' : 'off-topic';
  return record.gold[0] ?? '';
}

/**
 * @param path `k8s-docs/questions.jsonl`
 * @param wording `q` (the users' rewording, the default) or `source` (the
 *   question's original wording, closer to the docs' words: a diagnostic)
 * @throws Error naming the line and field when a line is malformed, or an
 *   answerable question has no variant or no source question to ask
 */
export async function loadK8sQuestions(path: string, wording: K8sWording = 'q'): Promise<DocsQuestion[]> {
  const records = parseLines(await readFile(path, 'utf8'), path, k8sQuestionSchema);
  const offTopicSplits = assignSplits(
    records.filter((record) => record.expect === 'abstain').map((record) => ({ id: record.id, stratum: 'off-topic' })),
  );
  return records.map((record) => {
    if (record.expect === 'abstain') {
      return { id: record.id, question: record.q, expect: 'abstain', gold: [], split: offTopicSplits.get(record.id) ?? 'report' };
    }
    if (!record.variant) throw new Error(`"${path}": answerable question "${record.id}" has no variant`);
    const question = wording === 'source' ? record.source_question : record.q;
    if (question === undefined) throw new Error(`"${path}": question "${record.id}" has no source_question`);
    return { id: record.id, question, expect: 'answer', gold: record.gold, split: record.variant === 'q1' ? 'fit' : 'report' };
  });
}

function parseLines<T>(text: string, path: string, schema: z.ZodType<T>): T[] {
  const records: T[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (error) {
      throw new Error(`"${path}" line ${index + 1} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`"${path}" line ${index + 1}: ${issue?.path.join('.') || 'line'}: ${issue?.message ?? 'invalid'}`);
    }
    records.push(parsed.data);
  }
  return records;
}
