import type { BuiltWorkspace, IssuedToken } from './random-workspace-builder.ts';
import { documentKey, type DocumentModel, type WorkspaceModel } from './random-workspace.ts';

/**
 * The oracle of random workspaces (random-workspace.ts has the model): which
 * tokens work and which documents they reach, written again from
 * docs/design-decisions.md on the model, never by the code under test; and
 * the marker words that say where shown text came from.
 */

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
