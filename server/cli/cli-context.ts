import { InvalidArgumentError } from 'commander';
import type { AnswerEmbedding } from '../retrieval/answer-retriever.ts';
import { reindexStaleDocuments } from '../retrieval/reindex.ts';
import { ReadersNotMembersError, requireReadersAreMembers } from '../access/access-rules.ts';
import { createProgressBar } from '../progress-bar.ts';
import type { Store, User } from '../store/store.ts';

/** What the CLI needs, passed in so tests can run commands in-process. */
export interface CliDeps {
  /** Opens the store (lazily, once per command). */
  openStore: () => Store;
  /** Platform cap on token lifetimes, minutes. */
  tokenTtlCapMinutes: number;
  /** Email used when `--as` is not given. */
  ownerEmail: string;
  abstentionThreshold: number;
  now: () => number;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads a secret without echo (default: from stdin, see read-secret.ts). */
  readSecret?: (prompt: string) => Promise<string>;
  /** Private addresses a website import may reach (`KB_IMPORT_ALLOW_PRIVATE_ADDRESSES`; default none). */
  importAllowPrivateAddresses?: boolean | string[];
  /**
   * The embedding model `kb ask` answers with, as a server would - found
   * verified in the model cache, never fetched by the command - or why there
   * is none (the question is then answered by BM25F alone). Absent: none.
   */
  answerEmbedding?: () => Promise<AnswerEmbeddingLookup>;
}

/** The embedding model found for `kb ask`, or why there is none. */
export type AnswerEmbeddingLookup = { embedding: AnswerEmbedding } | { reason: string };

/** A commander argument parser: a whole number of at least 0. */
export const nonNegativeInteger = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`"${value}" is not a whole number of at least 0`);
  return parsed;
};

/** A failure the user can fix: printed as `error: message`, exit status 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/** A commander argument parser: a whole number of at least 1. */
export const positiveInteger = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`"${value}" is not a whole number of at least 1`);
  return parsed;
};

/**
 * The command line's shared ground: its dependencies, the store wrapper every
 * action runs in, the output, the errors a user can fix and the look-ups
 * that raise them. Each command group (`*-command(s).ts`) is built on it.
 */

/** What every command group of the CLI is built with. */
export interface CliContext {
  deps: CliDeps;
  /** Wraps an action: opens the store (re-indexing a stale index first), runs the action, closes the store. */
  withStore: <A extends unknown[]>(action: (store: Store, ...args: A) => Promise<void>) => (...args: A) => Promise<void>;
  /** Writes one line to standard output. */
  print: (line?: string) => void;
}

/** The context of the command groups of a CLI built on `deps`. */
export function createCliContext(deps: CliDeps): CliContext {
  const withStore =
    <A extends unknown[]>(action: (store: Store, ...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      const store = deps.openStore();
      try {
        // An index made by an older analysis is re-made first, so no command reads or extends a stale one.
        const progress = createProgressBar('Re-indexing');
        await reindexStaleDocuments(store, (step) => progress.update(step)).finally(() => progress.stop());
        await action(store, ...args);
      } finally {
        await store.close();
      }
    };
  const print = (line = ''): void => deps.stdout(`${line}\n`);
  return { deps, withStore, print };
}

/** @throws CliError when the knowledge base does not exist */
export async function requireKnowledgeBase(store: Store, id: string): Promise<void> {
  if (!(await store.getKnowledgeBase(id))) throw new CliError(`No knowledge base "${id}"`);
}

/** @throws CliError when no user has the email */
export async function requireUser(store: Store, email: string): Promise<User> {
  const found = await store.findUserByEmail(email);
  if (!found) throw new CliError(`No user with email "${email}"`);
  return found;
}

/**
 * The users given as a document's readers, by email: each must exist and be
 * a member of the knowledge base, as the console requires
 * (access/access-rules.ts `requireReadersAreMembers`).
 */
export async function requireReaders(store: Store, kbId: string, emails: readonly string[]): Promise<User[]> {
  const readers = await Promise.all(emails.map((email) => requireUser(store, email)));
  const emailOf = new Map(readers.map((reader) => [reader.id, reader.email]));
  try {
    await requireReadersAreMembers(store, kbId, readers.map((reader) => reader.id), (userId) => emailOf.get(userId) ?? userId);
  } catch (error) {
    if (error instanceof ReadersNotMembersError) {
      throw new CliError(`Readers must be members of "${kbId}" (kb member set <email> --kb ${kbId} --role reader): not members: ${error.strangers.join(', ')}`);
    }
    throw error;
  }
  return readers;
}
