import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, onTestFinished, test } from 'vitest';
import { analyze } from '../retrieval/analyzer.ts';
import { analyzeChunks } from '../ingest/pipeline/analyze-chunks.ts';
import { inverseDocumentFrequency, PASSAGE_RANKING } from '../retrieval/bm25f.ts';
import { INDEX_ANALYSIS_VERSION } from '../retrieval/index-fields.ts';
import { createLexicalRetriever } from '../retrieval/lexical-retriever.ts';
import { reindexStaleDocuments } from '../retrieval/reindex.ts';
import type { RetrievalQuery, SearchResult } from '../retrieval/retriever.ts';
import { SQLITE_MIGRATIONS } from './sqlite/sqlite-schema.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import { analyzedDocument } from '../testing/analyzed-document.ts';
import { openTestStore as openBackendTestStore, testBackend, type TestStore } from '../testing/test-store.ts';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../errors.ts';
import {
  type DocumentInput,
  type Reach,
  type SessionRecord,
  type Store,
  type TokenRecord,
  type User,
  type Visibility,
} from './store.ts';

/**
 * The contract of the storage interface (store.ts), run against the backend
 * of the test run (server/testing/test-store.ts): the embedded SQLite store in
 * the `embedded` test project, PostgreSQL in the `postgres` one. The SQLite
 * migration tests at the end run in the `embedded` project only;
 * PostgreSQL's own are in postgres/postgres-store.test.ts, and the two backends'
 * rankings are compared in backend-parity.test.ts.
 */

const KB_ID = 'kb';
const START = Date.UTC(2026, 0, 15, 12, 0, 0);

/**
 * A fresh store with one knowledge base, on the test run's backend
 * (server/testing/test-store.ts), removed after the test. `reopen` opens
 * another connection (another store) on the same database.
 */
async function openTestStore(): Promise<TestStore> {
  const opened = await openBackendTestStore({ now: () => START });
  onTestFinished(() => opened.close());
  await opened.store.createKnowledgeBase({ id: KB_ID, name: 'Knowledge base' });
  return opened;
}

/** A document of `KB_ID` whose passages are `[headingPath, text]` pairs, analyzed like ingest does. */
function documentInput(
  docId: string,
  passages: [string[], string][],
  options: Partial<Omit<DocumentInput, 'docId' | 'chunks' | 'page'>> = {},
): DocumentInput {
  const title = options.title ?? passages[0]?.[0][0] ?? docId;
  const texts = passages.map(([headingPath, text]) => ({ headingPath, text }));
  return analyzedDocument(KB_ID, docId, title, texts, { contentHash: `hash-of-${docId}`, ...options });
}

/** A search through a fresh lexical retriever over `store` (retrieval/lexical-retriever.ts): what the engine gets. */
function searchIn(store: Store, query: RetrievalQuery): Promise<SearchResult> {
  return createLexicalRetriever(store).search(query);
}

function reachOf(userId: string, visibilities: readonly Visibility[], kbId = KB_ID): Reach {
  return { kbId, userId, visibilities };
}

const PUBLIC_REACH = reachOf('usr_nobody', ['public']);

async function searchDocIds(store: Store, question: string, reach: Reach = PUBLIC_REACH, topK = 10): Promise<string[]> {
  const result = await searchIn(store, { reach, terms: analyze(question), topK });
  return result.passages.map((passage) => passage.docId);
}

function tokenRecord(overrides: Partial<TokenRecord> & Pick<TokenRecord, 'issuerId'>): TokenRecord {
  return {
    id: 'tok_one',
    kbId: KB_ID,
    tokenHash: 'a'.repeat(64),
    allowedOrigins: ['https://shop.example.com', 'https://*.example.org'],
    scope: ['public', 'workspace'],
    purpose: 'embed',
    createdAt: START,
    expiresAt: START + 3_600_000,
    ...overrides,
  };
}

describe('Store users and roles', () => {
  test('createUser with a mixed-case, padded email: stored lower-cased and found by any casing', async () => {
    // Arrange
    const { store } = await openTestStore();

    // Act
    const user = await store.createUser({ email: '  Alice@Example.COM ', name: 'Alice' });

    // Assert
    expect(user).toEqual({ id: expect.stringMatching(/^usr_/), email: 'alice@example.com', name: 'Alice', createdAt: START });
    expect(await store.findUserByEmail('ALICE@example.com')).toEqual(user);
    expect(await store.getUser(user.id)).toEqual(user);
  });

  test('createUser with an email already used in another casing: rejected with ConflictError', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.createUser({ email: 'alice@example.com', name: 'Alice' });

    // Act
    const creating = store.createUser({ email: 'ALICE@example.com', name: 'Other Alice' });

    // Assert
    await expect(creating).rejects.toBeInstanceOf(ConflictError);
    expect(await store.listUsers()).toHaveLength(1);
  });

  test('setRole on an unknown knowledge base or unknown user: rejected with NotFoundError', async () => {
    // Arrange
    const { store } = await openTestStore();
    const user = await store.createUser({ email: 'alice@example.com', name: 'Alice' });

    // Act
    const unknownKnowledgeBase = store.setRole('no-such-kb', user.id, 'editor');
    const unknownUser = store.setRole(KB_ID, 'usr_missing', 'editor');

    // Assert
    await expect(unknownKnowledgeBase).rejects.toBeInstanceOf(NotFoundError);
    await expect(unknownUser).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.listMembers(KB_ID)).toEqual([]);
  });

  test('setRole twice for one member: the second role replaces the first', async () => {
    // Arrange
    const { store } = await openTestStore();
    const user = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.setRole(KB_ID, user.id, 'reader');

    // Act
    await store.setRole(KB_ID, user.id, 'owner');

    // Assert
    expect(await store.getRole(KB_ID, user.id)).toBe('owner');
    expect(await store.listMembers(KB_ID)).toEqual([{ kbId: KB_ID, userId: user.id, role: 'owner', email: 'alice@example.com' }]);
  });

  test('removeUser: memberships and reader grants are gone; the tokens they issued stay listed without an issuer', async () => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    const bob = await store.createUser({ email: 'bob@example.com', name: 'Bob' });
    await store.setRole(KB_ID, alice.id, 'editor');
    await store.setRole(KB_ID, bob.id, 'editor');
    await store.putDocument(
      documentInput('secret.md', [[['Secret'], 'The quokka plan.']], { visibility: 'restricted', readers: [alice.id, bob.id] }),
    );
    await store.insertToken(tokenRecord({ id: 'tok_alice', issuerId: alice.id, tokenHash: 'a'.repeat(64) }));
    await store.insertToken(tokenRecord({ id: 'tok_bob', issuerId: bob.id, tokenHash: 'b'.repeat(64) }));

    // Act
    await store.removeUser(alice.id);

    // Assert
    expect(await store.getUser(alice.id)).toBeUndefined();
    expect(await store.getRole(KB_ID, alice.id)).toBeUndefined();
    expect((await store.listMembers(KB_ID)).map((member) => member.userId)).toEqual([bob.id]);
    const orphan = await store.findTokenByHash('a'.repeat(64));
    expect(orphan?.id).toBe('tok_alice');
    expect(orphan).not.toHaveProperty('issuerId');
    expect((await store.listTokens(KB_ID)).map((token) => token.id)).toEqual(['tok_alice', 'tok_bob']);
    expect((await store.getDocument(KB_ID, 'secret.md'))?.readers).toEqual([bob.id]);
  });
});

describe('Store search', () => {
  test('passage repeating the query term: ranked above one of the same length mentioning it once', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('once.md', [[['Birds'], 'The otter swims near the river banks every morning with friends.']]));
    await store.putDocument(documentInput('thrice.md', [[['Birds'], 'The otter swims; otter dives; otter rests near river banks daily.']]));
    await store.putDocument(documentInput('none.md', [[['Birds'], 'The heron waits near the river banks every morning alone.']]));

    // Act
    const docIds = await searchDocIds(store, 'otter');

    // Assert
    expect(docIds).toEqual(['thrice.md', 'once.md']);
  });

  test('passage whose heading path contains the query term: ranked above an identical body under another heading', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('plain.md', [[['Animals'], 'The otter sleeps in a burrow by the water.']]));
    await store.putDocument(documentInput('heading.md', [[['Otters'], 'The otter sleeps in a burrow by the water.']]));

    // Act
    const docIds = await searchDocIds(store, 'otter');

    // Assert
    expect(docIds).toEqual(['heading.md', 'plain.md']);
  });

  test('search scores: the passage ranking of retrieval/bm25f.ts (title and section headings twice the text, normalized once) sets the order of two passages of one page', async () => {
    // Arrange
    const { store } = await openTestStore();
    const input = documentInput('a.md', [
      [['Birds', 'Falcons'], 'The falcon hunts pigeons over the city.'],
      [['Birds', 'Falcons', 'Nests'], 'A falcon nests on tall buildings and cliffs.'],
      [['Birds', 'Herons'], 'The heron fishes in shallow water.'],
    ]);
    await store.putDocument(input);
    const chunks = input.chunks;
    const weights = PASSAGE_RANKING.fields.map((field) => field.weight);
    const weighted = (counts: readonly number[]) => counts.reduce((sum, count, field) => sum + weights[field]! * count, 0);
    const lengths = chunks.map((chunk) => weighted(chunk.index.lengths));
    const averageLength = lengths.reduce((sum, length) => sum + length, 0) / chunks.length;
    const { k1, fields } = PASSAGE_RANKING;
    const b = fields[0]!.b;
    const terms = analyze('falcon nests');
    const expected = chunks.map((chunk, index) =>
      terms.reduce((score, term) => {
        const frequency = weighted(chunk.index.terms.get(term) ?? [0, 0, 0, 0]);
        if (frequency === 0) return score;
        const documentFrequency = chunks.filter((other) => other.index.terms.has(term)).length;
        const idf = inverseDocumentFrequency(chunks.length, documentFrequency);
        return score + (idf * frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * lengths[index]!) / averageLength));
      }, 0),
    );

    // Act
    const result = await searchIn(store, { reach: PUBLIC_REACH, terms, topK: 10 });

    // Assert
    expect(result.passageCount).toBe(3);
    expect(result.documentFrequencies).toEqual({ [terms[0] ?? '']: 2, [terms[1] ?? '']: 1 });
    expect(result.passages.map((passage) => passage.text)).toEqual([chunks[1]?.text, chunks[0]?.text]);
    // Both passages share one page, so its evidence (retrieval/lexical-retriever.ts) adds the same to each:
    // the passage ranking alone sets their difference.
    expect(result.passages[0]!.score - result.passages[1]!.score).toBeCloseTo(expected[1]! - expected[0]!, 10);
    expect(result.passages[1]!.score).toBeGreaterThan(expected[0]!);
    expect(result.passages[0]).toMatchObject({
      kbId: KB_ID,
      docId: 'a.md',
      title: 'Birds',
      headingPath: ['Birds', 'Falcons', 'Nests'],
      quotable: true,
      contentHash: 'hash-of-a.md',
    });
  });

  test.each<[string, string, Visibility[], string[]]>([
    ['a stranger, public only', 'usr_stranger', ['public'], ['pub.md']],
    ['a member, public and workspace', 'BOB', ['public', 'workspace'], ['pub.md', 'ws.md']],
    ['a listed reader, all visibilities', 'ALICE', ['public', 'workspace', 'restricted'], ['pub.md', 'res.md', 'ws.md']],
    ['an unlisted member, all visibilities', 'BOB', ['public', 'workspace', 'restricted'], ['pub.md', 'ws.md']],
    ['a listed reader, restricted only', 'ALICE', ['restricted'], ['res.md']],
    ['a listed reader, workspace only', 'ALICE', ['workspace'], ['ws.md']],
    ['anyone, no visibilities', 'ALICE', [], []],
  ])('search reach of %s: only the documents inside it', async (_case, who, visibilities, expected) => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    const bob = await store.createUser({ email: 'bob@example.com', name: 'Bob' });
    await store.putDocument(documentInput('pub.md', [[['Public'], 'The falcon flies in public.']]));
    await store.putDocument(documentInput('ws.md', [[['Workspace'], 'The falcon flies in the workspace.']], { visibility: 'workspace' }));
    await store.putDocument(
      documentInput('res.md', [[['Restricted'], 'The falcon flies in secret.']], { visibility: 'restricted', readers: [alice.id] }),
    );
    const userId = who === 'ALICE' ? alice.id : who === 'BOB' ? bob.id : who;

    // Act
    const docIds = await searchDocIds(store, 'falcon', reachOf(userId, visibilities));

    // Assert
    expect([...docIds].sort()).toEqual(expected);
  });

  test('search with top-k 2 whose best passages are outside the reach: the 2 best passages inside it', async () => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.putDocument(
      documentInput('res.md', [[['Kestrels'], 'Kestrel kestrel kestrel kestrel kestrel hovering.']], {
        visibility: 'restricted',
        readers: [alice.id],
      }),
    );
    await store.putDocument(
      documentInput('ws.md', [[['Kestrels'], 'Kestrel kestrel kestrel kestrel over the moor.']], { visibility: 'workspace' }),
    );
    await store.putDocument(documentInput('two.md', [[['Birds'], 'A kestrel and another kestrel over the field today.']]));
    await store.putDocument(documentInput('one.md', [[['Birds'], 'A kestrel over the quiet field early today again.']]));
    await store.putDocument(documentInput('zero.md', [[['Birds'], 'A heron over the quiet field early today again.']]));

    // Act
    const everything = await searchDocIds(store, 'kestrel', reachOf(alice.id, ['public', 'workspace', 'restricted']), 2);
    const publicOnly = await searchDocIds(store, 'kestrel', reachOf('usr_stranger', ['public']), 2);

    // Assert
    expect(everything).toEqual(['res.md', 'ws.md']);
    expect(publicOnly).toEqual(['two.md', 'one.md']);
  });

  test('search for terms absent from the knowledge base: no passages, document frequencies 0', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('a.md', [[['Birds'], 'The falcon hunts.'], [['Fish'], 'The trout swims.']]));

    // Act
    const result = await searchIn(store, { reach: PUBLIC_REACH, terms: ['zyzzyva', 'quixot'], topK: 5 });

    // Assert
    expect(result).toEqual({ passages: [], passageCount: 2, documentFrequencies: { zyzzyva: 0, quixot: 0 } });
  });

  test('search of one knowledge base: passages and statistics of another knowledge base never counted', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.createKnowledgeBase({ id: 'other', name: 'Other' });
    await store.putDocument(documentInput('a.md', [[['Birds'], 'The falcon hunts.']]));
    await store.putDocument({ ...documentInput('b.md', [[['Birds'], 'The falcon nests.'], [['More'], 'A falcon again.']]), kbId: 'other' });

    // Act
    const result = await searchIn(store, { reach: PUBLIC_REACH, terms: analyze('falcon'), topK: 5 });

    // Assert
    expect(result.passageCount).toBe(1);
    expect(result.documentFrequencies).toEqual({ falcon: 1 });
    expect(result.passages.map((passage) => [passage.kbId, passage.docId])).toEqual([[KB_ID, 'a.md']]);
  });

  test('search statistics: computed within the reach, so passages outside it change neither counts nor scores', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('pub.md', [[['Birds'], 'The falcon hunts.'], [['Fish'], 'The salmon swims upstream today.']]));
    const alone = await searchIn(store, { reach: PUBLIC_REACH, terms: analyze('falcon hunts'), topK: 5 });
    await store.putDocument(
      documentInput('ws.md', [[['Birds'], 'The falcon nests.'], [['Birds'], 'A falcon hunts again and again and again.']], { visibility: 'workspace' }),
    );

    // Act
    const result = await searchIn(store, { reach: PUBLIC_REACH, terms: analyze('falcon hunts'), topK: 5 });
    const wider = await searchIn(store, { reach: { ...PUBLIC_REACH, visibilities: ['public', 'workspace'] }, terms: analyze('falcon hunts'), topK: 5 });

    // Assert
    expect(result).toEqual(alone);
    expect({ passageCount: result.passageCount, documentFrequencies: result.documentFrequencies }).toEqual({
      passageCount: 2,
      documentFrequencies: { falcon: 1, hunt: 1 },
    });
    expect({ passageCount: wider.passageCount, documentFrequencies: wider.documentFrequencies }).toEqual({
      passageCount: 4,
      documentFrequencies: { falcon: 3, hunt: 2 },
    });
  });

  test('search on a second connection to the same database (as each answer worker opens): the same result as on the writing one', async () => {
    // Arrange
    const { store, reopen } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.putDocument(documentInput('a.md', [[['Falcons'], 'The falcon hunts pigeons.'], [['Nests'], 'A falcon nests high.']]));
    await store.putDocument(documentInput('b.md', [[['Herons'], 'The heron and the falcon share a lake.']], { visibility: 'workspace' }));
    await store.putDocument(
      documentInput('c.md', [[['Falcon nests'], 'Restricted falcon nests.']], { visibility: 'restricted', readers: [alice.id] }),
    );
    const query = { reach: reachOf(alice.id, ['public', 'restricted']), terms: [...analyze('falcon nests'), 'absent'], topK: 3 };
    const reader = reopen();

    // Act
    const onWriter = await searchIn(store, query);
    const onReader = await searchIn(reader, query);

    // Assert
    expect(onWriter.passages.map((passage) => passage.docId)).toEqual(['c.md', 'a.md', 'a.md']);
    expect(onReader).toEqual(onWriter);
  });

  test('search on a second connection that already searched, after a write on the first: sees the new passages', async () => {
    // Arrange
    const { store, reopen } = await openTestStore();
    const reader = reopen();
    await store.putDocument(documentInput('a.md', [[['Falcons'], 'The falcon hunts.']]));
    await searchDocIds(reader, 'falcon');
    await store.putDocument(documentInput('b.md', [[['Falcons'], 'Another falcon hunts.']]));

    // Act
    const docIds = await searchDocIds(reader, 'falcon');

    // Assert
    expect([...docIds].sort()).toEqual(['a.md', 'b.md']);
  });
});

describe('Store documents', () => {
  test('putDocument twice with the same content hash: unchanged, the passages keep their ids', async () => {
    // Arrange
    const { store } = await openTestStore();
    const input = documentInput('a.md', [[['Falcons'], 'The falcon hunts.']]);
    await store.putDocument(input);
    const before = await searchIn(store, { reach: PUBLIC_REACH, terms: ['falcon'], topK: 5 });

    // Act
    const outcome = await store.putDocument({ ...input, chunks: analyzeChunks({ title: 'X' }, [{ headingPath: ['X'], text: 'Ignored heron.' }]) });

    // Assert
    expect(outcome).toBe('unchanged');
    expect(await searchIn(store, { reach: PUBLIC_REACH, terms: ['falcon'], topK: 5 })).toEqual(before);
    expect(await searchDocIds(store, 'heron')).toEqual([]);
  });

  test('putDocument replacing a document whose readers include an unknown user: rejected, the previous version fully kept', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(
      documentInput('a.md', [[['Herons'], 'The heron fishes.'], [['More herons'], 'A heron waits.']], { contentHash: 'v1' }),
    );
    const documentBefore = await store.getDocument(KB_ID, 'a.md');
    const searchBefore = await searchIn(store, { reach: PUBLIC_REACH, terms: analyze('heron'), topK: 5 });
    const failing = documentInput('a.md', [[['Egrets'], 'The egret wades.']], {
      contentHash: 'v2',
      visibility: 'restricted',
      readers: ['usr_does_not_exist'],
    });

    // Act
    const putting = store.putDocument(failing);

    // Assert
    await expect(putting).rejects.toThrow(/FOREIGN KEY/i);
    const documentAfter = await store.getDocument(KB_ID, 'a.md');
    expect(documentAfter).toEqual(documentBefore);
    expect(documentAfter).toMatchObject({ contentHash: 'v1', chunkCount: 2, visibility: 'public' });
    expect(await searchIn(store, { reach: PUBLIC_REACH, terms: analyze('heron'), topK: 5 })).toEqual(searchBefore);
    expect(searchBefore.passages).toHaveLength(2);
    expect(await searchIn(store, { reach: PUBLIC_REACH, terms: analyze('egret'), topK: 5 })).toEqual({
      passages: [],
      passageCount: 2,
      documentFrequencies: { egret: 0 },
    });
  });

  test('putDocuments: a batch of new, replaced and unchanged documents, each outcome in its slot, all searchable', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('kept.md', [[['Kept'], 'The kestrel hovers.']], { contentHash: 'k1' }));
    await store.putDocument(documentInput('changed.md', [[['Changed'], 'The crow caws.']], { contentHash: 'c1' }));

    // Act
    const outcomes = await store.putDocuments([
      documentInput('new.md', [[['New'], 'The heron fishes.']]),
      documentInput('kept.md', [[['Kept'], 'The kestrel hovers.']], { contentHash: 'k1' }),
      documentInput('changed.md', [[['Changed'], 'The raven croaks.']], { contentHash: 'c2' }),
    ]);

    // Assert
    expect(outcomes).toEqual([{ outcome: 'created' }, { outcome: 'unchanged' }, { outcome: 'updated' }]);
    expect(await searchDocIds(store, 'heron')).toEqual(['new.md']);
    expect(await searchDocIds(store, 'raven')).toEqual(['changed.md']);
    expect(await searchDocIds(store, 'crow')).toEqual([]);
    expect((await searchIn(store, { reach: PUBLIC_REACH, terms: ['kestrel'], topK: 5 })).passageCount).toBe(3);
  });

  test('putDocuments of a batch and putDocument one by one: the same documents, counts, access and scores', async () => {
    // Arrange
    const reader = async (store: Store) => (await store.createUser({ email: 'ada@example.com', name: 'Ada' })).id;
    const documents = (readerId: string) => [
      documentInput('herons.md', [
        [['Herons'], 'The grey heron fishes in shallow water.'],
        [['Herons', 'Nesting'], 'Herons nest in colonies called heronries; a heron lays three eggs.'],
      ], { description: 'Wading birds', url: 'https://birds.example/herons', route: { slug: 'herons' } }),
      documentInput('egrets.md', [[['Egrets'], 'The little egret wades; egrets and herons share the shallows.']], {
        visibility: 'restricted',
        readers: [readerId],
        quotable: false,
      }),
      documentInput('ibises.md', [
        [['Ibises'], 'The ibis probes mud.'],
        [['Ibises', 'Range'], 'Ibises live beside the heron in warm wetlands.'],
        [['Ibises', 'Diet'], 'Insects, worms and crayfish.'],
      ]),
    ];
    const batched = await openTestStore();
    const batchedReader = await reader(batched.store);
    const oneByOne = await openTestStore();
    const oneByOneReader = await reader(oneByOne.store);

    // Act
    const outcomes = await batched.store.putDocuments(documents(batchedReader));
    for (const document of documents(oneByOneReader)) await oneByOne.store.putDocument(document);

    // Assert
    expect(outcomes).toEqual([{ outcome: 'created' }, { outcome: 'created' }, { outcome: 'created' }]);
    const records = async (store: Store, readerId: string) =>
      (await store.listDocuments(KB_ID)).map((document) => ({ ...document, readers: document.readers.map((id) => (id === readerId ? 'reader' : id)) }));
    expect(await records(batched.store, batchedReader)).toEqual(await records(oneByOne.store, oneByOneReader));
    expect((await batched.store.listDocuments(KB_ID)).map((document) => document.chunkCount)).toEqual([1, 2, 3]);
    const everything = (readerId: string): RetrievalQuery => ({
      reach: { kbId: KB_ID, userId: readerId, visibilities: ['public', 'workspace', 'restricted'] },
      terms: analyze('heron nest egret wetlands'),
      topK: 10,
    });
    const batchedResult = await searchIn(batched.store, everything(batchedReader));
    expect(batchedResult.passages).toHaveLength(4);
    expect(batchedResult).toEqual(await searchIn(oneByOne.store, everything(oneByOneReader)));
  });

  test('putDocuments with one failing document (unknown reader): it alone is rolled back, its previous version kept; the others written', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('a.md', [[['Herons'], 'The heron fishes.']], { contentHash: 'v1' }));
    const before = await store.getDocument(KB_ID, 'a.md');

    // Act
    const outcomes = await store.putDocuments([
      documentInput('b.md', [[['Egrets'], 'The egret wades.']]),
      documentInput('a.md', [[['Storks'], 'The stork nests.']], { contentHash: 'v2', visibility: 'restricted', readers: ['usr_does_not_exist'] }),
      documentInput('c.md', [[['Ibises'], 'The ibis probes.']]),
    ]);

    // Assert
    expect(outcomes[0]).toEqual({ outcome: 'created' });
    expect(outcomes[1]).toEqual({ error: expect.objectContaining({ message: expect.stringMatching(/FOREIGN KEY|foreign key/) }) });
    expect(outcomes[2]).toEqual({ outcome: 'created' });
    expect(await store.getDocument(KB_ID, 'a.md')).toEqual(before);
    expect(await searchDocIds(store, 'heron')).toEqual(['a.md']);
    expect(await searchDocIds(store, 'stork')).toEqual([]);
    expect(await searchDocIds(store, 'egret ibis')).toEqual(expect.arrayContaining(['b.md', 'c.md']));
    expect((await searchIn(store, { reach: PUBLIC_REACH, terms: ['heron'], topK: 5 })).passageCount).toBe(3);
  });

  test('putDocuments into an unknown knowledge base: rejected with NotFoundError, nothing of the batch written', async () => {
    // Arrange
    const { store } = await openTestStore();

    // Act
    const putting = store.putDocuments([documentInput('a.md', [[['A'], 'Alpha text.']]), { ...documentInput('b.md', [[['B'], 'Beta text.']]), kbId: 'missing' }]);

    // Assert
    await expect(putting).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.getDocument(KB_ID, 'a.md')).toBeUndefined();
  });

  test('calls made while a failing batch is written: their own writes are kept when the batch is rolled back', async () => {
    // Arrange
    const { store } = await openTestStore();
    const failing = [documentInput('a.md', [[['A'], 'Alpha text.']]), { ...documentInput('b.md', [[['B'], 'Beta text.']]), kbId: 'missing' }];

    // Act: issued together, the other calls run while the batch's transaction is open
    const [putting, hit, user] = await Promise.allSettled([
      store.putDocuments(failing),
      store.hitRateLimit('visitor', 60_000, START),
      store.createUser({ email: 'ada@example.com', name: 'Ada' }),
    ]);

    // Assert
    expect(putting.status).toBe('rejected');
    expect(hit).toEqual({ status: 'fulfilled', value: { hits: 1, resetAt: START + 60_000 } });
    expect(user.status).toBe('fulfilled');
    expect((await store.hitRateLimit('visitor', 60_000, START)).hits).toBe(2);
    expect(await store.findUserByEmail('ada@example.com')).toMatchObject({ name: 'Ada' });
    expect(await store.getDocument(KB_ID, 'a.md')).toBeUndefined();
  });

  test('putDocument into an unknown knowledge base: rejected with NotFoundError', async () => {
    // Arrange
    const { store } = await openTestStore();

    // Act
    const putting = store.putDocument({ ...documentInput('a.md', [[['A'], 'Text.']]), kbId: 'missing' });

    // Assert
    await expect(putting).rejects.toBeInstanceOf(NotFoundError);
  });

  test('countPassages: the passages of one document inside the reach; 0 outside it or for an unknown document', async () => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.putDocument(
      documentInput('guide.md', [
        [['Guide', 'Install'], 'Download the installer.'],
        [['Guide', 'Usage'], 'Start the program.'],
      ]),
    );
    await store.putDocument(
      documentInput('secret.md', [[['Secret', 'Install'], 'Secret install steps.']], { visibility: 'restricted', readers: [alice.id] }),
    );

    // Act
    const guide = await store.countPassages(PUBLIC_REACH, 'guide.md');
    const secretForAlice = await store.countPassages(reachOf(alice.id, ['restricted']), 'secret.md');
    const secretForStranger = await store.countPassages(reachOf('usr_stranger', ['public', 'workspace', 'restricted']), 'secret.md');
    const unknown = await store.countPassages(PUBLIC_REACH, 'missing.md');

    // Assert
    expect([guide, secretForAlice, secretForStranger, unknown]).toEqual([2, 1, 0, 0]);
  });

  test('passagesOf: the reachable passages of one document in document order, optionally under one heading', async () => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.putDocument(
      documentInput('guide.md', [
        [['Guide', 'Install'], 'Download the installer.'],
        [['Guide', 'Install', 'Linux'], 'Run the script.'],
        [['Guide', 'Usage'], 'Start the program.'],
      ]),
    );
    await store.putDocument(
      documentInput('secret.md', [[['Secret', 'Install'], 'Secret install steps.']], { visibility: 'restricted', readers: [alice.id] }),
    );

    // Act
    const all = await store.passagesOf(PUBLIC_REACH, 'guide.md');
    const install = await store.passagesOf(PUBLIC_REACH, 'guide.md', 'Install');
    const unknownHeading = await store.passagesOf(PUBLIC_REACH, 'guide.md', 'Uninstall');
    const secretForStranger = await store.passagesOf(reachOf('usr_stranger', ['public', 'workspace', 'restricted']), 'secret.md');
    const secretForAlice = await store.passagesOf(reachOf(alice.id, ['restricted']), 'secret.md', 'Install');
    const guideWithoutPublic = await store.passagesOf(reachOf(alice.id, ['workspace', 'restricted']), 'guide.md');

    // Assert
    expect(all.map((passage) => passage.text)).toEqual(['Download the installer.', 'Run the script.', 'Start the program.']);
    expect(install.map((passage) => passage.headingPath)).toEqual([
      ['Guide', 'Install'],
      ['Guide', 'Install', 'Linux'],
    ]);
    expect(unknownHeading).toEqual([]);
    expect(secretForStranger).toEqual([]);
    expect(secretForAlice.map((passage) => passage.text)).toEqual(['Secret install steps.']);
    expect(guideWithoutPublic).toEqual([]);
  });

  test('removeDocument: true once, the passages leave search and the passage count, then false', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('a.md', [[['Falcons'], 'The falcon hunts.'], [['More'], 'The falcon rests.']]));
    await store.putDocument(documentInput('b.md', [[['Herons'], 'The heron fishes near a falcon.']]));

    // Act
    const first = await store.removeDocument(KB_ID, 'a.md');
    const second = await store.removeDocument(KB_ID, 'a.md');

    // Assert
    expect([first, second]).toEqual([true, false]);
    expect(await store.getDocument(KB_ID, 'a.md')).toBeUndefined();
    const result = await searchIn(store, { reach: PUBLIC_REACH, terms: ['falcon'], topK: 5 });
    expect(result.passages.map((passage) => passage.docId)).toEqual(['b.md']);
    expect(result.passageCount).toBe(1);
    expect(result.documentFrequencies).toEqual({ falcon: 1 });
  });

  test('setDocumentAccess from public to restricted: leaves the public reach, enters the listed reader\'s', async () => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.putDocument(documentInput('a.md', [[['Falcons'], 'The falcon hunts.']]));

    // Act
    await store.setDocumentAccess(KB_ID, 'a.md', { visibility: 'restricted', readers: [alice.id], quotable: false });

    // Assert
    expect(await searchDocIds(store, 'falcon')).toEqual([]);
    expect(await searchDocIds(store, 'falcon', reachOf('usr_stranger', ['public', 'workspace', 'restricted']))).toEqual([]);
    const forAlice = await searchIn(store, { reach: reachOf(alice.id, ['restricted']), terms: ['falcon'], topK: 5 });
    expect(forAlice.passages.map((passage) => [passage.docId, passage.quotable])).toEqual([['a.md', false]]);
    expect(await store.getDocument(KB_ID, 'a.md')).toMatchObject({
      visibility: 'restricted',
      readers: [alice.id],
      quotable: false,
      contentHash: 'hash-of-a.md',
    });
  });

  test('setDocumentAccess on an unknown document: rejected with NotFoundError', async () => {
    // Arrange
    const { store } = await openTestStore();

    // Act
    const setting = store.setDocumentAccess(KB_ID, 'missing.md', { visibility: 'public', readers: [], quotable: true });

    // Assert
    await expect(setting).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('Store content version', () => {
  test('contentVersion: a new value after each write that can change an answer (document put, access, URLs, curated answers, removal), the same after an unchanged put; undefined for an unknown knowledge base', async () => {
    // Arrange
    const { store } = await openTestStore();
    const seen = [await store.contentVersion(KB_ID)];
    const next = async () => {
      const version = await store.contentVersion(KB_ID);
      expect(seen).not.toContain(version);
      seen.push(version);
    };

    // Act and assert
    await store.putDocument(documentInput('a.md', [[['Falcons'], 'The falcon hunts.']]));
    await next();
    await store.putDocument(documentInput('a.md', [[['Falcons'], 'The falcon hunts.']]));
    expect(await store.contentVersion(KB_ID)).toBe(seen.at(-1));
    await store.setDocumentAccess(KB_ID, 'a.md', { visibility: 'workspace', readers: [], quotable: true });
    await next();
    await store.setDocumentUrls(KB_ID, [{ docId: 'a.md', url: 'https://docs.example.com/a' }]);
    await next();
    await store.replaceFaq(KB_ID, [{ question: 'Do falcons hunt?', answer: 'Yes.', sources: [{ docId: 'a.md' }] }]);
    await next();
    await store.removeDocument(KB_ID, 'a.md');
    await next();
    expect(seen.every((version) => typeof version === 'string')).toBe(true);
    expect(await store.contentVersion('unknown')).toBeUndefined();
  });
});

describe('Store concurrent writers', () => {
  test('documents replaced while their access and URLs are changed at the same time (PostgreSQL: on other pooled connections): every write succeeds (no deadlock), the text of the last put is stored', async () => {
    // Arrange
    const { store } = await openTestStore();
    const version = (round: number) => [
      documentInput('a.md', [[['Falcons'], `Falcon round ${round}.`]], { contentHash: `a-${round}` }),
      documentInput('b.md', [[['Herons'], `Heron round ${round}.`]], { contentHash: `b-${round}` }),
    ];
    await store.putDocuments(version(0));
    const rounds = 25;

    // Act
    const failures: unknown[] = [];
    const loop = (write: (round: number) => Promise<unknown>) =>
      (async () => {
        for (let round = 1; round <= rounds; round++) await write(round).catch((error: unknown) => failures.push(error));
      })();
    await Promise.all([
      loop(async (round) => {
        for (const outcome of await store.putDocuments(version(round))) if ('error' in outcome) throw outcome.error;
      }),
      loop((round) => store.setDocumentAccess(KB_ID, 'a.md', { visibility: round === rounds ? 'workspace' : 'public', readers: [], quotable: true })),
      loop((round) => store.setDocumentUrls(KB_ID, [{ docId: 'a.md', url: `https://docs.example.com/a/${round}` }, { docId: 'b.md', url: `https://docs.example.com/b/${round}` }])),
    ]);

    // Assert
    expect(failures).toEqual([]);
    // Which of the three writers came last is not fixed: the text is the last put's either way.
    expect(await store.getDocument(KB_ID, 'a.md')).toMatchObject({ contentHash: `a-${rounds}` });
  });
});

describe('Store sites', () => {
  test('createKnowledgeBase without site settings: no base URL, pretty pages, github anchors; with them: as given', async () => {
    const { store } = await openTestStore();

    const plain = await store.createKnowledgeBase({ id: 'plain', name: 'Plain' });
    const site = await store.createKnowledgeBase({
      id: 'site',
      name: 'Site',
      baseUrl: 'https://nodejs.org/docs/latest-v18.x/api/',
      urlStyle: 'html',
      anchorStyle: 'node',
    });

    expect(plain).toEqual({ id: 'plain', name: 'Plain', createdAt: START, urlStyle: 'pretty', anchorStyle: 'github' });
    await expect(store.getKnowledgeBase('plain')).resolves.toEqual(plain);
    await expect(store.getKnowledgeBase('site')).resolves.toEqual(site);
    expect(site).toMatchObject({ baseUrl: 'https://nodejs.org/docs/latest-v18.x/api/', urlStyle: 'html', anchorStyle: 'node' });
  });

  test('updateKnowledgeBase: given fields change, others kept, a null base URL removed; unknown id NotFoundError', async () => {
    const { store } = await openTestStore();

    const withSite = await store.updateKnowledgeBase(KB_ID, { baseUrl: 'https://docs.example.com/', urlStyle: 'html' });
    const renamed = await store.updateKnowledgeBase(KB_ID, { name: 'Renamed', baseUrl: null });

    expect(withSite).toMatchObject({ name: 'Knowledge base', baseUrl: 'https://docs.example.com/', urlStyle: 'html', anchorStyle: 'github' });
    expect(renamed).toEqual({ id: KB_ID, name: 'Renamed', createdAt: START, urlStyle: 'html', anchorStyle: 'github' });
    await expect(store.listKnowledgeBases()).resolves.toEqual([renamed]);
    await expect(store.updateKnowledgeBase('nope', { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
  });

  test('a document with description, URL, route and section anchors: on its record and on every passage', async () => {
    // Arrange
    const { store } = await openTestStore();
    const input = documentInput('volumes.md', [[['Volumes'], 'Volumes intro.'], [['Volumes', 'Why volumes'], 'Volumes keep data.']], {
      description: 'Ways to give Pods storage.',
      url: 'https://docs.example.com/volumes/',
      route: { slug: 'volumes' },
    });
    input.chunks[1]!.anchor = 'why-volumes';

    // Act
    await store.putDocument(input);

    // Assert
    await expect(store.getDocument(KB_ID, 'volumes.md')).resolves.toMatchObject({
      description: 'Ways to give Pods storage.',
      url: 'https://docs.example.com/volumes/',
      route: { slug: 'volumes' },
    });
    const passages = await store.passagesOf(PUBLIC_REACH, 'volumes.md');
    const searched = (await searchIn(store, { reach: PUBLIC_REACH, terms: analyze('volumes data'), topK: 5 })).passages;
    for (const passage of [...passages, ...searched]) {
      expect(passage).toMatchObject({ description: 'Ways to give Pods storage.', url: 'https://docs.example.com/volumes/' });
    }
    expect(passages.map((passage) => passage.anchor)).toEqual([undefined, 'why-volumes']);
    expect('anchor' in passages[0]!).toBe(false);
  });

  test('a document without site fields: none on its record or passages (omitted, not undefined)', async () => {
    const { store } = await openTestStore();
    await store.putDocument(documentInput('plain.md', [[['Plain'], 'Plain text.']]));

    const record = await store.getDocument(KB_ID, 'plain.md');
    const [passage] = await store.passagesOf(PUBLIC_REACH, 'plain.md');

    for (const key of ['description', 'url', 'route']) expect(record).not.toHaveProperty(key);
    for (const key of ['description', 'url', 'anchor']) expect(passage).not.toHaveProperty(key);
  });

  test('setDocumentUrls: listed documents get their new URL (or none), others and the content kept', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('a.md', [[['A'], 'Alpha text.']], { url: 'https://old.example.com/a/' }));
    await store.putDocument(documentInput('b.md', [[['B'], 'Beta text.']], { url: 'https://old.example.com/b/' }));
    await store.putDocument(documentInput('c.md', [[['C'], 'Gamma text.']], { url: 'https://old.example.com/c/' }));

    // Act
    await store.setDocumentUrls(KB_ID, [{ docId: 'a.md', url: 'https://new.example.com/a/' }, { docId: 'b.md' }, { docId: 'gone.md', url: 'x' }]);

    // Assert
    const documents = await store.listDocuments(KB_ID);
    expect(documents.map((document) => [document.docId, document.url, document.contentHash])).toEqual([
      ['a.md', 'https://new.example.com/a/', 'hash-of-a.md'],
      ['b.md', undefined, 'hash-of-b.md'],
      ['c.md', 'https://old.example.com/c/', 'hash-of-c.md'],
    ]);
    expect((await store.passagesOf(PUBLIC_REACH, 'a.md'))[0]?.url).toBe('https://new.example.com/a/');
  });
});

describe('Store tokens and settings', () => {
  test('insertToken then findTokenByHash and listTokens: the record as inserted', async () => {
    // Arrange
    const { store } = await openTestStore();
    const issuer = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
    const record = tokenRecord({ issuerId: issuer.id });

    // Act
    await store.insertToken(record);

    // Assert
    expect(await store.findTokenByHash(record.tokenHash)).toEqual(record);
    expect(await store.findTokenByHash('f'.repeat(64))).toBeUndefined();
    expect(await store.listTokens(KB_ID)).toEqual([record]);
  });

  test('insertToken with purpose preview: read back as preview, beside an embed token', async () => {
    // Arrange
    const { store } = await openTestStore();
    const issuer = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
    const embed = tokenRecord({ issuerId: issuer.id, id: 'tok_embed', tokenHash: 'c'.repeat(64) });
    const preview = tokenRecord({ issuerId: issuer.id, id: 'tok_preview', tokenHash: 'd'.repeat(64), purpose: 'preview', createdAt: START + 1 });

    // Act
    await store.insertToken(embed);
    await store.insertToken(preview);

    // Assert
    expect((await store.listTokens(KB_ID)).map((token) => [token.id, token.purpose])).toEqual([
      ['tok_embed', 'embed'],
      ['tok_preview', 'preview'],
    ]);
    expect((await store.findTokenByHash(preview.tokenHash))?.purpose).toBe('preview');
  });

  test('insertToken with a hash already stored: rejected with ConflictError', async () => {
    // Arrange
    const { store } = await openTestStore();
    const issuer = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
    await store.insertToken(tokenRecord({ issuerId: issuer.id, id: 'tok_first' }));

    // Act
    const inserting = store.insertToken(tokenRecord({ issuerId: issuer.id, id: 'tok_second' }));

    // Assert
    await expect(inserting).rejects.toBeInstanceOf(ConflictError);
  });

  test('revokeToken twice: true both times, the first revocation time kept; unknown id gives false', async () => {
    // Arrange
    const { store } = await openTestStore();
    const issuer = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
    const record = tokenRecord({ issuerId: issuer.id });
    await store.insertToken(record);

    // Act
    const first = await store.revokeToken(record.id, START + 1_000);
    const second = await store.revokeToken(record.id, START + 2_000);
    const unknown = await store.revokeToken('tok_missing', START + 3_000);

    // Assert
    expect([first, second, unknown]).toEqual([true, true, false]);
    expect((await store.findTokenByHash(record.tokenHash))?.revokedAt).toBe(START + 1_000);
  });

  test('recordTokenUse: the last use time stored, replaced by a later use', async () => {
    // Arrange
    const { store } = await openTestStore();
    const issuer = await store.createUser({ email: 'owner@example.com', name: 'Owner' });
    const record = tokenRecord({ issuerId: issuer.id });
    await store.insertToken(record);
    await store.recordTokenUse(record.id, START + 5_000);

    // Act
    await store.recordTokenUse(record.id, START + 9_000);

    // Assert
    expect(await store.listTokens(KB_ID)).toEqual([{ ...record, lastUsedAt: START + 9_000 }]);
  });

  test('getOrCreateSetting called twice: the first created value both times, also after reopening', async () => {
    // Arrange
    const { store, reopen } = await openTestStore();

    // Act
    const first = await store.getOrCreateSetting('signing-secret', () => 'first-value');
    const second = await store.getOrCreateSetting('signing-secret', () => 'second-value');
    await store.close();
    const third = await reopen().getOrCreateSetting('signing-secret', () => 'third-value');

    // Assert
    expect([first, second, third]).toEqual(['first-value', 'first-value', 'first-value']);
  });
});

describe('Store close', () => {
  test('closed store: search rejected with StoreUnavailableError', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.putDocument(documentInput('a.md', [[['Falcons'], 'The falcon hunts.']]));
    await store.close();

    // Act
    const searching = searchIn(store, { reach: PUBLIC_REACH, terms: ['falcon'], topK: 5 });

    // Assert
    await expect(searching).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  test('closed store: every other call rejected with StoreUnavailableError', async () => {
    // Arrange
    const { store } = await openTestStore();
    const user: User = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.close();

    // Act
    const calls = [
      store.getUser(user.id),
      store.createUser({ email: 'bob@example.com', name: 'Bob' }),
      store.listDocuments(KB_ID),
      store.putDocument(documentInput('a.md', [[['A'], 'Text.']])),
      store.passagesOf(PUBLIC_REACH, 'a.md'),
      store.findTokenByHash('a'.repeat(64)),
      store.getOrCreateSetting('key', () => 'value'),
    ];

    // Assert
    for (const call of calls) await expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  test('close called twice: the second call resolves', async () => {
    // Arrange
    const { store } = await openTestStore();
    await store.close();

    // Act
    const closing = store.close();

    // Assert
    await expect(closing).resolves.toBeUndefined();
  });
});

describe('Store passwords and sessions', () => {
  const HOUR = 60 * 60_000;
  const session = (userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord => ({
    idHash: 'a'.repeat(64),
    userId,
    createdAt: START,
    expiresAt: START + 12 * HOUR,
    lastSeenAt: START,
    ...overrides,
  });

  test('password hash: none until set, then the value set', async () => {
    // Arrange
    const { store } = await openTestStore();
    const user = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    const before = await store.getPasswordHash(user.id);

    // Act
    await store.setPasswordHash(user.id, 'scrypt$32768$8$3$salt$hash');

    // Assert
    expect(before).toBeUndefined();
    await expect(store.getPasswordHash(user.id)).resolves.toBe('scrypt$32768$8$3$salt$hash');
    expect(await store.getUser(user.id)).not.toHaveProperty('passwordHash');
  });

  test('password hash of an unknown user: set refused with NotFoundError, get undefined', async () => {
    const { store } = await openTestStore();

    await expect(store.setPasswordHash('usr_missing', 'x')).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.getPasswordHash('usr_missing')).resolves.toBeUndefined();
  });

  test('session: created, found, touched, deleted', async () => {
    // Arrange
    const { store } = await openTestStore();
    const user = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    const record = session(user.id);

    // Act
    await store.createSession(record);
    const found = await store.findSession(record.idHash);
    await store.touchSession(record.idHash, START + HOUR, START + 13 * HOUR);
    const touched = await store.findSession(record.idHash);
    await store.deleteSession(record.idHash);

    // Assert
    expect(found).toEqual(record);
    expect(touched).toEqual({ ...record, lastSeenAt: START + HOUR, expiresAt: START + 13 * HOUR });
    await expect(store.findSession(record.idHash)).resolves.toBeUndefined();
  });

  test('deleteSessionsOf: ends every session of that user only, returns how many', async () => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    const bob = await store.createUser({ email: 'bob@example.com', name: 'Bob' });
    await store.createSession(session(alice.id, { idHash: 'a'.repeat(64) }));
    await store.createSession(session(alice.id, { idHash: 'b'.repeat(64) }));
    await store.createSession(session(bob.id, { idHash: 'c'.repeat(64) }));

    // Act
    const ended = await store.deleteSessionsOf(alice.id);

    // Assert
    expect(ended).toBe(2);
    await expect(store.findSession('a'.repeat(64))).resolves.toBeUndefined();
    await expect(store.findSession('c'.repeat(64))).resolves.toMatchObject({ userId: bob.id });
  });

  test('a removed user: their sessions are gone', async () => {
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.createSession(session(alice.id));

    await store.removeUser(alice.id);

    await expect(store.findSession('a'.repeat(64))).resolves.toBeUndefined();
  });

  test('createSession: sessions that ended by then are deleted, live ones kept', async () => {
    // Arrange
    const { store } = await openTestStore();
    const alice = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.createSession(session(alice.id, { idHash: 'a'.repeat(64), expiresAt: START + HOUR }));
    await store.createSession(session(alice.id, { idHash: 'b'.repeat(64), expiresAt: START + 3 * HOUR }));

    // Act
    await store.createSession(session(alice.id, { idHash: 'c'.repeat(64), createdAt: START + 2 * HOUR }));

    // Assert
    await expect(store.findSession('a'.repeat(64))).resolves.toBeUndefined();
    await expect(store.findSession('b'.repeat(64))).resolves.toBeDefined();
  });

  test('session of an unknown user: refused by the foreign key', async () => {
    const { store } = await openTestStore();

    await expect(store.createSession(session('usr_missing'))).rejects.toThrow(/FOREIGN KEY/i);
  });
});

describe.runIf(testBackend() === 'embedded')('SqliteStore migration 2 (console sign-in)', () => {
  test('a database with only migration 1: upgraded at open, its users, roles and tokens kept, passwords and sessions usable', async () => {
    // Arrange: a database as the previous release left it
    const folder = await mkdtemp(join(tmpdir(), 'kb-sqlite-migration-test-'));
    const path = join(folder, 'kb.sqlite');
    const old = new BetterSqlite3(path);
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    old.exec(SQLITE_MIGRATIONS.find((migration) => migration.version === 1)!.sql);
    old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (1, ?)').run(START);
    old.prepare("INSERT INTO users (id, email, name, created_at) VALUES ('usr_old', 'old@example.com', 'Old', ?)").run(START);
    old.prepare("INSERT INTO knowledge_bases (id, name, created_at) VALUES ('kb', 'KB', ?)").run(START);
    old.prepare("INSERT INTO memberships (kb_id, user_id, role) VALUES ('kb', 'usr_old', 'owner')").run();
    old
      .prepare(
        `INSERT INTO tokens (id, kb_id, issuer_id, token_hash, allowed_origins, scope, created_at, expires_at)
         VALUES ('tok_old', 'kb', 'usr_old', ?, '[]', '["public"]', ?, ?)`,
      )
      .run('f'.repeat(64), START, START + 60_000);
    old.close();
    onTestFinished(() => rm(folder, { recursive: true, force: true }));

    // Act
    const store = openSqliteStore({ path, now: () => START });
    onTestFinished(() => store.close());

    // Assert
    await expect(store.getUser('usr_old')).resolves.toEqual({ id: 'usr_old', email: 'old@example.com', name: 'Old', createdAt: START });
    await expect(store.getRole('kb', 'usr_old')).resolves.toBe('owner');
    await expect(store.findTokenByHash('f'.repeat(64))).resolves.toMatchObject({ id: 'tok_old', issuerId: 'usr_old', purpose: 'embed' });
    await expect(store.getPasswordHash('usr_old')).resolves.toBeUndefined();
    await store.setPasswordHash('usr_old', 'scrypt$32768$8$3$salt$hash');
    await store.createSession({ idHash: 'a'.repeat(64), userId: 'usr_old', createdAt: START, expiresAt: START + 1, lastSeenAt: START });
    await expect(store.getPasswordHash('usr_old')).resolves.toBe('scrypt$32768$8$3$salt$hash');
    await expect(store.findSession('a'.repeat(64))).resolves.toMatchObject({ userId: 'usr_old' });
    const check = new BetterSqlite3(path, { readonly: true });
    const versions = check.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
    check.close();
    expect(versions).toEqual(SQLITE_MIGRATIONS.map((migration) => ({ version: migration.version })));
  });

  test('an up-to-date database opened again: no migration runs twice, the password is kept', async () => {
    // Arrange
    const { store, reopen } = await openTestStore();
    const user = await store.createUser({ email: 'alice@example.com', name: 'Alice' });
    await store.setPasswordHash(user.id, 'scrypt$32768$8$3$salt$hash');

    // Act
    const again = reopen();

    // Assert
    await expect(again.getPasswordHash(user.id)).resolves.toBe('scrypt$32768$8$3$salt$hash');
  });
});

describe.runIf(testBackend() === 'embedded')('SqliteStore migration 10 (fielded index)', () => {
  test('a database indexed before migration 10: upgraded at open, its document stale and not found; re-indexed from its stored passages, found exactly as when ingested afresh', async () => {
    // Arrange: a document indexed as the previous release did (body and heading-path postings)
    const folder = await mkdtemp(join(tmpdir(), 'kb-sqlite-migration-test-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'kb.sqlite');
    const old = new BetterSqlite3(path);
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const migration of SQLITE_MIGRATIONS.filter((candidate) => candidate.version < 10)) {
      old.exec(migration.sql);
      old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, START);
    }
    const input = documentInput('birds.md', [[['Birds'], 'The falcon hunts.'], [['Birds', 'Nests'], 'A falcon nests on cliffs.']]);
    old.prepare("INSERT INTO knowledge_bases (id, name, created_at) VALUES (?, 'KB', ?)").run(KB_ID, START);
    old.prepare('INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES (?, 2, 0, 0)').run(KB_ID);
    const documentId = old
      .prepare(
        `INSERT INTO documents (kb_id, doc_id, title, visibility, quotable, content_hash, updated_at, chunk_count)
         VALUES (?, ?, ?, 'public', 1, ?, ?, 2)`,
      )
      .run(KB_ID, input.docId, input.title, input.contentHash, START).lastInsertRowid;
    input.chunks.forEach((chunk, ordinal) => {
      const body = analyze(chunk.text);
      const heading = analyze(chunk.headingPath.join('\n'));
      const chunkId = old
        .prepare(
          `INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, text, body_length, heading_length)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(documentId, KB_ID, ordinal, JSON.stringify(chunk.headingPath), chunk.text, body.length, heading.length).lastInsertRowid;
      for (const term of new Set([...body, ...heading])) {
        old
          .prepare(
            `INSERT INTO postings (kb_id, term, chunk_id, document_id, tf_body, tf_heading, body_length, heading_length)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(KB_ID, term, chunkId, documentId, body.filter((t) => t === term).length, heading.filter((t) => t === term).length, body.length, heading.length);
      }
    });
    old.close();
    const { store: fresh } = await openTestStore();
    await fresh.putDocument(input);
    const query = { reach: PUBLIC_REACH, terms: analyze('falcon nests'), topK: 5 };

    // Act
    const upgraded = openSqliteStore({ path, now: () => START });
    onTestFinished(() => upgraded.close());
    const stale = await upgraded.listStaleDocuments(INDEX_ANALYSIS_VERSION);
    const beforeReindex = await searchIn(upgraded, query);
    const report = await reindexStaleDocuments(upgraded);

    // Assert
    expect(stale).toEqual([{ kbId: KB_ID, docId: 'birds.md' }]);
    expect(beforeReindex.passages).toEqual([]);
    expect(report).toEqual({ reindexed: 1, skipped: 0 });
    await expect(upgraded.listStaleDocuments(INDEX_ANALYSIS_VERSION)).resolves.toEqual([]);
    const result = await searchIn(upgraded, query);
    const afresh = await searchIn(fresh, query);
    expect(result.passages.map(({ chunkId: _id, contentHash: _hash, ...passage }) => passage)).toEqual(
      afresh.passages.map(({ chunkId: _id, contentHash: _hash, ...passage }) => passage),
    );
    expect(result.passages.map((passage) => passage.headingPath)).toEqual([['Birds', 'Nests'], ['Birds']]);
  });
});

describe.runIf(testBackend() === 'embedded')('SqliteStore migration 8 (documentation sites)', () => {
  test('a database of migration 7: upgraded at open; the knowledge base has no site, its document no URL, then takes them', async () => {
    // Arrange: a knowledge base and a document as the previous release stored them
    const folder = await mkdtemp(join(tmpdir(), 'kb-sqlite-migration-test-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'kb.sqlite');
    const old = new BetterSqlite3(path);
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const migration of SQLITE_MIGRATIONS.filter((candidate) => candidate.version < 8)) {
      old.exec(migration.sql);
      old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, START);
    }
    old.prepare("INSERT INTO knowledge_bases (id, name, created_at) VALUES (?, 'KB', ?)").run(KB_ID, START);
    old.prepare('INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES (?, 1, 2, 1)').run(KB_ID);
    const documentId = old
      .prepare(
        `INSERT INTO documents (kb_id, doc_id, title, visibility, quotable, content_hash, updated_at, chunk_count, body_length_sum, heading_length_sum)
         VALUES (?, 'old.md', 'Old', 'public', 1, 'hash-old', ?, 1, 2, 1)`,
      )
      .run(KB_ID, START).lastInsertRowid;
    old
      .prepare(`INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, text, body_length, heading_length) VALUES (?, ?, 0, '["Old"]', 'Old text.', 2, 1)`)
      .run(documentId, KB_ID);
    old.close();

    // Act
    const upgraded = openSqliteStore({ path, now: () => START });
    onTestFinished(() => upgraded.close());

    // Assert
    await expect(upgraded.getKnowledgeBase(KB_ID)).resolves.toEqual({ id: KB_ID, name: 'KB', createdAt: START, urlStyle: 'pretty', anchorStyle: 'github' });
    const [passage] = await upgraded.passagesOf(PUBLIC_REACH, 'old.md');
    expect(passage).toMatchObject({ docId: 'old.md', title: 'Old', text: 'Old text.' });
    for (const key of ['description', 'url', 'anchor']) expect(passage).not.toHaveProperty(key);
    await upgraded.updateKnowledgeBase(KB_ID, { baseUrl: 'https://docs.example.com/' });
    await upgraded.setDocumentUrls(KB_ID, [{ docId: 'old.md', url: 'https://docs.example.com/old/' }]);
    await expect(upgraded.getDocument(KB_ID, 'old.md')).resolves.toMatchObject({ url: 'https://docs.example.com/old/', contentHash: 'hash-old' });
  });
});
