import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { createAnswerEngine } from '../answer-engine.ts';
import type { RerankedSearch } from './passage-rerank.ts';
import { preferRecommended } from './recommended-first.ts';
import { collectAnswer } from '../answer-events.ts';
import { ingestPaths } from '../../ingest/pipeline/ingest-files.ts';
import { createLexicalRetriever } from '../../retrieval/lexical-retriever.ts';
import { openTestStore } from '../../testing/test-store.ts';
import type { Retriever } from '../../retrieval/retriever.ts';
import type { Reach, ScoredPassage } from '../../store/store.ts';

/**
 * A deprecated API does not lead an answer when the docs name its
 * replacement, and an answer that quotes it says it is deprecated: over a
 * real store (the test run's backend) holding a reference page shaped like
 * the Node.js docs, ingested through the real pipeline.
 */

const REACH: Reach = { kbId: 'docs', userId: 'nobody', visibilities: ['public'] };
const QUESTION = 'How do I check whether a file exists?';

/** fs.exists marked deprecated (when `marked`), naming fs.stat and fs.access; both documented on the page. */
function referencePage(marked: boolean): string {
  return `# File system

## \`fs.exists(path, callback)\`

${marked ? '> Stability: 0 - Deprecated: Use [`fs.stat()`][] or [`fs.access()`][] instead.\n' : ''}
* \`path\` {string}
* \`callback\` {Function}

Test whether or not the given path exists by checking with the file system.
Then call the \`callback\` argument with either true or false.

## \`fs.stat(path, callback)\`

* \`path\` {string}
* \`callback\` {Function}

Asynchronous stat(2). The callback gets two arguments \`(err, stats)\` where \`stats\` is an \`fs.Stats\` object.
Using \`fs.stat()\` to check for the existence of a file before calling \`fs.open()\` is not recommended.

## \`fs.access(path, callback)\`

* \`path\` {string}
* \`callback\` {Function}

Tests a user's permissions for the file or directory specified by \`path\`.
Check if a file exists in the current directory with \`fs.constants.F_OK\`.

## \`fs.readFile(path, callback)\`

Asynchronously reads the entire contents of a file.

[\`fs.stat()\`]: #fsstatpath-callback
[\`fs.access()\`]: #fsaccesspath-callback
`;
}

/** Asks {@link QUESTION} of a knowledge base holding the reference page. */
async function askReference(marked: boolean) {
  const { store, close } = await openTestStore();
  onTestFinished(close);
  const folder = await mkdtemp(join(tmpdir(), 'kb-deprecation-test-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  const page = join(folder, 'fs.md');
  await writeFile(page, referencePage(marked));
  await ingestPaths(store, { kbId: 'docs', paths: [page], visibility: 'public', readers: [], quotable: true });
  const engine = createAnswerEngine({ store, retriever: createLexicalRetriever(store), abstentionThreshold: 0 });
  return collectAnswer(engine.answer({ question: QUESTION, reach: REACH, wholeText: true }));
}

describe('a deprecated API in an answer', () => {
  test('unmarked, the section that matches the question best leads the answer (the control)', async () => {
    const answer = await askReference(false);
    expect(answer.citations[0]?.passage.headingPath.at(-1)).toBe('`fs.exists(path, callback)`');
    expect(answer.answer).not.toMatch(/deprecated/i);
  });

  test('marked deprecated with a named replacement, the replacement leads and the quoted fs.exists is said to be deprecated', async () => {
    const answer = await askReference(true);
    expect(answer.abstained).toBe(false);
    const first = answer.citations[0]?.passage.headingPath.at(-1);
    expect(['`fs.stat(path, callback)`', '`fs.access(path, callback)`']).toContain(first);
    // fs.exists matches the question best, so the answer still quotes it, second, and says what the docs say of it.
    expect(answer.citations.map((citation) => citation.passage.headingPath.at(-1))).toContain('`fs.exists(path, callback)`');
    expect(answer.answer).toMatch(/`fs\.exists\(path, callback\)` is deprecated: Use `fs\.stat\(\)` or `fs\.access\(\)` instead \[\d\]\./);
  });
});

describe('preferRecommended', () => {
  const reach: Reach = REACH;
  const passage = (chunkId: number, heading: string, text: string): ScoredPassage => ({
    chunkId,
    kbId: 'docs',
    docId: 'fs.md',
    title: 'File system',
    headingPath: ['File system', heading],
    text,
    quotable: true,
    contentHash: `hash-${chunkId}`,
    score: 10 - chunkId,
  });
  const deprecated = passage(1, '`fs.exists(path, callback)`', 'Stability: 0 - Deprecated: Use `fs.stat()` instead.\n\nTest whether or not the given path exists.');
  const unrelated = passage(2, '`fs.readFile(path, callback)`', 'Reads the entire contents of a file.');
  const replacement = passage(3, '`fs.stat(path[, options], callback)`', 'Asynchronous stat(2).');
  const search = (passages: ScoredPassage[]): RerankedSearch => ({
    passages,
    passageCount: 10,
    documentFrequencies: {},
    relevance: passages.map((_, rank) => 1 - rank / 10),
    documentShare: 1,
    otherPages: { similarity: 0, documentSimilarity: 0 },
  });
  /** A retriever that finds `found` for any query, recording the terms it was asked for. */
  const retrieverFinding = (found: ScoredPassage[]) => {
    const asked: (readonly string[])[] = [];
    const retriever: Retriever = {
      async search(query) {
        asked.push(query.terms);
        return { passages: found, passageCount: 10, documentFrequencies: {} };
      },
    };
    return { retriever, asked };
  };

  test('the replacement retrieved further down comes first, without another search', async () => {
    const { retriever, asked } = retrieverFinding([]);

    const result = await preferRecommended(search([deprecated, unrelated, replacement]), retriever, reach);

    expect(result.passages.map((entry) => entry.chunkId)).toEqual([3, 1, 2]);
    expect(result.relevance).toEqual([1, 0.9, 0.8]);
    expect(asked).toEqual([]);
  });

  test('a replacement not retrieved is searched for by its name and put first; the last passage gives way', async () => {
    const { retriever, asked } = retrieverFinding([unrelated, replacement]);

    const result = await preferRecommended(search([deprecated, unrelated]), retriever, reach);

    // The replacement's name, analyzed as a question is (`fs` also stands for "file system").
    expect(asked).toEqual([['fs', 'file', 'system', 'stat']]);
    expect(result.passages.map((entry) => entry.chunkId)).toEqual([3, 1]);
  });

  test('when the replacement cannot be found, or the first section is not deprecated, the order is kept', async () => {
    const { retriever } = retrieverFinding([unrelated]);
    const notFound = search([deprecated, unrelated]);
    const current = search([unrelated, deprecated]);

    expect(await preferRecommended(notFound, retriever, reach)).toBe(notFound);
    expect(await preferRecommended(current, retriever, reach)).toBe(current);
  });
});
