import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { createApp } from '../app.ts';
import { hashPassword } from '../auth/password-hash.ts';
import { issueToken, type IssueTokenInput } from '../auth/widget-tokens.ts';
import { DEFAULT_ABSTENTION_THRESHOLD } from '../engine/ranking/evidence.ts';
import { createSourceSpanCodec, type SourceSpanCodec } from '../api/source-span.ts';
import { ingestPaths } from '../ingest/pipeline/ingest-files.ts';
import { ImportJobs } from '../ingest/jobs/import-jobs.ts';
import { openStore } from '../store/open-store.ts';
import { createTestStoreLocation } from './test-store.ts';
import { createPooledAnswerEngine } from '../engine/answer-pool.ts';
import type { ChatClient } from '../engine/generation/chat-completions-client.ts';
import { createQuestionLogWriter, type QuestionLogWriter } from '../question-log/question-log-writer.ts';
import type { Store, User, Visibility } from '../store/store.ts';

/**
 * A small real workspace served on an ephemeral port, for HTTP-level tests:
 * a temporary store on the test run's backend (server/testing/test-store.ts),
 * users with each role, two knowledge bases, and documents of every
 * visibility ingested through the real pipeline.
 *
 * Knowledge base `docs`:
 * - `guide.md` (public): directories, files, streams
 * - `internal.md` (workspace): the internal deploy runbook ("zebra" rollout)
 * - `secret.md` (restricted, readable by `alice`): the "quokka" launch plan
 * - `private-notes.md` (public, not quotable): the "walrus" migration
 * Knowledge base `other`: `other.md` (public) about penguins.
 */
export interface WidgetFixture {
  store: Store;
  baseUrl: string;
  codec: SourceSpanCodec;
  users: { owner: User; alice: User; bob: User; reader: User };
  /** Current time of the app's clock, epoch ms. */
  now(): number;
  /** Moves the app's clock forward. */
  advance(milliseconds: number): void;
  /** Issues a token (default: owner, kb `docs`, origin http://localhost:5173, public scope). */
  issue(input?: Partial<IssueTokenInput>): Promise<{ token: string; id: string; expiresAt: number }>;
  /** POSTs JSON to a widget endpoint of `kbId` (default `docs`). */
  post(
    path: 'query' | 'query/stream' | 'feedback',
    body: unknown,
    options?: { token?: string; headers?: Record<string, string>; kbId?: string; signal?: AbortSignal },
  ): Promise<Response>;
  /**
   * Signs in to the console (`POST /console/api/session` from the app's own
   * origin) and returns the `Cookie` header value to send, `kbw_session=…`.
   * Throws unless the answer is 204.
   */
  signIn(email: string, password: string): Promise<string>;
  /** The app's question log writer, when the fixture was made with `questionLog`. */
  questionLog?: QuestionLogWriter;
  close(): Promise<void>;
}

export const FIXTURE_DOCUMENTS: Record<string, string> = {
  'guide.md': `# Guide

## Creating directories

Use \`mkdir\` with the \`recursive\` option to create a directory together with its missing parent directories.
Without the option, creating a nested directory fails when a parent directory does not exist.

## Reading files

Call \`readFile\` with a path and an encoding to read the whole file into a string.
Large files are better read with a stream, which keeps memory use flat.

## Streams

A stream moves data in chunks. Backpressure pauses a fast writer until the reader catches up.
`,
  'internal.md': `# Internal runbook

## Zebra rollout

The zebra rollout deploys the service to the staging cluster every Tuesday before noon.
`,
  'secret.md': `# Launch plan

## Quokka launch

The quokka launch happens in March with a limited beta for ten customers.
`,
  'private-notes.md': `# Notes

## Walrus migration

The walrus migration moves every archive to cold storage over three weekends.
`,
};

export interface FixtureOptions {
  /** A chat model that writes retrieved answers (default: extractive answers). */
  chat?: ChatClient;
  rateLimitPerIp?: number;
  rateLimitPerToken?: number;
  tokenTtlCapMinutes?: number;
  /** Express `trust proxy` hop count (default 0). */
  trustedProxies?: number;
  /** Console passwords to set for fixture users (default: none has one). */
  consolePasswords?: Partial<Record<'owner' | 'alice' | 'bob' | 'reader', string>>;
  /** The app's logger (default: silent). */
  logger?: Logger;
  /** Log answered questions (question-log/question-log-writer.ts), as the server does by default (default: off). */
  questionLog?: boolean;
  /** Let website imports reach private addresses, such as a test site on loopback (default: off, as the server's). */
  importAllowPrivateAddresses?: boolean;
}

export async function createWidgetFixture(options: FixtureOptions = {}): Promise<WidgetFixture> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-widget-test-'));
  let clock = Date.UTC(2026, 0, 15, 12, 0, 0);
  const now = () => clock;
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location, now);

  const owner = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
  const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
  const bob = await store.createUser({ email: 'bob@example.com', name: 'Bob' });
  const reader = await store.createUser({ email: 'reader@example.com', name: 'Reader' });
  await store.createKnowledgeBase({ id: 'docs', name: 'Docs' });
  await store.createKnowledgeBase({ id: 'other', name: 'Other' });
  await store.setRole('docs', owner.id, 'owner');
  await store.setRole('docs', alice.id, 'editor');
  await store.setRole('docs', bob.id, 'editor');
  await store.setRole('docs', reader.id, 'reader');
  await store.setRole('other', owner.id, 'owner');
  const users = { owner, alice, bob, reader };
  for (const [name, password] of Object.entries(options.consolePasswords ?? {})) {
    await store.setPasswordHash(users[name as keyof typeof users].id, await hashPassword(password));
  }

  const sources = join(folder, 'sources');
  await mkdir(sources);
  for (const [name, text] of Object.entries(FIXTURE_DOCUMENTS)) await writeFile(join(sources, name), text);
  await writeFile(join(sources, 'other.md'), '# Other\n\n## Penguins\n\nPenguins live in the southern hemisphere and cannot fly.\n');
  const ingest = (paths: string[], rest: { visibility: Visibility; readers?: string[]; quotable?: boolean; kbId?: string }) =>
    ingestPaths(store, {
      kbId: rest.kbId ?? 'docs',
      paths: paths.map((name) => join(sources, name)),
      visibility: rest.visibility,
      readers: rest.readers ?? [],
      quotable: rest.quotable ?? true,
    });
  await ingest(['guide.md'], { visibility: 'public' });
  await ingest(['internal.md'], { visibility: 'workspace' });
  await ingest(['secret.md'], { visibility: 'restricted', readers: [alice.id] });
  await ingest(['private-notes.md'], { visibility: 'public', quotable: false });
  await ingest(['other.md'], { visibility: 'public', kbId: 'other' });

  const codec = createSourceSpanCodec('test-secret-0123456789abcdef0123456789abcdef');
  const engine = createPooledAnswerEngine({
    location,
    abstentionThreshold: DEFAULT_ABSTENTION_THRESHOLD,
    threads: 1,
    ...(options.chat ? { chat: options.chat } : {}),
  });
  const questionLog = options.questionLog === true ? createQuestionLogWriter(store) : undefined;
  const imports = new ImportJobs({ now });
  const app = createApp({
    store,
    engine,
    codec,
    imports,
    importAllowPrivateAddresses: options.importAllowPrivateAddresses ?? false,
    ...(questionLog === undefined ? {} : { questionLog }),
    logger: options.logger ?? pino({ level: 'silent' }),
    now,
    rateLimitPerIp: options.rateLimitPerIp ?? 100_000,
    rateLimitPerToken: options.rateLimitPerToken ?? 100_000,
    trustedProxies: options.trustedProxies ?? 0,
    tokenTtlCapMinutes: options.tokenTtlCapMinutes ?? 1440,
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ttlCapMinutes = options.tokenTtlCapMinutes ?? 1440;

  return {
    store,
    baseUrl,
    codec,
    users,
    ...(questionLog === undefined ? {} : { questionLog }),
    now,
    advance(milliseconds) {
      clock += milliseconds;
    },
    async issue(input = {}) {
      const issued = await issueToken(
        store,
        { kbId: 'docs', issuerId: owner.id, allowedOrigins: ['http://localhost:5173'], ...input },
        { ttlCapMinutes, now: clock },
      );
      return { token: issued.token, id: issued.record.id, expiresAt: issued.record.expiresAt };
    },
    post(path, body, requestOptions = {}) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', ...requestOptions.headers };
      if (requestOptions.token !== undefined) headers.Authorization = `Bearer ${requestOptions.token}`;
      return fetch(`${baseUrl}/kb-api/api/v1/kb/${requestOptions.kbId ?? 'docs'}/widget/${path}`, {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        ...(requestOptions.signal ? { signal: requestOptions.signal } : {}),
      });
    },
    async signIn(email, password) {
      const response = await fetch(`${baseUrl}/console/api/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: baseUrl },
        body: JSON.stringify({ email, password }),
      });
      if (response.status !== 204) throw new Error(`Sign-in as ${email} answered ${response.status}: ${await response.text()}`);
      const cookie = response.headers.getSetCookie().find((line) => line.startsWith('kbw_session='));
      if (cookie === undefined) throw new Error(`Sign-in as ${email} set no session cookie`);
      return cookie.split(';')[0]!;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await imports.registry.idle();
      await questionLog?.close();
      await engine.close();
      await store.close();
      await dispose();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
