import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem, StreamFrame } from '../protocol/query-protocol.ts';
import { createApp } from './app.ts';
import { checkWidgetRequest } from './auth/token-check.ts';
import { createAnswerEngine, questionTerms, type AnswerEngine } from './engine/answer-engine.ts';
import { collectAnswer, type CollectedAnswer } from './engine/answer-events.ts';
import { createPooledAnswerEngine, type PooledAnswerEngine } from './engine/answer-pool.ts';
import { tokenReach } from './access/access-rules.ts';
import { createSourceSpanCodec, type SourceSpanCodec } from './api/source-span.ts';
import { openStore } from './store/open-store.ts';
import type { Reach, Store } from './store/store.ts';
import { readFrames } from './testing/read-frames.ts';
import { createTestStoreLocation, type TestStoreLocation } from './testing/test-store.ts';
import { changeArbitrary, questionArbitrary, tokenArbitrary, workspaceArbitrary, type QuestionModel, type WorkspaceModel } from './testing/random-workspace.ts';
import {
  applyChange,
  buildWorkspace,
  issueModelToken,
  questionTargets,
  questionText,
  type BuiltWorkspace,
  type IssuedToken,
} from './testing/random-workspace-builder.ts';
import { allDocuments, expectedReach, markersIn, tokenWorks } from './testing/random-workspace-oracle.ts';
import { createLexicalRetriever } from './retrieval/lexical-retriever.ts';

/**
 * Property tests of the access rules (docs/design-decisions.md "Access rules"):
 * over random workspaces, memberships, visibilities, restricted reader lists,
 * curated pairs, token scopes and questions, nothing an answer shows - cited
 * documents, quotes, answer text, suggestions - comes from a document outside
 * the token's reach, before and after permission changes.
 *
 * The reach is computed by the oracle in testing/random-workspace-oracle.ts, written
 * from docs/design-decisions.md on the model, never by the code under test. Every document
 * carries a unique marker word, so a leak shows as an outside marker in the
 * output. Answers use an abstention threshold of 0: every question that
 * retrieves anything is answered, so as much material as possible passes the
 * checks (an abstention shows nothing).
 *
 * Worlds: the engine-level properties build each run's workspace in a fresh
 * store (SQLite in its own temporary folder, about 20 ms; PostgreSQL in its
 * own schema, server/testing/test-store.ts): runs, and
 * fast-check's shrinking, never see each other's data, so a counterexample
 * replays as it is. The HTTP property serves one app for all its runs (its
 * worker pool takes a moment to start) and builds each run's workspace in it
 * under a fresh namespace (KB ids, user emails, marker words), so runs cannot
 * reach each other's documents and a cross-run leak would still show as an
 * outside marker.
 *
 * Seeds are fixed so that a failure replays; fast-check's report gives the
 * seed, path and counterexample. Each property also counts what its runs
 * exercised (answers, citations, curated answers, questions aimed outside the
 * reach, refusals) and fails if any count is zero, so none passes vacuously.
 */

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

interface World {
  store: Store;
  model: WorkspaceModel;
  built: BuiltWorkspace;
}

/** Builds the model in a fresh store in a temporary folder, runs `work`, and removes it all. */
async function withFreshWorkspace<T>(model: WorkspaceModel, work: (world: World) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'kb-widget-access-'));
  const { location, dispose } = await createTestStoreLocation(folder);
  const store = openStore(location, () => NOW);
  try {
    const built = await buildWorkspace(store, model, { folder: join(folder, 'sources'), namespace: 'w' });
    return await work({ store, model, built });
  } finally {
    await store.close();
    await dispose();
    await rm(folder, { recursive: true, force: true });
  }
}

/** The oracle's view of one token in one state of the world. */
interface ReachView {
  kbId: string;
  /** Model keys of the documents inside the reach. */
  inside: Set<string>;
  /** Model key of every document (removed ones too), by `<kbId> <docId>`. */
  keyById: Map<string, string>;
  /** Markers of every document outside the reach (other KBs and removed documents included). */
  outsideMarkers: string[];
  quotableById: Map<string, boolean>;
}

function reachView(model: WorkspaceModel, built: BuiltWorkspace, token: IssuedToken): ReachView {
  const inside = expectedReach(model, token);
  const documents = allDocuments(model, built);
  return {
    kbId: built.kbIds[token.kb]!,
    inside,
    keyById: new Map(documents.map((entry) => [`${built.kbIds[entry.kb]} ${entry.docId}`, entry.key])),
    outsideMarkers: documents.filter((entry) => !inside.has(entry.key)).map((entry) => entry.marker),
    quotableById: new Map(documents.map((entry) => [`${built.kbIds[entry.kb]} ${entry.docId}`, entry.document.quotable])),
  };
}

/** The cited (kbId, docId) pairs that are not inside the reach, as `kbId/docId`; unknown pairs count as outside. */
function citedOutside(view: ReachView, cited: readonly { kbId: string; docId: string }[]): string[] {
  return cited
    .filter(({ kbId, docId }) => kbId !== view.kbId || !view.inside.has(view.keyById.get(`${kbId} ${docId}`) ?? ''))
    .map(({ kbId, docId }) => `${kbId}/${docId}`);
}

/**
 * Asserts the store's reach filters (passage lookup and BM25 search) let
 * through exactly the documents the oracle puts inside the reach: never one
 * outside (safety), and every one inside (so the safety checks are not
 * passing because the store filters too much).
 */
async function expectStoreReachExact(world: World, view: ReachView, reach: Reach): Promise<void> {
  const { store } = world;
  const byPassages: string[] = [];
  const bySearch: string[] = [];
  for (const entry of allDocuments(world.model, world.built)) {
    if ((await store.passagesOf(reach, entry.docId)).length > 0) byPassages.push(entry.key);
    const search = await createLexicalRetriever(store).search({ reach, terms: questionTerms(entry.marker), topK: 20 });
    if (search.passages.some((passage) => passage.docId === entry.docId)) bySearch.push(entry.key);
  }
  const expected = [...view.inside].sort();
  expect({ byPassages: byPassages.sort(), bySearch: bySearch.sort() }).toEqual({ byPassages: expected, bySearch: expected });
}

/** Counts of what the runs exercised, checked after each property so that none passes vacuously. */
interface Exercised {
  answers: number;
  citations: number;
  curatedAnswers: number;
  suggestions: number;
  /** Questions naming a document outside the reach. */
  askedOutside: number;
  /** ... answered nevertheless (with documents inside the reach). */
  answeredAskingOutside: number;
  /** Curated questions asked whose pair cites a document outside the reach. */
  curatedAskedOutside: number;
  refusedTokens: number;
  /** Working tokens whose reach lost documents through the changes. */
  narrowedReaches: number;
}

function newExercised(): Exercised {
  return { answers: 0, citations: 0, curatedAnswers: 0, suggestions: 0, askedOutside: 0, answeredAskingOutside: 0, curatedAskedOutside: 0, refusedTokens: 0, narrowedReaches: 0 };
}

/** Asks `question` through the engine and asserts that nothing outside the reach shows. */
async function expectAnswerInsideReach(
  engine: AnswerEngine,
  world: World,
  view: ReachView,
  reach: Reach,
  question: QuestionModel,
  exercised: Exercised,
): Promise<void> {
  const text = questionText(world.model, world.built, question);

  const answer: CollectedAnswer = await collectAnswer(engine.answer({ question: text, reach }));

  const cited = answer.citations.map(({ passage }) => passage);
  const shown = [
    answer.answer,
    ...answer.suggestions,
    ...cited.flatMap((passage) => [passage.docId, passage.title, passage.text, ...passage.headingPath]),
  ].join('\n');
  expect({ question: text, citedOutside: citedOutside(view, cited), leakedMarkers: markersIn(shown, view.outsideMarkers) }).toEqual({
    question: text,
    citedOutside: [],
    leakedMarkers: [],
  });

  const askedOutside = questionTargets(world.model, question).some((key) => !view.inside.has(key));
  exercised.askedOutside += askedOutside ? 1 : 0;
  exercised.curatedAskedOutside += askedOutside && question.kind === 'curated' ? 1 : 0;
  if (!answer.abstained) {
    exercised.answers += 1;
    exercised.answeredAskingOutside += askedOutside ? 1 : 0;
  }
  exercised.citations += cited.length;
  exercised.curatedAnswers += answer.provenance === 'qa_shortcut' ? 1 : 0;
  exercised.suggestions += answer.suggestions.length;
}

const engineScenario = fc.record({
  workspace: workspaceArbitrary(),
  tokens: fc.array(tokenArbitrary(), { minLength: 1, maxLength: 3 }),
  questions: fc.array(questionArbitrary(), { minLength: 2, maxLength: 4 }),
});

const changeScenario = fc.record({
  workspace: workspaceArbitrary(),
  tokens: fc.array(tokenArbitrary(), { minLength: 1, maxLength: 3 }),
  questions: fc.array(questionArbitrary(), { minLength: 2, maxLength: 3 }),
  changes: fc.array(changeArbitrary(), { minLength: 1, maxLength: 4 }),
});

/**
 * Each property builds up to 100 random workspaces on the run's backend: on
 * PostgreSQL the longest takes about 45 s on an idle 2-core machine and more
 * while other test files run beside it. The limit is there to stop a hang,
 * not to time anything.
 */
const PROPERTY_TIMEOUT_MS = 240_000;

describe('access rules over random workspaces', () => {
  test('answer engine, random workspaces, tokens and questions: every citation, quote, answer text and suggestion stays inside the reach', async () => {
    const exercised = newExercised();

    await fc.assert(
      fc.asyncProperty(engineScenario, (scenario) =>
        withFreshWorkspace(scenario.workspace, async (world) => {
          const engine = createAnswerEngine({ store: world.store, retriever: createLexicalRetriever(world.store), abstentionThreshold: 0 });
          for (const tokenModel of scenario.tokens) {
            const token = await issueModelToken(world.store, world.model, world.built, tokenModel, NOW);
            const role = await world.store.getRole(token.record.kbId, token.record.issuerId!);
            const reach = tokenReach(token.record.kbId, token.record.issuerId!, role, token.record.scope);
            const view = reachView(world.model, world.built, token);

            await expectStoreReachExact(world, view, reach);
            for (const question of scenario.questions) {
              await expectAnswerInsideReach(engine, world, view, reach, question, exercised);
            }
          }
        }),
      ),
      { numRuns: 100, seed: 20260115 },
    );

    for (const key of ['answers', 'citations', 'curatedAnswers', 'suggestions', 'askedOutside', 'answeredAskingOutside', 'curatedAskedOutside'] as const) {
      expect(exercised[key], key).toBeGreaterThan(0);
    }
  }, PROPERTY_TIMEOUT_MS);

  test('token check and answer engine, after random permission and document changes: a token whose issuer lost update permission is refused, and answers stay inside the new reach', async () => {
    const exercised = newExercised();

    await fc.assert(
      fc.asyncProperty(changeScenario, (scenario) =>
        withFreshWorkspace(scenario.workspace, async (world) => {
          const engine = createAnswerEngine({ store: world.store, retriever: createLexicalRetriever(world.store), abstentionThreshold: 0 });
          const tokens: IssuedToken[] = [];
          for (const tokenModel of scenario.tokens) {
            tokens.push(await issueModelToken(world.store, world.model, world.built, tokenModel, NOW));
          }
          const askThrough = async (current: World, token: IssuedToken): Promise<void> => {
            const credentials = { token: token.secret, kbId: token.record.kbId, origin: undefined, now: NOW };

            const check = await checkWidgetRequest(current.store, credentials);

            if (!tokenWorks(current.model, token)) {
              exercised.refusedTokens += 1;
              expect(check.ok).toBe(false);
              if (!check.ok) expect(check.code).toBe('token_revoked');
              return;
            }
            expect(check.ok ? 'granted' : check.code).toBe('granted');
            if (!check.ok) return;
            const view = reachView(current.model, current.built, token);
            await expectStoreReachExact(current, view, check.reach);
            for (const question of scenario.questions) {
              await expectAnswerInsideReach(engine, current, view, check.reach, question, exercised);
            }
          };

          for (const token of tokens) await askThrough(world, token);
          let model = world.model;
          for (const change of scenario.changes) {
            model = await applyChange(world.store, model, world.built, tokens, change);
          }
          const after: World = { ...world, model };
          for (const token of tokens) {
            const before = expectedReach(world.model, token);
            const now = expectedReach(model, token);
            if (tokenWorks(model, token) && [...before].some((key) => !now.has(key))) exercised.narrowedReaches += 1;
            await askThrough(after, token);
          }
        }),
      ),
      { numRuns: 100, seed: 20260116 },
    );

    for (const key of ['refusedTokens', 'narrowedReaches', 'answers', 'answeredAskingOutside', 'curatedAskedOutside'] as const) {
      expect(exercised[key], key).toBeGreaterThan(0);
    }
  }, PROPERTY_TIMEOUT_MS);
});

describe('access rules when an issuer is removed from the workspace', () => {
  test('token check, issuer removed from the workspace: refused with token_revoked and still listed', async () => {
    await fc.assert(
      fc.asyncProperty(workspaceArbitrary(), tokenArbitrary(), (workspace, tokenModel) =>
        withFreshWorkspace(workspace, async (world) => {
          const token = await issueModelToken(world.store, world.model, world.built, tokenModel, NOW);

          await applyChange(world.store, world.model, world.built, [token], { kind: 'removeUser', user: token.issuer });
          const check = await checkWidgetRequest(world.store, {
            token: token.secret,
            kbId: token.record.kbId,
            origin: undefined,
            now: NOW,
          });

          expect(check.ok ? 'granted' : check.code).toBe('token_revoked');
          expect((await world.store.listTokens(token.record.kbId)).map((listed) => listed.id)).toContain(token.record.id);
        }),
      ),
      { numRuns: 10, seed: 20260117 },
    );
  }, PROPERTY_TIMEOUT_MS);
});

describe('POST /widget/query/stream over random workspaces', () => {
  let folder: string;
  let storeLocation: TestStoreLocation;
  let store: Store;
  let engine: PooledAnswerEngine;
  let server: Server;
  let baseUrl: string;
  let codec: SourceSpanCodec;
  let workspaces = 0;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'kb-widget-access-http-'));
    storeLocation = await createTestStoreLocation(folder);
    store = openStore(storeLocation.location, () => NOW);
    codec = createSourceSpanCodec('property-secret-0123456789abcdef0123456789abcdef');
    engine = createPooledAnswerEngine({ location: storeLocation.location, abstentionThreshold: 0, threads: 1 });
    const app = createApp({
      store,
      engine,
      codec,
      logger: pino({ level: 'silent' }),
      now: () => NOW,
      rateLimitPerIp: 100_000,
      rateLimitPerToken: 100_000,
      trustedProxies: 0,
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await engine.close();
    await store.close();
    await storeLocation.dispose();
    await rm(folder, { recursive: true, force: true });
  });

  /** Builds the model in the shared store under a namespace no other run uses. */
  async function buildInSharedStore(model: WorkspaceModel): Promise<World> {
    workspaces += 1;
    const namespace = `h${workspaces}`;
    const built = await buildWorkspace(store, model, { folder: join(folder, 'sources', namespace), namespace });
    return { store, model, built };
  }

  /** Streams an answer through the real app, as a server-side caller (no Origin). */
  async function stream(token: IssuedToken, question: string): Promise<{ status: number; frames: StreamFrame[]; problem?: Problem }> {
    const response = await fetch(`${baseUrl}/kb-api/api/v1/kb/${token.record.kbId}/widget/query/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token.secret}` },
      body: JSON.stringify({ question }),
    });
    if (response.status !== 200) return { status: response.status, frames: [], problem: (await response.json()) as Problem };
    return { status: 200, frames: (await readFrames(response)).map(({ frame }) => frame) };
  }

  const httpScenario = fc.record({
    workspace: workspaceArbitrary(),
    tokens: fc.array(tokenArbitrary(), { minLength: 1, maxLength: 2 }),
    questions: fc.array(questionArbitrary(), { minLength: 2, maxLength: 3 }),
    changes: fc.array(changeArbitrary(), { minLength: 1, maxLength: 3 }),
  });

  test('streamed answers, random workspaces before and after random changes: citation doc ids, spans and quotes, tokens and suggestions stay inside the reach; a token whose issuer lost update permission gets 401 token_revoked', async () => {
    let quotes = 0;
    let streamedAnswers = 0;
    let refusals = 0;

    const askAll = async (world: World, tokens: readonly IssuedToken[], questions: readonly QuestionModel[]): Promise<void> => {
      for (const token of tokens) {
        const view = reachView(world.model, world.built, token);
        for (const question of questions) {
          const text = questionText(world.model, world.built, question);

          const result = await stream(token, text);

          if (!tokenWorks(world.model, token)) {
            refusals += 1;
            expect(result.status).toBe(401);
            expect(result.problem?.code).toBe('token_revoked');
            continue;
          }
          expect(result.status).toBe(200);
          const citations = result.frames.flatMap((frame) => (frame.type === 'citations' ? frame.citations : []));
          const spans = citations.map((citation) => codec.decode(citation.source_span));
          const wronglyQuoted = citations
            .filter((citation) => citation.text !== undefined && !view.quotableById.get(`${citation.kb_id} ${citation.doc_id}`))
            .map((citation) => citation.doc_id);
          expect({
            question: text,
            citedOutside: citedOutside(view, citations.map((citation) => ({ kbId: citation.kb_id, docId: citation.doc_id }))),
            spansOutside: citedOutside(view, spans.map((span) => span ?? { kbId: '(undecodable)', docId: '' })),
            wronglyQuoted,
            leakedMarkers: markersIn(JSON.stringify(result.frames), view.outsideMarkers),
            last: result.frames.at(-1)?.type,
          }).toEqual({ question: text, citedOutside: [], spansOutside: [], wronglyQuoted: [], leakedMarkers: [], last: 'done' });
          quotes += citations.filter((citation) => citation.text !== undefined).length;
          streamedAnswers += citations.length > 0 ? 1 : 0;
        }
      }
    };

    await fc.assert(
      fc.asyncProperty(httpScenario, async (scenario) => {
        const world = await buildInSharedStore(scenario.workspace);
        const tokens: IssuedToken[] = [];
        for (const tokenModel of scenario.tokens) {
          tokens.push(await issueModelToken(store, world.model, world.built, tokenModel, NOW));
        }

        await askAll(world, tokens, scenario.questions);
        let model = world.model;
        for (const change of scenario.changes) model = await applyChange(store, model, world.built, tokens, change);
        await askAll({ ...world, model }, tokens, scenario.questions);
      }),
      { numRuns: 25, seed: 20260118 },
    );

    expect({ quotes: quotes > 0, streamedAnswers: streamedAnswers > 0, refusals: refusals > 0 }).toEqual({
      quotes: true,
      streamedAnswers: true,
      refusals: true,
    });
  }, PROPERTY_TIMEOUT_MS);
});


describe('access rules against side channels', () => {
  // Whether the engine answers or abstains must not reveal whether a word
  // occurs in a document outside the token's reach: a token holder could ask
  // "<public topic> <guessed code name>" and learn from the abstention whether
  // the code name appears in a restricted or workspace document they cannot
  // read. This held before BM25's N, avgdl and df and the evidence score's
  // `unknownShare` were computed within the reach (store/sqlite-search.ts).
  // Counterexample then (seed 20260119, shrunk): one KB with public
  // `zorblatwk0d0.md`, restricted `quindlewk0d1.md` (no listed readers) and
  // public `snarvikwk0d2.md`; a token of the KB's editor with scope
  // public+restricted. "What about the zorblatwk0d0 quindlewk0d1?" was
  // answered citing zorblatwk0d0.md; "What about the zorblatwk0d0 blorpwk9d9?"
  // (a word in no document) was abstained on.
  test('answer engine, documents outside the reach deleted: every answer (text, citations, scores, abstention, suggestions) is unchanged', async () => {
    const scenario = fc.record({
      workspace: workspaceArbitrary(),
      token: tokenArbitrary(),
      questions: fc.array(questionArbitrary(), { minLength: 1, maxLength: 4 }),
    });
    let compared = 0;

    await fc.assert(
      fc.asyncProperty(scenario, (generated) =>
        withFreshWorkspace(generated.workspace, async (world) => {
          const engine = createAnswerEngine({ store: world.store, retriever: createLexicalRetriever(world.store) });
          const token = await issueModelToken(world.store, world.model, world.built, generated.token, NOW);
          const role = await world.store.getRole(token.record.kbId, token.record.issuerId!);
          const reach = tokenReach(token.record.kbId, token.record.issuerId!, role, token.record.scope);
          const inside = expectedReach(world.model, token);
          const outside = allDocuments(world.model, world.built).filter((entry) => entry.kb === token.kb && !inside.has(entry.key));
          fc.pre(outside.length > 0);
          const texts = generated.questions.map((question) => questionText(world.model, world.built, question));
          const ask = async () => Promise.all(texts.map(async (question) => collectAnswer(engine.answer({ question, reach }))));
          const withOutside = await ask();

          for (const entry of outside) await world.store.removeDocument(token.record.kbId, entry.docId);
          const without = await ask();

          expect(withOutside).toEqual(without);
          compared += texts.length;
        }),
      ),
      { numRuns: 40, seed: 20260120 },
    );

    expect(compared).toBeGreaterThan(0);
  }, PROPERTY_TIMEOUT_MS);

  test('answer engine, a word found only in documents outside the reach added to a question: answers as if the word occurred nowhere', async () => {
    const scenario = fc.record({
      workspace: workspaceArbitrary(),
      token: tokenArbitrary(),
      question: questionArbitrary().filter((question) => question.kind === 'markers'),
      secret: fc.nat({ max: 15 }),
    });

    await fc.assert(
      fc.asyncProperty(scenario, (generated) =>
        withFreshWorkspace(generated.workspace, async (world) => {
          const engine = createAnswerEngine({ store: world.store, retriever: createLexicalRetriever(world.store) });
          const token = await issueModelToken(world.store, world.model, world.built, generated.token, NOW);
          const role = await world.store.getRole(token.record.kbId, token.record.issuerId!);
          const reach = tokenReach(token.record.kbId, token.record.issuerId!, role, token.record.scope);
          const inside = expectedReach(world.model, token);
          const outside = allDocuments(world.model, world.built).filter((entry) => entry.kb === token.kb && !inside.has(entry.key));
          fc.pre(outside.length > 0);
          const secret = outside[generated.secret % outside.length]!.marker;
          const nowhere = world.built.marker(9, 9);
          const asked = questionText(world.model, world.built, generated.question).replace(/\?$/, '');
          const observe = async (word: string) => {
            const answer = await collectAnswer(engine.answer({ question: `${asked} ${word}?`, reach }));
            return { abstained: answer.abstained, cited: answer.citations.map(({ passage }) => passage.docId) };
          };

          const withSecret = await observe(secret);
          const withNowhere = await observe(nowhere);

          expect(withSecret).toEqual(withNowhere);
        }),
      ),
      { numRuns: 40, seed: 20260119 },
    );
  }, PROPERTY_TIMEOUT_MS);
});
