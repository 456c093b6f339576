import fc from 'fast-check';
import { ROLES } from '../../protocol/workspace-terms.ts';
import type { Role, Visibility } from '../store/store.ts';
import { VISIBILITIES } from '../store/store.ts';

/**
 * Random workspaces for property tests of the access rules (docs/design-decisions.md
 * "Access rules"), in three parts:
 *
 * - a **model**: plain data that fast-check generates and shrinks (users,
 *   knowledge bases, roles, documents with their visibility and readers,
 *   curated pairs, tokens, questions, permission changes), this module;
 * - a **builder** that makes a model real in a store, through the normal
 *   ingestion path (`ingestPaths`) and the normal token issuance
 *   (`issueToken`), and applies its changes (random-workspace-builder.ts);
 * - the **oracle**: the reach rule written again from docs/design-decisions.md, on the model,
 *   independently of `access/access-rules.ts` and of the store's SQL filter
 *   (random-workspace-oracle.ts).
 *
 * Every document is written around one marker word of its own (a nonsense
 * word such as `zorblatr3k0d2`, see {@link BuiltWorkspace.marker}) in its
 * title, headings and sentences, plus filler words shared by all documents.
 * A marker is unique across the whole store, and so is a document id
 * (`<marker>.md`): finding a marker in anything an answer shows (text,
 * quotes, suggestions, document ids) says which document it came from.
 */

/** Words every document may use, so a question's filler words retrieve many documents. */
export const FILLER_WORDS = [
  'setting',
  'cache',
  'quota',
  'schedule',
  'backup',
  'region',
  'policy',
  'budget',
  'window',
  'replica',
] as const;

/** First part of the marker word of the document at each position of a knowledge base. */
export const MARKER_STEMS = ['zorblat', 'quindle', 'snarvik', 'plimbo', 'vextor', 'grumbit', 'mizzock', 'flanstep'] as const;

/** Bounds of a random workspace (the "small worlds"). */
export const WORKSPACE_BOUNDS = {
  users: { min: 2, max: 4 },
  knowledgeBases: { min: 1, max: 2 },
  documents: { min: 3, max: MARKER_STEMS.length },
  faqPairs: { min: 0, max: 3 },
} as const;

// ---------------------------------------------------------------------------
// Model

/** A document: who may read it and the filler words of its two sections. */
export interface DocumentModel {
  visibility: Visibility;
  /** Indices of the users listed as readers (used when `restricted`; kept otherwise). */
  readers: number[];
  quotable: boolean;
  /** Filler words: heading of section one, its second subject, heading of section two. */
  fillers: [string, string, string];
  /** Set once a change removed the document. */
  removed: boolean;
}

/** One source of a curated pair: a document of any knowledge base (another KB's never resolves). */
export interface FaqSourceModel {
  kb: number;
  doc: number;
  /** Whether the source names the heading of the document's first section. */
  heading: boolean;
}

/** A curated pair; its question and answer mention the markers of its sources. */
export interface FaqModel {
  sources: FaqSourceModel[];
  filler: string;
}

export interface KnowledgeBaseModel {
  /** Role of each user on this knowledge base; undefined = not a member. */
  roles: (Role | undefined)[];
  documents: DocumentModel[];
  faq: FaqModel[];
}

/** A whole workspace, and after changes its current state. */
export interface WorkspaceModel {
  userCount: number;
  /** Users removed from the workspace by a change. */
  removedUsers: number[];
  knowledgeBases: KnowledgeBaseModel[];
}

/** A token to issue; `issuer` picks one of the KB's editors and owners (modulo their number). */
export interface TokenModel {
  kb: number;
  issuer: number;
  scope: Visibility[];
}

/**
 * A question: marker words of some documents (of any knowledge base, inside
 * the reach or not, removed or not) with filler words, or the question of a
 * curated pair asked word for word. Indices are taken modulo the sizes.
 */
export type QuestionModel =
  | { kind: 'markers'; targets: { kb: number; doc: number }[]; fillers: string[] }
  | { kind: 'curated'; kb: number; pair: number };

/**
 * A permission or content change. Indices are taken modulo the sizes;
 * `token` picks one of the issued tokens (its issuer is the one changed).
 */
export type ChangeModel =
  | { kind: 'demoteIssuer'; token: number; to: 'reader' | 'none' }
  | { kind: 'setRole'; kb: number; user: number; role: Role | undefined }
  | { kind: 'dropReader'; kb: number; doc: number; reader: number }
  | { kind: 'setAccess'; kb: number; doc: number; visibility: Visibility; readers: number[] }
  | { kind: 'removeDocument'; kb: number; doc: number }
  | { kind: 'removeUser'; user: number };

/** Key of a document in the model: `<kb>/<doc>`. */
export function documentKey(kb: number, doc: number): string {
  return `${kb}/${doc}`;
}

// ---------------------------------------------------------------------------
// Arbitraries

const roleOrNone = fc.constantFrom<Role | undefined>(undefined, ...ROLES);
const visibility = fc.constantFrom<Visibility>(...VISIBILITIES);
const filler = fc.constantFrom<string>(...FILLER_WORDS);

function knowledgeBaseArbitrary(userCount: number): fc.Arbitrary<KnowledgeBaseModel> {
  const userIndices = Array.from({ length: userCount }, (_, index) => index);
  const document: fc.Arbitrary<DocumentModel> = fc.record({
    visibility,
    readers: fc.subarray(userIndices),
    quotable: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    fillers: fc.tuple(filler, filler, filler),
    removed: fc.constant(false),
  });
  const pair: fc.Arbitrary<FaqModel> = fc.record({
    sources: fc.array(
      fc.record({
        // Mostly this knowledge base (-1, resolved below); sometimes any, possibly another one.
        kb: fc.oneof({ weight: 4, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat({ max: 1 }) }),
        doc: fc.nat({ max: WORKSPACE_BOUNDS.documents.max - 1 }),
        heading: fc.boolean(),
      }),
      { minLength: 1, maxLength: 2 },
    ),
    filler,
  });
  return fc
    .record({
      roles: fc.array(roleOrNone, { minLength: userCount, maxLength: userCount }),
      // One user is guaranteed update permission, so every knowledge base can issue tokens.
      updater: fc.nat({ max: userCount - 1 }),
      updaterRole: fc.constantFrom<Role>('editor', 'owner'),
      documents: fc.array(document, {
        minLength: WORKSPACE_BOUNDS.documents.min,
        maxLength: WORKSPACE_BOUNDS.documents.max,
      }),
      faq: fc.array(pair, { minLength: WORKSPACE_BOUNDS.faqPairs.min, maxLength: WORKSPACE_BOUNDS.faqPairs.max }),
    })
    .map(({ roles, updater, updaterRole, documents, faq }) => {
      const withUpdater = [...roles];
      withUpdater[updater] = updaterRole;
      return { roles: withUpdater, documents, faq };
    });
}

/** Random workspaces within {@link WORKSPACE_BOUNDS}; every knowledge base has an editor or owner. */
export function workspaceArbitrary(): fc.Arbitrary<WorkspaceModel> {
  return fc
    .integer(WORKSPACE_BOUNDS.users)
    .chain((userCount) =>
      fc.record({
        userCount: fc.constant(userCount),
        removedUsers: fc.constant<number[]>([]),
        knowledgeBases: fc.array(knowledgeBaseArbitrary(userCount), {
          minLength: WORKSPACE_BOUNDS.knowledgeBases.min,
          maxLength: WORKSPACE_BOUNDS.knowledgeBases.max,
        }),
      }),
    )
    .map(resolveFaqSources);
}

/** Replaces the curated sources' placeholder and out-of-range indices with real documents. */
function resolveFaqSources(workspace: WorkspaceModel): WorkspaceModel {
  const kbCount = workspace.knowledgeBases.length;
  return {
    ...workspace,
    knowledgeBases: workspace.knowledgeBases.map((knowledgeBase, kbIndex) => ({
      ...knowledgeBase,
      faq: knowledgeBase.faq.map((pair) => ({
        ...pair,
        sources: pair.sources.map((source) => {
          const kb = source.kb < 0 ? kbIndex : source.kb % kbCount;
          return { ...source, kb, doc: source.doc % workspace.knowledgeBases[kb]!.documents.length };
        }),
      })),
    })),
  };
}

/** Random tokens: any knowledge base, any of its editors or owners, a non-empty scope. */
export function tokenArbitrary(): fc.Arbitrary<TokenModel> {
  return fc.record({
    kb: fc.nat({ max: WORKSPACE_BOUNDS.knowledgeBases.max - 1 }),
    issuer: fc.nat({ max: WORKSPACE_BOUNDS.users.max - 1 }),
    scope: fc.subarray([...VISIBILITIES], { minLength: 1 }),
  });
}

/** Random questions: 1-4 marker words and up to 3 filler words, or a curated question (1 in 4). */
export function questionArbitrary(): fc.Arbitrary<QuestionModel> {
  const target = fc.record({
    kb: fc.nat({ max: WORKSPACE_BOUNDS.knowledgeBases.max - 1 }),
    doc: fc.nat({ max: WORKSPACE_BOUNDS.documents.max - 1 }),
  });
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('markers' as const),
        targets: fc.array(target, { minLength: 1, maxLength: 4 }),
        fillers: fc.array(filler, { maxLength: 3 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('curated' as const),
        kb: fc.nat({ max: WORKSPACE_BOUNDS.knowledgeBases.max - 1 }),
        pair: fc.nat({ max: WORKSPACE_BOUNDS.faqPairs.max - 1 }),
      }),
    },
  );
}

/** Random changes; about a quarter demote a token's issuer, some remove a user from the workspace. */
export function changeArbitrary(): fc.Arbitrary<ChangeModel> {
  const kb = fc.nat({ max: WORKSPACE_BOUNDS.knowledgeBases.max - 1 });
  const doc = fc.nat({ max: WORKSPACE_BOUNDS.documents.max - 1 });
  const user = fc.nat({ max: WORKSPACE_BOUNDS.users.max - 1 });
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('demoteIssuer' as const),
        token: fc.nat({ max: 3 }),
        to: fc.constantFrom('reader' as const, 'none' as const),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('setRole' as const), kb, user, role: roleOrNone }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('dropReader' as const), kb, doc, reader: fc.nat({ max: 3 }) }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('setAccess' as const),
        kb,
        doc,
        visibility,
        readers: fc.subarray([0, 1, 2, 3]),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('removeDocument' as const), kb, doc }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeUser' as const), user }) },
  );
}
