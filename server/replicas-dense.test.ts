import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { QueryResponse } from '../protocol/query-protocol.ts';
import { ABSTENTION_MESSAGE } from './engine/abstention.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import { ask, consoleCall, issueToken, signIn, startServerProcess, stopServerProcess, type ServerProcess } from './testing/server-process.ts';
import { adminQuery, testBackend, testDatabaseUrl } from './testing/test-store.ts';

/**
 * Issue "both backends, same results": replicas see an ingest made on any of
 * them - its dense retrieval too. Three server processes (`server/main.ts`)
 * on one PostgreSQL database, none seeding the demo (`KB_DEMO_SEED=off`, so
 * no sweeper spends minutes on its 4,899 passages): A and B with the
 * embedding model, C without (`KB_EMBEDDING=off`). Documents added through
 * A are embedded by a replica's background sweep (within 10 s); B is then
 * asked a question that shares no content word with the page that answers
 * it ("car", "serviced", "often" against "automobile", "maintenance",
 * "tyres", ...; all-MiniLM-L6-v2 puts them 0.52 apart, the other pages at
 * most 0.13), which only the page's vector can find. With no word of the
 * question in the knowledge base the evidence score stays below the
 * threshold, so B abstains, but names that page, and only it, as related
 * (engine/abstention.ts: a dense similarity of at least 0.45); C, on the
 * same database with BM25F alone, abstains naming nothing. It fails when B
 * does not retrieve densely (B started with `KB_EMBEDDING=off`: B's answer
 * stays C's) or never reads the vectors stored through the database.
 * PostgreSQL only: the embedded store is one process's. About 20 s.
 */
const OWNER_PASSWORD = 'dense replica owner password';
const KB_ID = 'garage';
const QUESTION = 'How often should my car be serviced?';
/** The document that answers {@link QUESTION} without sharing a content word with it. */
const ANSWERING_DOCUMENT = 'upkeep.md';
const DOCUMENTS: Record<string, string> = {
  [ANSWERING_DOCUMENT]:
    '# Automobile maintenance\n\nAutomobile maintenance: rotate the tyres and change the engine oil every 10,000 km, and check the brake pads twice a year.\n',
  'sourdough.md': '# Sourdough\n\nSourdough bread needs a starter fed with flour and water the day before baking.\n',
  'houseplants.md': '# Houseplants\n\nWater houseplants when the top centimetre of soil is dry, and turn the pots towards the light each week.\n',
  'packaging.md': '# Publishing a library\n\nBuild the wheel and the source archive, then upload both to the package index with twine.\n',
};
/** Longest wait for a replica's sweep (every 10 s) to embed the new passages and for B to answer from them. */
const ANSWER_WITHIN_MS = 40_000;

describe.skipIf(testBackend() !== 'postgres')('replicas with dense retrieval on one PostgreSQL', () => {
  const schema = `replicas_dense_${randomBytes(5).toString('hex')}`;
  let first: ServerProcess | undefined;
  let second: ServerProcess | undefined;
  let lexical: ServerProcess | undefined;
  let store: Store | undefined;

  beforeAll(async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const env = {
      DATABASE_URL: testDatabaseUrl(),
      KB_PG_SCHEMA: schema,
      KB_OWNER_PASSWORD: OWNER_PASSWORD,
      KB_DEMO_SEED: 'off',
      // One thread each: three processes share the machine with the other test files.
      KB_ANSWER_THREADS: '1',
      KB_EMBEDDING_THREADS: '1',
    };
    [first, second, lexical] = await Promise.all([
      startServerProcess({ ...env, KB_EMBEDDING: 'on' }),
      startServerProcess({ ...env, KB_EMBEDDING: 'on' }),
      startServerProcess({ ...env, KB_EMBEDDING: 'off' }),
    ]);
    // The knowledge base itself is made as `npm run kb -- kb create` makes it (the console creates none).
    store = openStore({ kind: 'postgres', url: testDatabaseUrl(), schema });
    const owner = (await store.findUserByEmail('owner@example.com'))!;
    await store.createKnowledgeBase({ id: KB_ID, name: 'Household notes' });
    await store.setRole(KB_ID, owner.id, 'owner');
  }, 90_000);

  afterAll(async () => {
    await Promise.all([stopServerProcess(first), stopServerProcess(second), stopServerProcess(lexical)]);
    await store?.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  test('documents added through A: B names the page whose vector is near a question sharing no word with it; C, lexical, names none', async () => {
    // Arrange
    expect(first!.output).toContain('retrieval: hybrid');
    expect(second!.output).toContain('retrieval: hybrid');
    expect(lexical!.output).toContain('retrieval: lexical only');
    const cookie = await signIn(first!, 'owner@example.com', OWNER_PASSWORD);
    for (const [docId, content] of Object.entries(DOCUMENTS)) {
      const added = await consoleCall(first!, cookie, 'PUT', `/knowledge-bases/${KB_ID}/documents/${docId}`, { content, visibility: 'public' });
      expect(added.status, await added.clone().text()).toBe(201);
    }
    const { token } = await issueToken(first!, cookie, KB_ID);

    // Act: B is asked until a sweep has stored the passages' vectors (B's answers before then are lexical).
    const started = Date.now();
    let answer = await answerOf(second!, token);
    while (answer.answer !== NAMING_THE_PAGE && Date.now() - started < ANSWER_WITHIN_MS) {
      await sleep(500);
      answer = await answerOf(second!, token);
    }
    const lexicalAnswer = await answerOf(lexical!, token);

    // Assert: B abstains (the evidence score weighs the question's words found, and none are), naming the page its
    // vectors found - and only that page; C abstains with nothing to name.
    expect(answer, `B's answer after ${Date.now() - started} ms`).toEqual({ answer: NAMING_THE_PAGE, citations: [], provenance: 'abstained', abstained: true });
    expect(lexicalAnswer).toEqual({ answer: ABSTENTION_MESSAGE, citations: [], provenance: 'abstained', abstained: true });
  }, ANSWER_WITHIN_MS + 20_000);
});

/** B's abstention naming the answering page's section and what it says (engine/abstention.ts: similarity at least 0.45), and no other. */
const NAMING_THE_PAGE =
  `${ABSTENTION_MESSAGE}\n\nThese sections may be related:\n` +
  '- Automobile maintenance: Automobile maintenance: rotate the tyres and change the engine oil every 10,000 km, and check the brake pads twice a year.';

async function answerOf(replica: ServerProcess, token: string): Promise<QueryResponse> {
  const response = await ask(replica, token, KB_ID, QUESTION);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as QueryResponse;
}
