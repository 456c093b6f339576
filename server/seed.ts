import { fileURLToPath } from 'node:url';
import { generatePassword, hashPassword } from './auth/password-hash.ts';
import { ingestPaths, type IngestReport } from './ingest/ingest-files.ts';
import type { Store, User } from './store/store.ts';

/**
 * First-run setup of `npm start` (issue: "creates the embedded store, a
 * workspace with an owner, and the knowledge base node-docs"). Idempotent:
 * later runs find everything in place, and re-ingesting the bundled corpus
 * costs one hash per unchanged page.
 */

/** Id of the demo knowledge base. */
export const DEMO_KB_ID = 'node-docs';
/** The bundled copy of the Node.js v18 API docs (MIT, see LICENSE-NOTICE.txt beside it). */
export const DEMO_CORPUS_PATH = fileURLToPath(new URL('../demo/node-docs/api', import.meta.url));

export interface SeedResult {
  owner: User;
  ownerCreated: boolean;
  report: IngestReport;
}

/**
 * Ensures the owner and the demo knowledge base exist and the bundled
 * corpus is ingested (every page `public`).
 *
 * @param onProgress called after each page (for a progress bar)
 */
export async function seedDemo(
  store: Store,
  options: {
    ownerEmail: string;
    corpusPath?: string;
    onProgress?: (progress: { done: number; total: number; docId: string }) => void;
  },
): Promise<SeedResult> {
  let owner = await store.findUserByEmail(options.ownerEmail);
  const ownerCreated = !owner;
  owner ??= await store.createUser({ email: options.ownerEmail, name: 'Workspace owner' });
  if (!(await store.getKnowledgeBase(DEMO_KB_ID))) {
    await store.createKnowledgeBase({ id: DEMO_KB_ID, name: 'Node.js API documentation' });
  }
  if (!(await store.getRole(DEMO_KB_ID, owner.id))) await store.setRole(DEMO_KB_ID, owner.id, 'owner');
  const ingestOptions = {
    kbId: DEMO_KB_ID,
    paths: [options.corpusPath ?? DEMO_CORPUS_PATH],
    visibility: 'public' as const,
    readers: [],
    quotable: true,
  };
  const report = await ingestPaths(
    store,
    options.onProgress ? { ...ingestOptions, onProgress: options.onProgress } : ingestOptions,
  );
  return { owner, ownerCreated, report };
}

/** What {@link ensureOwnerPassword} did. */
export type OwnerPasswordOutcome =
  /** The owner had none: a random one was set; show it once, never log it. */
  | { kind: 'generated'; password: string }
  /** The owner had none: the configured one (`KB_OWNER_PASSWORD`) was set. */
  | { kind: 'configured' }
  /** The owner already had a password; nothing changed (a configured one is ignored). */
  | { kind: 'unchanged' };

/**
 * Gives the owner a console password when they have none: on first run, and
 * on the first start of a store created before sign-in existed. There is no
 * default password: it is the configured one, else a random one
 * (`ABCDE-FGHIJ-KLMNO-PQRST`, 100 bits) for the caller to print once.
 *
 * @param configuredPassword `KB_OWNER_PASSWORD`, already checked against the policy
 */
export async function ensureOwnerPassword(
  store: Store,
  ownerId: string,
  configuredPassword: string | undefined,
): Promise<OwnerPasswordOutcome> {
  if ((await store.getPasswordHash(ownerId)) !== undefined) return { kind: 'unchanged' };
  if (configuredPassword !== undefined) {
    await store.setPasswordHash(ownerId, await hashPassword(configuredPassword));
    return { kind: 'configured' };
  }
  const password = generatePassword();
  await store.setPasswordHash(ownerId, await hashPassword(password));
  return { kind: 'generated', password };
}
