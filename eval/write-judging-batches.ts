import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DumpRecord } from './docs-eval.ts';
import { K8S_PAGE_JUDGMENTS, loadPageJudgments } from './docs-questions.ts';
import { judgingBatches } from './judging-batches.ts';
import { ingestThrowawayKnowledgeBase } from './throwaway-knowledge-base.ts';

/**
 * `npm run judging-batches -- <dump>`: writes the batches of Kubernetes
 * pages still to be judged (eval/judging-batches.ts) for the readers who
 * extend eval/k8s-docs-page-judgments.jsonl after retrieval changed; their
 * instructions are eval/k8s-docs-judging.md. The dump is an `npm run eval
 * -- --only docs --dump <dump>` run's; the Kubernetes docs are ingested
 * (BM25F alone, about half a minute) to show each retrieved section's text.
 *
 * Options: `--out <dir>` (default `eval/.cache/judging`), `--questions
 * <n>` per batch (default 50), `--data <dir>` (default `../shared/eval`).
 */

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string', default: fileURLToPath(new URL('./.cache/judging', import.meta.url)) },
    questions: { type: 'string', default: '50' },
    data: { type: 'string' },
  },
});
const [dumpPath] = positionals;
if (dumpPath === undefined) throw new Error('Name the dump of an `npm run eval -- --only docs --dump <file>` run');
const questionsPerBatch = Number(values.questions);
if (!Number.isInteger(questionsPerBatch) || questionsPerBatch < 1) throw new Error(`--questions must be a whole number of at least 1, not "${values.questions}"`);
const dataDir = resolve(values.data ?? fileURLToPath(new URL('../../shared/eval', import.meta.url)));

const records = (await readFile(dumpPath, 'utf8'))
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as DumpRecord)
  .filter((record) => record.set === 'k8s');
if (records.length === 0) throw new Error(`"${dumpPath}" holds no Kubernetes question: run the evaluation with the k8s set`);
const judgments = await loadPageJudgments(K8S_PAGE_JUDGMENTS);

const knowledgeBase = await ingestThrowawayKnowledgeBase('judging-k8s', [join(dataDir, 'k8s-docs', 'docs')]);
const sections = new Map<string, string>();
try {
  const pages = new Set(records.flatMap((record) => record.top.map((passage) => passage.doc_id)));
  for (const page of pages) {
    for (const passage of await knowledgeBase.store.passagesOf(knowledgeBase.reach, page)) sections.set(`${page}\n${passage.headingPath.join('\n')}`, passage.text);
  }
} finally {
  await knowledgeBase.close();
}

const batches = judgingBatches(records, judgments, (page, headingPath) => sections.get(`${page}\n${headingPath.join('\n')}`), questionsPerBatch);
await mkdir(values.out, { recursive: true });
for (const [index, batch] of batches.entries()) await writeFile(join(values.out, `batch-${String(index).padStart(2, '0')}.md`), batch);
const pages = batches.reduce((count, batch) => count + (batch.match(/^### Page /gm)?.length ?? 0), 0);
process.stdout.write(`${pages} pages of ${records.filter((record) => record.expect === 'answer').length} questions to judge, in ${batches.length} batches in ${values.out}\n`);
