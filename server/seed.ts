import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { generatePassword, hashPassword } from './auth/password-hash.ts';
import { ingestPaths, type IngestReport } from './ingest/pipeline/ingest-files.ts';
import { updateSiteSettings } from './ingest/site-settings.ts';
import { type KnowledgeBase, type Store, type User } from './store/store.ts';
import { ConflictError } from './errors.ts';

/**
 * First-run setup of `npm start` (issue: "creates the embedded store, a
 * workspace with an owner, and the knowledge base node-docs"). Idempotent:
 * later runs find everything in place, and re-ingesting the bundled corpus
 * costs one hash per unchanged page. Safe when several replicas start at once
 * on one PostgreSQL: a record another replica created first is used as found.
 */

/** Id of the demo knowledge base. */
export const DEMO_KB_ID = 'node-docs';
/** The bundled copy of the Node.js v18 API docs (MIT, see LICENSE-NOTICE.txt beside it). */
export const DEMO_CORPUS_PATH = fileURLToPath(new URL('../demo/node-docs/api', import.meta.url));

/**
 * Where the bundled pages are published: nodejs.org's v18 API docs, a page
 * per file (`fs.md` -> `fs.html`) with the Node.js generator's heading ids
 * (`fs.html#fsstatpath-options-callback`), so the demo's citations can link there.
 */
export const DEMO_SITE: Required<Pick<KnowledgeBase, 'baseUrl' | 'urlStyle' | 'anchorStyle'>> = {
  baseUrl: 'https://nodejs.org/docs/latest-v18.x/api/',
  urlStyle: 'html',
  anchorStyle: 'node',
};

/** The workspace owner, and whether this call created them. */
export interface OwnerSeed {
  owner: User;
  ownerCreated: boolean;
}

export interface SeedResult extends OwnerSeed {
  report: IngestReport;
}

/**
 * Ensures the workspace owner exists: the user `ownerEmail`
 * (`KB_OWNER_EMAIL`), created when missing. A start with the demo seed off
 * (`KB_DEMO_SEED=off`) does this alone; {@link seedDemo} does it first.
 */
export async function ensureOwner(store: Store, ownerEmail: string): Promise<OwnerSeed> {
  const owner = await store.findUserByEmail(ownerEmail);
  if (owner) return { owner, ownerCreated: false };
  const { record, created } = await createdOrFound(
    () => store.createUser({ email: ownerEmail, name: 'Workspace owner' }),
    () => store.findUserByEmail(ownerEmail),
  );
  return { owner: record, ownerCreated: created };
}

/**
 * Ensures the owner and the demo knowledge base exist, with nodejs.org as
 * its site ({@link DEMO_SITE}; also given to a demo knowledge base created
 * before sites existed, but never over a site URL someone set), and the
 * bundled corpus is ingested (every page `public`).
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
  const { owner, ownerCreated } = await ensureOwner(store, options.ownerEmail);
  const existing = await store.getKnowledgeBase(DEMO_KB_ID);
  if (!existing) {
    await createdOrFound(
      () => store.createKnowledgeBase({ id: DEMO_KB_ID, name: 'Node.js API documentation', ...DEMO_SITE }),
      () => store.getKnowledgeBase(DEMO_KB_ID),
    );
  } else if (existing.baseUrl === undefined) {
    await updateSiteSettings(store, DEMO_KB_ID, DEMO_SITE);
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

/** Creates a record, or finds the one another process created first (a ConflictError). */
async function createdOrFound<T>(create: () => Promise<T>, find: () => Promise<T | undefined>): Promise<{ record: T; created: boolean }> {
  try {
    return { record: await create(), created: true };
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const found = await find();
    if (found === undefined) throw error;
    return { record: found, created: false };
  }
}

/** How long a replica waits for another one that claimed the owner's first password to set it. */
const PASSWORD_CLAIM_WAIT_MILLISECONDS = 10_000;

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
  // Replicas starting at once: only the one whose claim is stored sets (and
  // prints) a password; the others wait for it, and take over only if it
  // never comes (the claimant stopped before setting it).
  const claim = randomBytes(16).toString('hex');
  if ((await store.getOrCreateSetting(`owner_password_claim:${ownerId}`, () => claim)) !== claim) {
    const deadline = Date.now() + PASSWORD_CLAIM_WAIT_MILLISECONDS;
    while (Date.now() < deadline) {
      if ((await store.getPasswordHash(ownerId)) !== undefined) return { kind: 'unchanged' };
      await sleep(200);
    }
  }
  if (configuredPassword !== undefined) {
    await store.setPasswordHash(ownerId, await hashPassword(configuredPassword));
    return { kind: 'configured' };
  }
  const password = generatePassword();
  await store.setPasswordHash(ownerId, await hashPassword(password));
  return { kind: 'generated', password };
}
