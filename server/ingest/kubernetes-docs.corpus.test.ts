import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAnswerEngine } from '../engine/answer-engine.ts';
import { collectAnswer } from '../engine/answer-events.ts';
import { embeddedStoreLocation, openStore } from '../store/open-store.ts';
import type { Reach, Store } from '../store/store.ts';
import { collectSourceFiles, ingestPaths, type IngestReport } from './pipeline/ingest-files.ts';
import { createLexicalRetriever } from '../retrieval/lexical-retriever.ts';

/**
 * The test of ingestion on a real documentation site (docs/ingestion.md "Documentation sites"): the English
 * Kubernetes docs (`../shared/eval/k8s-docs`, 1,569 Hugo pages with front
 * matter and shortcodes, read in place, never copied into the project) are
 * ingested through the normal path, then no title, stored passage, answer,
 * quoted passage or suggestion for the corpus's questions may show front
 * matter or generator markup. Runs in the `embedded` project only
 * (vite.config.ts), and is skipped when the corpus is absent.
 */

const CORPUS = fileURLToPath(new URL('../../../shared/eval/k8s-docs', import.meta.url));
const DOCS = join(CORPUS, 'docs');
const AVAILABLE = existsSync(DOCS);
const SKIP_NOTE = `the Kubernetes docs corpus is not at ${CORPUS} (see eval/README.md, "Documentation sets")`;
const KB_ID = 'k8s';
const REACH: Reach = { kbId: KB_ID, userId: '', visibilities: ['public'] };

/**
 * Front matter and generator markup as they once leaked: YAML
 * keys at the start of a line or after a sentence ("title: Device id:
 * device date: …"), front matter fences, Hugo shortcodes, Docusaurus and
 * MkDocs admonitions, HTML comments, JSX component tags (closing, with
 * attributes or self-closing: a bare `<MetricName>` is the docs' own
 * placeholder, written `&lt;MetricName&gt;` in the source).
 */
const LEAKS: readonly [string, RegExp][] = [
  ['front matter key', /(?:^|\n|[.:]\s)(?:title|content_type|weight|reviewers|linkTitle):\s/],
  ['front matter fence', /(?:^|\n)(?:---|\+\+\+)[ \t]*(?:\n|$)/],
  ['Hugo shortcode', /\{\{[<%]/],
  ['admonition', /:::|!!! /],
  ['HTML comment', /<!--/],
  // A closing tag, a tag with attributes, or a self-closing one: `<MetricName>` alone is a placeholder of the prose.
  ['JSX tag', /<\/[A-Z][\w.]*>|<[A-Z][\w.]*\s+[\w-]+=|<[A-Z][\w.]*\s*\/>/],
];

/** Text with fenced code blocks and inline code spans removed: code shows what it shows. */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '').replace(/(`+)(?:(?!\n[ \t]*\n)[\s\S])*?\1/g, '');
}

/** The first leak found in `text` outside code, as `kind: "excerpt"`; undefined when clean. */
function leakIn(text: string): string | undefined {
  const outsideCode = prose(text);
  for (const [kind, pattern] of LEAKS) {
    const match = pattern.exec(outsideCode);
    if (match) return `${kind}: ${JSON.stringify(outsideCode.slice(Math.max(0, match.index - 40), match.index + 40))}`;
  }
  return undefined;
}

describe('the Kubernetes docs ingested', () => {
  let folder: string;
  let store: Store;
  let report: IngestReport;
  let ingestSeconds: number;
  /** Pages that document Hugo's shortcodes and show them escaped (`{{</* note *\/>}}` reads `{{< note >}}` on the site). */
  const documentingMarkup = new Set<string>();

  beforeAll(async () => {
    if (!AVAILABLE) return;
    folder = await mkdtemp(join(tmpdir(), 'kb-k8s-docs-test-'));
    store = openStore(embeddedStoreLocation(folder));
    await store.createKnowledgeBase({ id: KB_ID, name: 'Kubernetes', baseUrl: 'https://kubernetes.io/docs/' });
    for (const file of (await collectSourceFiles([DOCS])).files) {
      if (/\{\{[<%]\/\*/.test(await readFile(file.path, 'utf8'))) documentingMarkup.add(file.docId);
    }
    const started = performance.now();
    report = await ingestPaths(store, { kbId: KB_ID, paths: [DOCS], visibility: 'public', readers: [], quotable: true });
    ingestSeconds = (performance.now() - started) / 1000;
  }, 300_000);

  afterAll(async () => {
    if (!AVAILABLE) return;
    await store.close();
    await rm(folder, { recursive: true, force: true });
  });

  test('ingest: no page fails; the pages skipped are those without text (section indexes of front matter only)', async (context) => {
    if (!AVAILABLE) context.skip(SKIP_NOTE);

    await context.annotate(`ingested in ${ingestSeconds.toFixed(1)} s`);
    expect(report.failed).toEqual([]);
    expect(report.created.length + report.skipped.length).toBe(1_569);
    expect(new Set(report.skipped.map((skipped) => skipped.reason))).toEqual(new Set(['The file has no text to index']));
    expect(report.skipped.map((skipped) => skipped.docId)).toContain('concepts/storage/_index.md');
  });

  test('titles: from front matter, never markup, never "index", one per page almost always', async (context) => {
    if (!AVAILABLE) context.skip(SKIP_NOTE);

    const documents = await store.listDocuments(KB_ID);
    const titles = documents.map((document) => document.title);

    expect(titles.filter((title) => leakIn(title) !== undefined || /^\s*index\s*$/i.test(title))).toEqual([]);
    expect(new Set(titles).size).toBeGreaterThan(documents.length * 0.95);
    expect(documents.find((document) => document.docId === 'concepts/storage/volumes.md')).toMatchObject({
      title: 'Volumes',
      url: 'https://kubernetes.io/docs/concepts/storage/volumes/',
    });
  });

  test('stored passages: no front matter or generator markup outside code', async (context) => {
    if (!AVAILABLE) context.skip(SKIP_NOTE);

    const leaks: string[] = [];
    for (const document of await store.listDocuments(KB_ID)) {
      if (documentingMarkup.has(document.docId)) continue;
      for (const passage of await store.passagesOf(REACH, document.docId)) {
        const leak = leakIn(passage.text) ?? leakIn(passage.headingPath.join('\n'));
        if (leak !== undefined) leaks.push(`${document.docId}: ${leak}`);
      }
    }

    expect(documentingMarkup.size).toBeLessThan(10);
    expect(leaks).toEqual([]);
  });

  test("answers to the corpus's questions: no markup in the answer, a quoted passage, a cited title or a suggestion", async (context) => {
    if (!AVAILABLE) context.skip(SKIP_NOTE);
    const questions = (await readFile(join(CORPUS, 'questions.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { q: string }).q);
    const engine = createAnswerEngine({ store, retriever: createLexicalRetriever(store) });

    const leaks: string[] = [];
    let answered = 0;
    for (const question of questions) {
      const answer = await collectAnswer(engine.answer({ question, reach: REACH }));
      if (!answer.abstained) answered += 1;
      const shown = [
        answer.answer,
        ...answer.suggestions,
        ...answer.citations.flatMap(({ passage }) =>
          documentingMarkup.has(passage.docId) ? [] : [passage.text, passage.title, ...passage.headingPath],
        ),
      ];
      for (const text of shown) {
        const leak = leakIn(text);
        if (leak !== undefined) leaks.push(`${question}: ${leak}`);
      }
    }

    expect(questions.length).toBe(430);
    expect(answered).toBeGreaterThan(0);
    expect(leaks).toEqual([]);
  });
});
