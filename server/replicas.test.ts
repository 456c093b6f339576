import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem, QueryResponse } from '../protocol/query-protocol.ts';
import { hashPassword } from './auth/password-hash.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';
import { adminQuery, testBackend, testDatabaseUrl } from './testing/test-store.ts';

/**
 * Two server processes (`server/main.ts`, as `npm start` runs it) on one
 * PostgreSQL database, started at the same moment (both migrate and seed the
 * demo knowledge base at once), behaving as one service: whatever is done
 * through one is seen by the other at its next request. PostgreSQL only: the
 * embedded store is one process's.
 */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const OWNER_PASSWORD = 'replica owner password 0123';
const ALICE_PASSWORD = 'replica alice password 0123';

interface Replica {
  process: ChildProcess;
  baseUrl: string;
  output: string;
}

function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: PROJECT_ROOT,
    // Dense retrieval off: embedding the demo corpus takes minutes of both cores, which would starve the other test files;
    // what replicas share here is the lexical index (the vectors' parity is store/backend-parity.test.ts's).
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', KB_DEMO_PORT: '0', KB_EMBEDDING: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`replica not ready within 90 s:\n${output}`)), 90_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (http:\/\/localhost:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ process: child, baseUrl: match[1]!, output });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica exited with ${code}:\n${output}`));
    });
  });
}

async function stopReplica(replica: Replica | undefined): Promise<void> {
  if (!replica || replica.process.exitCode !== null) return;
  const exited = new Promise((resolve) => replica.process.once('exit', resolve));
  replica.process.kill('SIGTERM');
  await exited;
}

/** Signs in through a replica's console API; returns the session cookie. */
async function signIn(replica: Replica, email: string, password: string): Promise<string> {
  const response = await fetch(`${replica.baseUrl}/console/api/session`, {
    method: 'POST',
    headers: { Origin: replica.baseUrl, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
}

function consoleCall(replica: Replica, cookie: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${replica.baseUrl}/console/api${path}`, {
    method,
    headers: { Origin: replica.baseUrl, Cookie: cookie, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

function ask(replica: Replica, token: string, question: string): Promise<Response> {
  return fetch(`${replica.baseUrl}/kb-api/api/v1/kb/node-docs/widget/query`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question }),
  });
}

async function issue(replica: Replica, cookie: string): Promise<{ token: string; id: string }> {
  const response = await consoleCall(replica, cookie, 'POST', '/knowledge-bases/node-docs/tokens', { allowed_origins: [] });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string; id: string };
}

describe.skipIf(testBackend() !== 'postgres')('two replicas on one PostgreSQL', () => {
  const schema = `replicas_${randomBytes(5).toString('hex')}`;
  let first: Replica | undefined;
  let second: Replica | undefined;
  let store: Store | undefined;
  let ownerCookie = '';
  let aliceId = '';

  beforeAll(async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const env = { DATABASE_URL: testDatabaseUrl(), KB_PG_SCHEMA: schema, KB_OWNER_PASSWORD: OWNER_PASSWORD };
    [first, second] = await Promise.all([startReplica(env), startReplica(env)]);
    store = openStore({ kind: 'postgres', url: testDatabaseUrl(), schema });
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    aliceId = alice.id;
    await store.setPasswordHash(alice.id, await hashPassword(ALICE_PASSWORD));
    await store.setRole('node-docs', alice.id, 'editor');
    ownerCookie = await signIn(first, 'owner@example.com', OWNER_PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([stopReplica(first), stopReplica(second)]);
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
