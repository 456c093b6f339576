import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { issueToken } from '../auth/widget-tokens.ts';
import { ingestPaths } from '../ingest/pipeline/ingest-files.ts';
import { ROLES } from '../../protocol/workspace-terms.ts';
import type { Role, Store, TokenRecord, Visibility } from '../store/store.ts';
import { VISIBILITIES } from '../store/store.ts';

/**
 * Random workspaces for property tests of the access rules (docs/design-decisions.md
 * "Access rules"), in three parts:
 *
 * - a **model**: plain data that fast-check generates and shrinks (users,
 *   knowledge bases, roles, documents with their visibility and readers,
 *   curated pairs, tokens, questions, permission changes);
 * - a **builder** that makes a model real in a store, through the normal
 *   ingestion path (`ingestPaths`) and the normal token issuance (`issueToken`);
 * - the **oracle**: the reach rule written again from docs/design-decisions.md, on the model,
 *   independently of `access/access-rules.ts` and of the store's SQL filter.
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
const MARKER_STEMS = ['zorblat', 'quindle', 'snarvik', 'plimbo', 'vextor', 'grumbit', 'mizzock', 'flanstep'] as const;

/** Bounds of a random workspace (the issue's "small worlds"). */
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

// ---------------------------------------------------------------------------
// Builder

/** A model made real: the ids and words it was given in the store. */
export interface BuiltWorkspace {
  /** Distinguishes this workspace's users, KBs and markers from others in the same store. */
  namespace: string;
  userIds: string[];
  kbIds: string[];
  /** The marker word of a document, e.g. `zorblatr3k0d2` (lower case, letters and digits). */
  marker(kb: number, doc: number): string;
  /** The document id: `<marker>.md`. */
  docId(kb: number, doc: number): string;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The markdown source of a document: the marker in the title, both headings and every sentence. */
export function documentSource(marker: string, document: DocumentModel): string {
  const [first, second, third] = document.fillers;
  const title = capitalize(marker);
  return `# ${title} handbook

## ${title} ${first}

The ${marker} ${first} keeps every ${second} steady during the weekly release. Operators review the ${marker} ${second} before each deploy.

## ${title} ${third}

Each ${marker} ${third} has a default value and a maximum value for the service.
`;
}

/** The heading of a document's first section (what a curated source with a heading names). */
export function firstHeading(marker: string, document: DocumentModel): string {
  return `${capitalize(marker)} ${document.fillers[0]}`;
}

/** Question and answer text of a curated pair. */
export function curatedText(built: BuiltWorkspace, pair: FaqModel): { question: string; answer: string } {
  const markers = pair.sources.map((source) => built.marker(source.kb, source.doc));
  return {
    question: `What is the ${markers.join(' and ')} ${pair.filler}?`,
    answer: markers.map((marker, position) => `The ${marker} ${pair.filler} is set per team [${position + 1}].`).join(' '),
  };
}

/**
 * Creates the model's users, knowledge bases, roles, documents (ingested from
 * markdown files written under `folder`, one ingest per document so each
 * keeps its own access options) and curated pairs.
 *
 * @param namespace lower-case letters and digits, unique per store
 * @throws Error when a document is not created (the world would not be the model)
 */
export async function buildWorkspace(
  store: Store,
  model: WorkspaceModel,
  options: { folder: string; namespace: string },
): Promise<BuiltWorkspace> {
  const { namespace } = options;
  const built: BuiltWorkspace = {
    namespace,
    userIds: [],
    kbIds: [],
    marker: (kb, doc) => `${MARKER_STEMS[doc] ?? 'blorp'}${namespace}k${kb}d${doc}`,
    docId: (kb, doc) => `${built.marker(kb, doc)}.md`,
  };
  for (let index = 0; index < model.userCount; index += 1) {
    const user = await store.createUser({ email: `${namespace}-user${index}@example.test`, name: `User ${index}` });
    built.userIds.push(user.id);
  }
  for (const [kbIndex, knowledgeBase] of model.knowledgeBases.entries()) {
    const kbId = `${namespace}-kb${kbIndex}`;
    await store.createKnowledgeBase({ id: kbId, name: `Knowledge base ${kbIndex}` });
    built.kbIds.push(kbId);
    for (const [userIndex, role] of knowledgeBase.roles.entries()) {
      if (role) await store.setRole(kbId, built.userIds[userIndex]!, role);
    }
  }
  for (const [kbIndex, knowledgeBase] of model.knowledgeBases.entries()) {
    const kbId = built.kbIds[kbIndex]!;
    const folder = join(options.folder, kbId);
    await mkdir(folder, { recursive: true });
    for (const [docIndex, document] of knowledgeBase.documents.entries()) {
      const path = join(folder, built.docId(kbIndex, docIndex));
      await writeFile(path, documentSource(built.marker(kbIndex, docIndex), document));
      const report = await ingestPaths(store, {
        kbId,
        paths: [path],
        visibility: document.visibility,
        readers: document.readers.map((reader) => built.userIds[reader]!),
        quotable: document.quotable,
      });
      if (report.created.length !== 1) throw new Error(`Ingesting ${path} did not create it: ${JSON.stringify(report)}`);
    }
    await store.replaceFaq(
      kbId,
      knowledgeBase.faq.map((pair) => ({
        ...curatedText(built, pair),
        sources: pair.sources.map((source) => {
          const document = model.knowledgeBases[source.kb]!.documents[source.doc]!;
          const docId = built.docId(source.kb, source.doc);
          return source.heading ? { docId, heading: firstHeading(built.marker(source.kb, source.doc), document) } : { docId };
        }),
      })),
    );
  }
  return built;
}

/** A token issued in a built workspace, with the model indices it was resolved to. */
export interface IssuedToken {
  secret: string;
  record: TokenRecord;
  kb: number;
  issuer: number;
  scope: Visibility[];
}

/**
 * Issues a token through `issueToken`: the model's knowledge base (modulo
 * their number) and one of its current editors or owners.
 *
 * @throws Error when the knowledge base has no editor or owner (never for {@link workspaceArbitrary}'s models)
 */
export async function issueModelToken(
  store: Store,
  model: WorkspaceModel,
  built: BuiltWorkspace,
  token: TokenModel,
  now: number,
): Promise<IssuedToken> {
  const kb = token.kb % model.knowledgeBases.length;
  const roles = model.knowledgeBases[kb]!.roles;
  const updaters = roles.flatMap((role, user) => (role === 'editor' || role === 'owner' ? [user] : []));
  const issuer = updaters[token.issuer % Math.max(1, updaters.length)];
  if (issuer === undefined) throw new Error(`Knowledge base ${kb} of the model has no editor or owner`);
  const { token: secret, record } = await issueToken(
    store,
    { kbId: built.kbIds[kb]!, issuerId: built.userIds[issuer]!, allowedOrigins: [], scope: token.scope },
    { ttlCapMinutes: 1440, now },
  );
  return { secret, record, kb, issuer, scope: [...token.scope] };
}

/** The text of a question model in a built workspace. */
export function questionText(model: WorkspaceModel, built: BuiltWorkspace, question: QuestionModel): string {
  if (question.kind === 'curated') {
    const kb = question.kb % model.knowledgeBases.length;
    const faq = model.knowledgeBases[kb]!.faq;
    const pair = faq[question.pair % Math.max(1, faq.length)];
    if (pair) return curatedText(built, pair).question;
    return `What about the ${built.marker(kb, 0)}?`;
  }
  const markers = question.targets.map((target) => {
    const kb = target.kb % model.knowledgeBases.length;
    return built.marker(kb, target.doc % model.knowledgeBases[kb]!.documents.length);
  });
  return `What about the ${[...markers, ...question.fillers].join(' ')}?`;
}

/** The documents a question model names: by marker, or as the sources of the curated pair it asks. */
export function questionTargets(model: WorkspaceModel, question: QuestionModel): string[] {
  if (question.kind === 'curated') {
    const faq = model.knowledgeBases[question.kb % model.knowledgeBases.length]!.faq;
    const pair = faq[question.pair % Math.max(1, faq.length)];
    if (!pair) return [documentKey(question.kb % model.knowledgeBases.length, 0)];
    return pair.sources.map((source) => documentKey(source.kb, source.doc));
  }
  return question.targets.map((target) => {
    const kb = target.kb % model.knowledgeBases.length;
    return documentKey(kb, target.doc % model.knowledgeBases[kb]!.documents.length);
  });
}

// ---------------------------------------------------------------------------
// Changes

/**
 * Applies a change to the store and returns the model of the world after it.
 * A change that names nothing applicable (no reader to drop) changes nothing.
 */
export async function applyChange(
  store: Store,
  model: WorkspaceModel,
  built: BuiltWorkspace,
  tokens: readonly IssuedToken[],
  change: ChangeModel,
): Promise<WorkspaceModel> {
  const next: WorkspaceModel = structuredClone(model);
  const kbAt = (kb: number): number => kb % next.knowledgeBases.length;
  const documentAt = (kb: number, doc: number): { kb: number; doc: number; document: DocumentModel } => {
    const documents = next.knowledgeBases[kb]!.documents;
    const index = doc % documents.length;
    return { kb, doc: index, document: documents[index]! };
  };
  const setRole = async (kb: number, user: number, role: Role | undefined): Promise<void> => {
    if (next.removedUsers.includes(user)) return;
    next.knowledgeBases[kb]!.roles[user] = role;
    if (role) await store.setRole(built.kbIds[kb]!, built.userIds[user]!, role);
    else await store.removeRole(built.kbIds[kb]!, built.userIds[user]!);
  };
  switch (change.kind) {
    case 'demoteIssuer': {
      const token = tokens[change.token % Math.max(1, tokens.length)];
      if (token) await setRole(token.kb, token.issuer, change.to === 'reader' ? 'reader' : undefined);
      break;
    }
    case 'setRole':
      await setRole(kbAt(change.kb), change.user % next.userCount, change.role);
      break;
    case 'dropReader':
    case 'setAccess': {
      const { kb, doc, document } = documentAt(kbAt(change.kb), change.doc);
      if (document.removed) break;
      if (change.kind === 'dropReader') {
        const present = document.readers.filter((reader) => !next.removedUsers.includes(reader));
        const dropped = present[change.reader % Math.max(1, present.length)];
        if (dropped === undefined) break;
        document.readers = document.readers.filter((reader) => reader !== dropped);
      } else {
        document.visibility = change.visibility;
        document.readers = change.readers.filter((reader) => reader < next.userCount);
      }
      await store.setDocumentAccess(built.kbIds[kb]!, built.docId(kb, doc), {
        visibility: document.visibility,
        readers: document.readers.filter((reader) => !next.removedUsers.includes(reader)).map((reader) => built.userIds[reader]!),
        quotable: document.quotable,
      });
      break;
    }
    case 'removeDocument': {
      const { kb, doc, document } = documentAt(kbAt(change.kb), change.doc);
      if (document.removed) break;
      document.removed = true;
      await store.removeDocument(built.kbIds[kb]!, built.docId(kb, doc));
      break;
    }
    case 'removeUser': {
      const user = change.user % next.userCount;
      if (next.removedUsers.includes(user)) break;
      next.removedUsers.push(user);
      for (const knowledgeBase of next.knowledgeBases) knowledgeBase.roles[user] = undefined;
      await store.removeUser(built.userIds[user]!);
      break;
    }
  }
  return next;
}

// ---------------------------------------------------------------------------
// Oracle

/** Key of a document in the model: `<kb>/<doc>`. */
export function documentKey(kb: number, doc: number): string {
  return `${kb}/${doc}`;
}

/**
 * Whether a token works in the world the model describes (docs/design-decisions.md
 * "Tokens and origins": valid only while its issuer still exists and still has
 * update permission on the KB; expiry and revocation are not modelled).
 */
export function tokenWorks(model: WorkspaceModel, token: Pick<IssuedToken, 'kb' | 'issuer'>): boolean {
  if (model.removedUsers.includes(token.issuer)) return false;
  const role = model.knowledgeBases[token.kb]!.roles[token.issuer];
  return role === 'editor' || role === 'owner';
}

/**
 * The reach of a token, written from docs/design-decisions.md "Access rules" on the model:
 * nothing when the token does not work; otherwise the documents of the
 * token's knowledge base, not removed, whose visibility is in the token's
 * scope and which the issuer can read now - `public`: anyone; `workspace`:
 * members of the KB; `restricted`: listed readers only.
 *
 * @returns keys ({@link documentKey}) of the documents inside the reach
 */
export function expectedReach(model: WorkspaceModel, token: Pick<IssuedToken, 'kb' | 'issuer' | 'scope'>): Set<string> {
  const reach = new Set<string>();
  if (!tokenWorks(model, token)) return reach;
  const knowledgeBase = model.knowledgeBases[token.kb]!;
  const isMember = knowledgeBase.roles[token.issuer] !== undefined;
  for (const [doc, document] of knowledgeBase.documents.entries()) {
    if (document.removed || !token.scope.includes(document.visibility)) continue;
    const readable =
      document.visibility === 'public' ||
      (document.visibility === 'workspace' && isMember) ||
      (document.visibility === 'restricted' && document.readers.includes(token.issuer));
    if (readable) reach.add(documentKey(token.kb, doc));
  }
  return reach;
}

/** Every document of the model (removed ones too) with its key, marker and id. */
export function allDocuments(
  model: WorkspaceModel,
  built: BuiltWorkspace,
): { key: string; kb: number; doc: number; marker: string; docId: string; document: DocumentModel }[] {
  return model.knowledgeBases.flatMap((knowledgeBase, kb) =>
    knowledgeBase.documents.map((document, doc) => ({
      key: documentKey(kb, doc),
      kb,
      doc,
      marker: built.marker(kb, doc),
      docId: built.docId(kb, doc),
      document,
    })),
  );
}

/** The markers found in `text` (whole words, any case) among `markers`. */
export function markersIn(text: string, markers: Iterable<string>): string[] {
  const lower = text.toLowerCase();
  return [...markers].filter((marker) => new RegExp(`(?<![\\p{L}\\p{N}])${marker}(?![\\p{L}\\p{N}])`, 'u').test(lower));
}
