import { readFile } from 'node:fs/promises';
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
}

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
