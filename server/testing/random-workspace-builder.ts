import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { issueToken } from '../auth/widget-tokens.ts';
import { ingestPaths } from '../ingest/pipeline/ingest-files.ts';
import type { Role, Store, TokenRecord, Visibility } from '../store/store.ts';
import {
  documentKey,
  MARKER_STEMS,
  type ChangeModel,
  type DocumentModel,
  type FaqModel,
  type QuestionModel,
  type TokenModel,
  type WorkspaceModel,
} from './random-workspace.ts';

/**
 * The builder of random workspaces (random-workspace.ts has the model): makes
 * a model real in a store through the normal ingestion path and token
 * issuance, turns question models into text, and applies changes to the
 * store and the model alike.
 */

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
