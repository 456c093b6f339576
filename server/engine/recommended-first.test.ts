import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { createAnswerEngine } from './answer-engine.ts';
import { collectAnswer } from './answer-events.ts';
import { ingestPaths } from '../ingest/ingest-files.ts';
import { createLexicalRetriever } from '../retrieval/lexical-retriever.ts';
import { openTestStore } from '../testing/test-store.ts';
import type { Reach } from '../store/store.ts';

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
