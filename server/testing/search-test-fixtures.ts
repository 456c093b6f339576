import fc from 'fast-check';
import { INDEX_ANALYSIS_VERSION } from '../retrieval/index-fields.ts';
import type { RetrievalQuery } from '../retrieval/retriever.ts';
import type { FieldCounts, IndexedPage } from '../store/index/index-data.ts';
import { VISIBILITIES } from '../../protocol/workspace-terms.ts';
import { type ChunkInput, type DocumentInput, type Store, type Visibility } from '../store/store.ts';
import { NotFoundError } from '../errors.ts';

/**
 * Fixtures of the tests of the lexical retriever (retrieval/lexical-retriever.test.ts,
 * retrieval/index-cache.unit.test.ts), on either backend. Test support only:
 *
 * - random histories of a knowledge base: documents put, removed and
 *   re-permissioned, interleaved with searches of random reaches, terms and
 *   top-k, so the retriever can be compared with a reference scorer after
 *   every change ({@link operationArbitrary}, {@link playOperations});
 * - one-passage documents ({@link aboutDocument}) and the
 *   way a sequence of changes moves the index version ({@link indexVersionMoves}).
 */

/** Terms of the random corpora; numeric ones change the key order of the SQL's weights object. */
export const VOCABULARY = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', '404', '7', 'constructor'];
/** Query terms no passage contains. */
export const UNKNOWN_TERMS = ['unknown', 'zzz', '12'];
/** Names of the users the histories list as readers; create them with these names. */
export const READERS = ['ann', 'bob'];
const DOC_IDS = ['a', 'b', 'c', 'd', 'e', 'f'];

const fieldCountsArbitrary: fc.Arbitrary<FieldCounts> = fc
  .tuple(fc.constantFrom(0, 1), fc.constantFrom(0, 1), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }))
  .filter((counts) => counts.some((count) => count > 0));

/**
 * A passage of one to five vocabulary terms in random fields, with few
 * distinct lengths (so equal scores, ties, are common).
 */
export const chunkArbitrary: fc.Arbitrary<ChunkInput> = fc
  .record({
    terms: fc.dictionary(fc.constantFrom(...VOCABULARY), fieldCountsArbitrary, { minKeys: 1, maxKeys: 5 }),
    extra: fc.tuple(fc.constantFrom(0, 2), fc.constantFrom(0, 5), fc.constantFrom(0, 1), fc.constantFrom(0, 4, 30)),
  })
  .map(({ terms, extra }) => {
    const lengths = [0, 1, 2, 3].map((field) => Object.values(terms).reduce((sum, counts) => sum + counts[field]!, 0) + extra[field]!);
    return {
      headingPath: ['Page', `Section ${Object.keys(terms).join(' ')}`],
      text: `Passage ${Object.keys(terms).join(' ')}`,
      index: { terms: new Map(Object.entries(terms)), lengths: lengths as unknown as FieldCounts },
    };
  });

/**
 * The page index of a fixture document: its passages' frequencies summed
 * into the page's heading and text fields (title, description and section
 * heading frequencies count as headings), its lengths likewise, plus a
 * title and a path word of its own.
 */
export function pageOf(docId: string, chunks: readonly ChunkInput[]): IndexedPage {
  const terms = new Map<string, number[]>();
  const lengths = [1, 0, 0, 0, 0, 1];
  for (const chunk of chunks) {
    for (const [term, [title, description, heading, body]] of chunk.index.terms) {
      const counts = terms.get(term) ?? [0, 0, 0, 0, 0, 0];
      counts[3]! += title + description + heading;
      counts[4]! += body;
      terms.set(term, counts);
    }
    lengths[3]! += chunk.index.lengths[0] + chunk.index.lengths[1] + chunk.index.lengths[2];
    lengths[4]! += chunk.index.lengths[3];
  }
  terms.set(`doc${docId}`, [1, 0, 0, 0, 0, 1]);
  return { terms: terms as unknown as IndexedPage['terms'], lengths: lengths as unknown as IndexedPage['lengths'] };
}

/** One step of a history: a write, or a search (`userName` one of {@link READERS} or `nobody`). */
export type Operation =
  | { kind: 'put'; docId: string; visibility: Visibility; readers: string[]; chunks: ChunkInput[]; version: number }
  | { kind: 'remove'; docId: string }
  | { kind: 'access'; docId: string; visibility: Visibility; readers: string[] }
  | { kind: 'search'; visibilities: Visibility[]; userName: string; terms: string[]; topK: number };

const visibilityArbitrary = fc.constantFrom(...VISIBILITIES);
const readersArbitrary = fc.subarray(READERS);

/** Writes and searches, searches the most frequent. */
export const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      docId: fc.constantFrom(...DOC_IDS),
      visibility: visibilityArbitrary,
      readers: readersArbitrary,
      chunks: fc.array(chunkArbitrary, { maxLength: 8 }),
      version: fc.nat(3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), docId: fc.constantFrom(...DOC_IDS) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('access' as const),
      docId: fc.constantFrom(...DOC_IDS),
      visibility: visibilityArbitrary,
      readers: readersArbitrary,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('search' as const),
      visibilities: fc.subarray<Visibility>([...VISIBILITIES]),
      userName: fc.constantFrom(...READERS, 'nobody'),
      terms: fc.array(fc.constantFrom(...VOCABULARY, ...UNKNOWN_TERMS), { maxLength: 6 }),
      // Often much smaller than the candidates, where the scorer selects instead of sorting.
      topK: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 12 })),
    }),
  },
);

/**
 * Plays a history on `store` in knowledge base `kbId` (which must exist),
 * calling `compare` at each search with its query.
 *
 * @param users user ids by reader name ({@link READERS})
 * @param compare runs the query on the searches under test and asserts they agree
 */
export async function playOperations(
  store: Store,
  kbId: string,
  operations: readonly Operation[],
  users: ReadonlyMap<string, string>,
  compare: (query: RetrievalQuery) => Promise<void> | void,
): Promise<void> {
  const readerIds = (names: readonly string[]) => names.map((name) => users.get(name)!);
  for (const operation of operations) {
    if (operation.kind === 'put') {
      await store.putDocument(documentInput(kbId, operation, readerIds(operation.readers)));
    } else if (operation.kind === 'remove') {
      await store.removeDocument(kbId, operation.docId);
    } else if (operation.kind === 'access') {
      await store
        .setDocumentAccess(kbId, operation.docId, { visibility: operation.visibility, readers: readerIds(operation.readers), quotable: true })
        .catch((error: unknown) => {
          if (!(error instanceof NotFoundError)) throw error; // a document not put yet, or removed
        });
    } else {
      await compare({
        reach: { kbId, userId: users.get(operation.userName) ?? 'usr_nobody', visibilities: operation.visibilities },
        terms: operation.terms,
        topK: operation.topK,
      });
    }
  }
}

function documentInput(kbId: string, operation: Extract<Operation, { kind: 'put' }>, readers: string[]): DocumentInput {
  return {
    kbId,
    docId: operation.docId,
    title: `Document ${operation.docId}`,
    visibility: operation.visibility,
    readers,
    quotable: true,
    contentHash: `${operation.docId}-${operation.version}-${operation.chunks.length}`,
    analysisVersion: INDEX_ANALYSIS_VERSION,
    chunks: operation.chunks,
    page: pageOf(operation.docId, operation.chunks),
  };
}

/** A public document of `kbId` with one passage about `term` (body term frequency 2, body length 5, heading length 1). */
export function aboutDocument(kbId: string, docId: string, term: string): DocumentInput {
  return {
    kbId,
    docId,
    title: docId,
    visibility: 'public',
    readers: [],
    quotable: true,
    contentHash: `${docId}-${term}`,
    analysisVersion: INDEX_ANALYSIS_VERSION,
    chunks: [{ headingPath: [docId], text: term, index: { terms: new Map([[term, [0, 0, 0, 2]]]), lengths: [0, 0, 1, 5] } }],
    page: { terms: new Map([[term, [0, 0, 0, 0, 2, 0]]]), lengths: [1, 0, 0, 0, 5, 1] },
  };
}

/** The changes {@link indexVersionMoves} makes, in order. */
export type IndexChange = 'created' | 'putUnchanged' | 'updated' | 'accessChanged' | 'otherKnowledgeBaseChanged' | 'removed';

/**
 * Creates knowledge bases `kb` and `other` in `store`, then changes them one
 * step at a time ({@link IndexChange}: creates a document of `kb`, puts it
 * again unchanged, updates it, changes its access, creates a document of
 * `other`, removes the first) and reads `kb`'s index version after each.
 *
 * @param versionOf reads `index_stats.version` of `kb` from the database
 * @returns how each change moved the version
 */
export async function indexVersionMoves(
  store: Store,
  versionOf: () => number | Promise<number>,
): Promise<Record<IndexChange, 'grew' | 'same' | 'shrank'>> {
  await store.createKnowledgeBase({ id: 'kb', name: 'kb' });
  await store.createKnowledgeBase({ id: 'other', name: 'other' });
  let version = await versionOf();
  const move = async (change: () => Promise<unknown>): Promise<'grew' | 'same' | 'shrank'> => {
    await change();
    const previous = version;
    version = await versionOf();
    return version > previous ? 'grew' : version === previous ? 'same' : 'shrank';
  };
  return {
    created: await move(() => store.putDocument(aboutDocument('kb', 'a', 'alpha'))),
    putUnchanged: await move(() => store.putDocument(aboutDocument('kb', 'a', 'alpha'))),
    updated: await move(() => store.putDocument(aboutDocument('kb', 'a', 'beta'))),
    accessChanged: await move(() => store.setDocumentAccess('kb', 'a', { visibility: 'workspace', readers: [], quotable: true })),
    otherKnowledgeBaseChanged: await move(() => store.putDocument(aboutDocument('other', 'a', 'alpha'))),
    removed: await move(() => store.removeDocument('kb', 'a')),
  };
}
