import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem, QueryResponse } from '../protocol/query-protocol.ts';
import { hashPassword } from './auth/password-hash.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import { ask as askKnowledgeBase, consoleCall, issueToken, signIn, startServerProcess, stopServerProcess, type ServerProcess } from './testing/server-process.ts';
import { adminQuery, testBackend, testDatabaseUrl } from './testing/test-store.ts';

/**
 * Two server processes (`server/main.ts`, as `npm start` runs it) on one
 * PostgreSQL database, started at the same moment (both migrate and seed the
 * demo knowledge base at once), behaving as one service: whatever is done
 * through one is seen by the other at its next request. PostgreSQL only: the
 * embedded store is one process's.
 */
const OWNER_PASSWORD = 'replica owner password 0123';
const ALICE_PASSWORD = 'replica alice password 0123';

const ask = (replica: ServerProcess, token: string, question: string) => askKnowledgeBase(replica, token, 'node-docs', question);
const issue = (replica: ServerProcess, cookie: string) => issueToken(replica, cookie, 'node-docs');

describe.skipIf(testBackend() !== 'postgres')('two replicas on one PostgreSQL', () => {
  const schema = `replicas_${randomBytes(5).toString('hex')}`;
  let first: ServerProcess | undefined;
  let second: ServerProcess | undefined;
  let store: Store | undefined;
  let ownerCookie = '';
  let aliceId = '';

  beforeAll(async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const env = { DATABASE_URL: testDatabaseUrl(), KB_PG_SCHEMA: schema, KB_OWNER_PASSWORD: OWNER_PASSWORD };
    // Dense retrieval off (startServerProcess's default): embedding the demo corpus takes minutes of both cores, which would
    // starve the other test files; what replicas share here is the lexical index (replicas-dense.test.ts shares vectors).
    [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    store = openStore({ kind: 'postgres', url: testDatabaseUrl(), schema });
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    aliceId = alice.id;
    await store.setPasswordHash(alice.id, await hashPassword(ALICE_PASSWORD));
    await store.setRole('node-docs', alice.id, 'editor');
    ownerCookie = await signIn(first, 'owner@example.com', OWNER_PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([stopServerProcess(first), stopServerProcess(second)]);
    await store?.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  test('started at once: both serve the one demo knowledge base, seeded once', async () => {
    const documents = await store!.listDocuments('node-docs');

    expect(documents.length).toBe(64);
    expect((await store!.listKnowledgeBases()).map((knowledgeBase) => knowledgeBase.id)).toEqual(['node-docs']);
    expect((await store!.listUsers()).filter((user) => user.email === 'owner@example.com')).toHaveLength(1);
  });

  test('a token issued through one replica answers on the other; revoked through one, the other refuses it at its next request', async () => {
    const { token, id } = await issue(first!, ownerCookie);

    const before = await ask(second!, token, 'How do I create a directory recursively?');
    const revoked = await consoleCall(first!, ownerCookie, 'DELETE', `/knowledge-bases/node-docs/tokens/${id}`);
    const after = await ask(second!, token, 'How do I create a directory recursively?');

    expect(before.status).toBe(200);
    expect(((await before.json()) as QueryResponse).citations.map((citation) => citation.doc_id)).toContain('fs.md');
    expect(revoked.status).toBe(204);
    expect(after.status).toBe(401);
    expect(((await after.json()) as Problem).code).toBe('token_revoked');
  });

  test('a document added through one replica is answered from on the other, though the other had answered the question before it (its answer cache)', async () => {
    const { token } = await issue(second!, ownerCookie);
    const before = (await (await ask(second!, token, 'What are the quokka fed?')).json()) as QueryResponse;

    const added = await consoleCall(first!, ownerCookie, 'PUT', '/knowledge-bases/node-docs/documents/guides/quokka.md', {
      content: '# Quokka feeding\n\nThe quokka colony at the harbour is fed saltbush leaves every morning.\n',
      visibility: 'public',
    });
    const answer = (await (await ask(second!, token, 'What are the quokka fed?')).json()) as QueryResponse;

    expect(before.abstained).toBe(true);
    expect(added.status).toBe(201);
    expect(answer.abstained).toBe(false);
    expect(answer.citations.map((citation) => citation.doc_id)).toContain('guides/quokka.md');
  });

  test('an issuer demoted to reader through one replica: their token is refused with token_revoked on both', async () => {
    const aliceCookie = await signIn(second!, 'alice@example.com', ALICE_PASSWORD);
    const { token } = await issue(second!, aliceCookie);
    const working = await ask(first!, token, 'What does the --inspect flag do?');

    const demoted = await consoleCall(first!, ownerCookie, 'PUT', `/knowledge-bases/node-docs/members/${aliceId}`, { role: 'reader' });
    const refusals = await Promise.all([ask(first!, token, 'What does the --inspect flag do?'), ask(second!, token, 'What does the --inspect flag do?')]);

    expect(working.status).toBe(200);
    expect(demoted.status).toBe(200);
    expect(await Promise.all(refusals.map(async (response) => [response.status, ((await response.json()) as Problem).code]))).toEqual([
      [401, 'token_revoked'],
      [401, 'token_revoked'],
    ]);
  });

  test('a console session signed in through one replica works on the other', async () => {
    const listed = await consoleCall(second!, ownerCookie, 'GET', '/knowledge-bases');

    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ knowledge_bases: [{ id: 'node-docs', name: expect.any(String), role: 'owner' }] });
  });
});
