import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { collectAnswer } from '../engine/answer-events.ts';
import { createLexicalRetriever } from '../retrieval/lexical-retriever.ts';
import { reindexStaleDocuments } from '../retrieval/reindex.ts';
import { createAnswerEngine } from '../engine/answer-engine.ts';
import { memberReach, ReadersNotMembersError, requireReadersAreMembers } from '../access/access-rules.ts';
import { hashPassword, passwordPolicyProblem } from '../auth/password-hash.ts';
import { issueToken } from '../auth/widget-tokens.ts';
import { parseFaqFile } from '../ingest/faq-file.ts';
import { ingestPaths } from '../ingest/pipeline/ingest-files.ts';
import { BaseUrlError, normalizeBaseUrl } from '../ingest/pipeline/page-url.ts';
import { updateSiteSettings } from '../ingest/site-settings.ts';
import { DEFAULT_CRAWL_LIMITS, type CrawlSeed } from '../ingest/web/crawl-site.ts';
import { DEFAULT_FETCH_LIMITS, FetchRefusedError } from '../ingest/web/guarded-fetch.ts';
import { ingestSite } from '../ingest/web/ingest-site.ts';
import { createProgressBar } from '../progress-bar.ts';
import { readSecret } from './read-secret.ts';
import {
  ANCHOR_STYLES,
  ROLES,
  URL_STYLES,
  VISIBILITIES,
  type AnchorStyle,
  type KnowledgeBase,
  type Role,
  type Store,
  type UrlStyle,
  type User,
  type Visibility,
} from '../store/store.ts';

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
}

/** Options of `kb ingest`. */
interface IngestCommandOptions {
  kb: string;
  url?: string[];
  sitemap?: string;
  maxPages: number;
  maxDepth: number;
  allowPrivateAddresses?: boolean;
  visibility: Visibility;
  reader: string[];
  notQuotable?: boolean;
}

const nonNegativeInteger = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`"${value}" is not a whole number of at least 0`);
  return parsed;
};

/** A failure the user can fix: printed as `error: message`, exit status 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/**
 * `--base-url`: an absolute http(s) URL, normalised to end in `/` (page-url.ts).
 *
 * @throws CliError naming the value otherwise
 */
function baseUrlOption(value: string): string {
  try {
    return normalizeBaseUrl(value);
  } catch (error) {
    if (error instanceof BaseUrlError) throw new CliError(error.message);
    throw error;
  }
}

/** One line about a knowledge base's site: "https://…/ (html pages, node anchors)" or "no site URL". */
function describeSite(knowledgeBase: KnowledgeBase): string {
  const conventions = `${knowledgeBase.urlStyle} pages, ${knowledgeBase.anchorStyle} anchors`;
  return knowledgeBase.baseUrl === undefined ? `no site URL (${conventions})` : `${knowledgeBase.baseUrl} (${conventions})`;
}

const positiveInteger = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`"${value}" is not a whole number of at least 1`);
  return parsed;
};

/**
 * Builds the `kb` command line (docs/cli.md). Each action opens
 * the store, does its work and closes it.
 */
export function createCli(deps: CliDeps): Command {
  const program = new Command('kb')
    .description('Manage kb-widget knowledge bases, documents and widget tokens')
    .showHelpAfterError()
    .configureOutput({ writeOut: deps.stdout, writeErr: deps.stderr });

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

  program
    .command('ingest')
    .description('Ingest markdown, HTML, plain-text and PDF files or folders, or import a website, into a knowledge base')
    .argument('[paths...]', 'files or folders')
    .requiredOption('--kb <id>', 'knowledge base id')
    .option('--url <url...>', 'import web pages, following their links on the site (below their folder) down to --max-depth')
    .option('--sitemap <url>', 'import the pages a sitemap.xml (or sitemap index) lists')
    .option('--max-pages <n>', 'most pages a website import fetches', positiveInteger, DEFAULT_CRAWL_LIMITS.maxPages)
    .option('--max-depth <n>', 'link hops a website import follows from the given pages', nonNegativeInteger, DEFAULT_CRAWL_LIMITS.maxDepth)
    .option('--allow-private-addresses', 'let a website import reach private, loopback and link-local addresses (an intranet site)')
    .addOption(new Option('--visibility <visibility>', 'who may read the documents').choices(VISIBILITIES).default('public'))
    .option('--reader <email...>', 'readers of restricted documents', [])
    .option('--not-quotable', 'never quote these documents in citations')
    .action(
      withStore(async (store, paths: string[], options: IngestCommandOptions) => {
        const sources = [paths.length > 0, options.url !== undefined, options.sitemap !== undefined].filter(Boolean).length;
        if (sources !== 1) throw new CliError('Give files or folders, --url or --sitemap: one of them');
        await requireKnowledgeBase(store, options.kb);
        const readers = (await requireReaders(store, options.kb, options.reader)).map((user) => user.id);
        if (paths.length === 0) return importWebsite(store, options, readers);
        const progress = createProgressBar(`Ingesting into ${options.kb}`);
        const report = await ingestPaths(store, {
          kbId: options.kb,
          paths,
          visibility: options.visibility,
          readers,
          quotable: !options.notQuotable,
          onProgress: (step) => progress.update(step),
        }).finally(() => progress.stop());
        for (const skipped of report.skipped) deps.stderr(`warning: skipped ${skipped.path}: ${skipped.reason}\n`);
        for (const failure of report.failed) deps.stderr(`failed ${failure.path}: ${failure.reason}\n`);
        print(
          `${options.kb}: ${report.created.length} created, ${report.updated.length} updated, ` +
            `${report.unchanged.length} unchanged, ${report.removed.length} removed, ${report.skipped.length} skipped, ` +
            `${report.failed.length} failed`,
        );
        // Skipped pages (drafts, pages without text) are warnings; only a file that fails is an error.
        if (report.failed.length > 0) process.exitCode = 1;
      }),
    );

  /** `kb ingest --url` / `--sitemap`: crawls the site (server/ingest/web/) and reports like a folder ingest. */
  async function importWebsite(store: Store, options: IngestCommandOptions, readers: string[]): Promise<void> {
    const seed: CrawlSeed = options.sitemap !== undefined ? { kind: 'sitemap', url: options.sitemap } : { kind: 'pages', urls: options.url! };
    const progress = createProgressBar(`Importing into ${options.kb}`);
    let report;
    try {
      report = await ingestSite(store, seed, {
        kbId: options.kb,
        visibility: options.visibility,
        readers,
        quotable: !options.notQuotable,
        limits: { ...DEFAULT_CRAWL_LIMITS, maxPages: options.maxPages, maxDepth: options.maxDepth },
        fetchLimits: { ...DEFAULT_FETCH_LIMITS, allowPrivateAddresses: options.allowPrivateAddresses === true ? true : (deps.importAllowPrivateAddresses ?? false) },
        onProgress: ({ done, total, url }) => progress.update({ done, total, docId: url }),
      });
    } catch (error) {
      if (error instanceof FetchRefusedError) throw new CliError(`${error.message}; or pass --allow-private-addresses`);
      throw error;
    } finally {
      progress.stop();
    }
    for (const skipped of report.skipped) deps.stderr(`warning: skipped ${skipped.url}: ${skipped.reason}\n`);
    for (const failure of report.failed) deps.stderr(`failed ${failure.url}: ${failure.reason}\n`);
    if (report.truncated) deps.stderr(`warning: stopped at a limit (--max-pages ${options.maxPages}); pages not reached were kept\n`);
    print(
      `${options.kb}: ${report.site}: ${report.created.length} created, ${report.updated.length} updated, ` +
        `${report.unchanged.length} unchanged, ${report.removed.length} removed, ${report.skipped.length} skipped, ` +
        `${report.failed.length} failed`,
    );
    if (report.failed.length > 0) process.exitCode = 1;
  }

  const faq = program.command('faq').description('Curated question/answer pairs (qa_shortcut)');
  faq
    .command('import')
    .description('Replace the curated pairs of a knowledge base with those of a JSON or YAML file')
    .argument('<file>', 'JSON or YAML file of pairs')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, file: string, options: { kb: string }) => {
        await requireKnowledgeBase(store, options.kb);
        const text = await readFile(file, 'utf8').catch(() => {
          throw new CliError(`Cannot read "${file}"`);
        });
        let pairs;
        try {
          pairs = parseFaqFile(text, file);
        } catch (error) {
          throw new CliError((error as Error).message);
        }
        for (const [position, pair] of pairs.entries()) {
          for (const source of pair.sources) {
            if (!(await store.getDocument(options.kb, source.docId))) {
              throw new CliError(`Pair ${position + 1} cites "${source.docId}", which is not in knowledge base "${options.kb}"`);
            }
          }
        }
        await store.replaceFaq(options.kb, pairs);
        print(`${options.kb}: ${pairs.length} curated pairs imported`);
      }),
    );
  faq
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        for (const pair of await store.listFaq(options.kb)) print(`${pair.question}\n  ${pair.answer}`);
      }),
    );

  const token = program.command('token').description('Widget tokens');
  token
    .command('issue')
    .description('Issue a widget token; the token is the last line of the output')
    .requiredOption('--kb <id>', 'knowledge base id')
    .option('--origin <origin...>', 'allowed site origins (https://shop.example.com, https://*.example.com)', [])
    .option('--ttl-minutes <minutes>', 'lifetime in minutes (default 60, never above the platform cap)', positiveInteger)
    .addOption(new Option('--scope <visibility...>', 'visibilities the token may reach').choices(VISIBILITIES).default(['public']))
    .option('--as <email>', 'issuer (needs editor or owner role); default: the workspace owner')
    .action(
      withStore(
        async (store, options: { kb: string; origin: string[]; ttlMinutes?: number; scope: Visibility[]; as?: string }) => {
          await requireKnowledgeBase(store, options.kb);
          const issuer = await requireUser(store, options.as ?? deps.ownerEmail);
          try {
            const issued = await issueToken(
              store,
              {
                kbId: options.kb,
                issuerId: issuer.id,
                allowedOrigins: options.origin,
                scope: options.scope,
                ...(options.ttlMinutes === undefined ? {} : { ttlMinutes: options.ttlMinutes }),
              },
              { ttlCapMinutes: deps.tokenTtlCapMinutes, now: deps.now() },
            );
            deps.stderr(
              `Issued ${issued.record.id} for ${options.kb} by ${issuer.email}, expires ${new Date(issued.record.expiresAt).toISOString()}, ` +
                `origins: ${issued.record.allowedOrigins.join(' ') || '(server only)'}\n`,
            );
            print(issued.token);
          } catch (error) {
            throw new CliError((error as Error).message);
          }
        },
      ),
    );
  token
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        await requireKnowledgeBase(store, options.kb);
        const now = deps.now();
        const users = new Map((await store.listUsers()).map((user) => [user.id, user.email]));
        print(['id', 'status', 'purpose', 'issuer', 'created', 'expires', 'last used', 'scope', 'origins'].join('\t'));
        const newestFirst = (await store.listTokens(options.kb)).sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
        for (const record of newestFirst) {
          const status = record.revokedAt !== undefined ? 'revoked' : now >= record.expiresAt ? 'expired' : 'active';
          print(
            [
              record.id,
              status,
              record.purpose,
              (record.issuerId && users.get(record.issuerId)) ?? '(removed user)',
              new Date(record.createdAt).toISOString(),
              new Date(record.expiresAt).toISOString(),
              record.lastUsedAt === undefined ? '-' : new Date(record.lastUsedAt).toISOString(),
              record.scope.join(','),
              record.allowedOrigins.join(' ') || '(server only)',
            ].join('\t'),
          );
        }
      }),
    );
  token
    .command('revoke')
    .argument('<token-id>', 'the tok_... id shown by token issue and token list')
    .action(
      withStore(async (store, id: string) => {
        if (!(await store.revokeToken(id, deps.now()))) throw new CliError(`No token with id "${id}"`);
        print(`${id} revoked`);
      }),
    );

  const user = program.command('user').description('Workspace users');
  user
    .command('add')
    .argument('<email>')
    .option('--name <name>', 'display name')
    .action(
      withStore(async (store, email: string, options: { name?: string }) => {
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new CliError(`"${email}" is not an email address`);
        if (await store.findUserByEmail(email)) throw new CliError(`A user with email "${email}" already exists`);
        const created = await store.createUser({ email, name: options.name ?? email.split('@')[0]! });
        print(`${created.email} added (${created.id})`);
      }),
    );
  user.command('list').action(
    withStore(async (store) => {
      for (const listed of await store.listUsers()) print(`${listed.email}\t${listed.name}\t${listed.id}`);
    }),
  );
  user
    .command('password')
    .description("Set a user's console password and end their sessions; the password is read from stdin, never echoed")
    .argument('<email>')
    .option('--password <password>', 'the new password instead of stdin (visible in process lists and shell history)')
    .action(
      withStore(async (store, email: string, options: { password?: string }) => {
        const found = await requireUser(store, email);
        let password = options.password;
        if (password === undefined) {
          try {
            password = await (deps.readSecret ?? readSecret)(`New password for ${found.email}: `);
          } catch (error) {
            throw new CliError((error as Error).message);
          }
        }
        const policyProblem = passwordPolicyProblem(password);
        if (policyProblem !== undefined) throw new CliError(policyProblem);
        await store.setPasswordHash(found.id, await hashPassword(password));
        const ended = await store.deleteSessionsOf(found.id);
        print(`${found.email}: password set; ${ended === 1 ? '1 session' : `${ended} sessions`} ended`);
      }),
    );
  user
    .command('remove')
    .argument('<email>')
    .action(
      withStore(async (store, email: string) => {
        const found = await requireUser(store, email);
        await store.removeUser(found.id);
        print(`${found.email} removed; tokens they issued no longer work`);
      }),
    );

  const knowledgeBase = program.command('knowledge-base').aliases(['kbs', 'kb']).description('Knowledge bases');
  const siteOptions = (command: Command): Command =>
    command
      .option('--base-url <url>', 'published URL of the ingested folder (https://kubernetes.io/docs/): documents get page URLs under it')
      .addOption(
        new Option('--url-style <style>', 'pretty: volumes.md -> volumes/ (Hugo, Docusaurus, MkDocs); html: fs.md -> fs.html (Node.js docs, Sphinx)').choices(
          URL_STYLES,
        ),
      )
      .addOption(
        new Option('--anchor-style <style>', 'heading ids: github (GitHub, Hugo, Docusaurus: repeats -1) or node (Node.js docs: repeats _1)').choices(
          ANCHOR_STYLES,
        ),
      );
  siteOptions(
    knowledgeBase
      .command('create')
      .argument('<id>', 'lower-case letters, digits and dashes')
      .option('--name <name>', 'display name')
      .option('--owner <email>', 'its first owner; default: the workspace owner'),
  ).action(
    withStore(
      async (
        store,
        id: string,
        options: { name?: string; owner?: string; baseUrl?: string; urlStyle?: UrlStyle; anchorStyle?: AnchorStyle },
      ) => {
        if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(id)) {
          throw new CliError(`Knowledge base id "${id}" must be lower-case letters, digits and dashes (at most 63)`);
        }
        if (await store.getKnowledgeBase(id)) throw new CliError(`Knowledge base "${id}" already exists`);
        const owner = await requireUser(store, options.owner ?? deps.ownerEmail);
        const created = await store.createKnowledgeBase({
          id,
          name: options.name ?? id,
          ...(options.baseUrl === undefined ? {} : { baseUrl: baseUrlOption(options.baseUrl) }),
          ...(options.urlStyle === undefined ? {} : { urlStyle: options.urlStyle }),
          ...(options.anchorStyle === undefined ? {} : { anchorStyle: options.anchorStyle }),
        });
        await store.setRole(id, owner.id, 'owner');
        print(`${id} created, owned by ${owner.email}; site: ${describeSite(created)}`);
      },
    ),
  );
  siteOptions(
    knowledgeBase
      .command('update')
      .description("Change a knowledge base's name or site; its documents' page URLs follow at once")
      .argument('<id>', 'knowledge base id')
      .option('--name <name>', 'display name'),
  )
    // After --base-url, so that leaving both out changes nothing (commander's rule for --no-* options).
    .option('--no-base-url', 'remove the site URL (documents keep only page URLs their front matter gives in full)')
    .action(
      withStore(
        async (
          store,
          id: string,
          options: { name?: string; baseUrl?: string | false; urlStyle?: UrlStyle; anchorStyle?: AnchorStyle },
        ) => {
          await requireKnowledgeBase(store, id);
          const update = await updateSiteSettings(store, id, {
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl === false ? null : baseUrlOption(options.baseUrl) }),
            ...(options.urlStyle === undefined ? {} : { urlStyle: options.urlStyle }),
            ...(options.anchorStyle === undefined ? {} : { anchorStyle: options.anchorStyle }),
          });
          print(`${id}: site ${describeSite(update.knowledgeBase)}; ${update.relinked} page URLs changed`);
          if (update.anchorsStale) {
            print(`Run "kb ingest" of ${id}'s folders again: its pages are re-parsed for the new heading anchors`);
          }
        },
      ),
    );
  knowledgeBase.command('list').action(
    withStore(async (store) => {
      for (const listed of await store.listKnowledgeBases()) {
        print(`${listed.id}\t${listed.name}\t${(await store.listDocuments(listed.id)).length} documents\t${describeSite(listed)}`);
      }
    }),
  );

  const member = program.command('member').description('Roles on a knowledge base');
  member
    .command('set')
    .argument('<email>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .addOption(new Option('--role <role>', 'role').choices(ROLES).makeOptionMandatory())
    .action(
      withStore(async (store, email: string, options: { kb: string; role: Role }) => {
        await requireKnowledgeBase(store, options.kb);
        const found = await requireUser(store, email);
        await store.setRole(options.kb, found.id, options.role);
        print(`${found.email} is ${options.role} of ${options.kb}`);
      }),
    );
  member
    .command('remove')
    .argument('<email>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, email: string, options: { kb: string }) => {
        const found = await requireUser(store, email);
        await store.removeRole(options.kb, found.id);
        print(`${found.email} is no longer a member of ${options.kb}`);
      }),
    );
  member
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        for (const listed of await store.listMembers(options.kb)) print(`${listed.email}\t${listed.role}`);
      }),
    );

  const doc = program.command('doc').description('Documents of a knowledge base');
  doc
    .command('list')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, options: { kb: string }) => {
        await requireKnowledgeBase(store, options.kb);
        for (const listed of await store.listDocuments(options.kb)) {
          print(`${listed.docId}\t${listed.visibility}${listed.quotable ? '' : ' (not quotable)'}\t${listed.chunkCount} passages\t${listed.title}`);
        }
      }),
    );
  doc
    .command('set')
    .description('Change who may read a document')
    .argument('<doc-id>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .addOption(new Option('--visibility <visibility>').choices(VISIBILITIES).makeOptionMandatory())
    .option('--reader <email...>', 'readers when restricted', [])
    .option('--not-quotable', 'never quote it in citations')
    .action(
      withStore(async (store, docId: string, options: { kb: string; visibility: Visibility; reader: string[]; notQuotable?: boolean }) => {
        const readers = await requireReaders(store, options.kb, options.reader);
        if (!(await store.getDocument(options.kb, docId))) throw new CliError(`No document "${docId}" in "${options.kb}"`);
        await store.setDocumentAccess(options.kb, docId, {
          visibility: options.visibility,
          readers: readers.map((reader) => reader.id),
          quotable: !options.notQuotable,
        });
        print(`${docId} is ${options.visibility}`);
      }),
    );
  doc
    .command('remove')
    .argument('<doc-id>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .action(
      withStore(async (store, docId: string, options: { kb: string }) => {
        if (!(await store.removeDocument(options.kb, docId))) throw new CliError(`No document "${docId}" in "${options.kb}"`);
        print(`${docId} removed`);
      }),
    );

  program
    .command('ask')
    .description('Ask a question with the reach of a workspace user (default: the owner)')
    .argument('<question>')
    .requiredOption('--kb <id>', 'knowledge base id')
    .option('--as <email>', 'whose reach to use')
    .option('--json', 'print the answer as the JSON endpoint would, with the evidence of each citation')
    .action(
      withStore(async (store, question: string, options: { kb: string; as?: string; json?: boolean }) => {
        await requireKnowledgeBase(store, options.kb);
        const asker = await requireUser(store, options.as ?? deps.ownerEmail);
        const role = await store.getRole(options.kb, asker.id);
        const engine = createAnswerEngine({ store, retriever: createLexicalRetriever(store), abstentionThreshold: deps.abstentionThreshold });
        const answer = await collectAnswer(
          engine.answer({ question, reach: memberReach(options.kb, asker.id, role) }),
        );
        if (options.json) {
          const citations = answer.citations.map((citation) => ({
            index: citation.index,
            doc_id: citation.passage.docId,
            heading_path: citation.passage.headingPath,
          }));
          print(JSON.stringify({ ...answer, citations }, null, 2));
          return;
        }
        print(answer.answer);
        for (const citation of answer.citations) {
          print(`[${citation.index}] ${citation.passage.docId} > ${citation.passage.headingPath.join(' > ')}`);
        }
        if (answer.suggestions.length > 0) print(`\nYou could also ask:\n${answer.suggestions.map((entry) => `  ${entry}`).join('\n')}`);
      }),
    );

  program.command('migrate').description('Create or upgrade the database schema').action(
    withStore(async (store) => {
      // Every store migrates when opened (PostgreSQL: on its first call, which this is).
      await store.ping();
      print('schema is up to date');
    }),
  );

  return program;
}

async function requireKnowledgeBase(store: Store, id: string): Promise<void> {
  if (!(await store.getKnowledgeBase(id))) throw new CliError(`No knowledge base "${id}"`);
}

async function requireUser(store: Store, email: string): Promise<User> {
  const found = await store.findUserByEmail(email);
  if (!found) throw new CliError(`No user with email "${email}"`);
  return found;
}

/**
 * The users given as a document's readers, by email: each must exist and be
 * a member of the knowledge base, as the console requires
 * (access/access-rules.ts `requireReadersAreMembers`).
 */
async function requireReaders(store: Store, kbId: string, emails: readonly string[]): Promise<User[]> {
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
