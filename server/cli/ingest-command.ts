import { Option, type Command } from 'commander';
import { ingestPaths } from '../ingest/pipeline/ingest-files.ts';
import { DEFAULT_CRAWL_LIMITS, type CrawlSeed } from '../ingest/web/crawl-site.ts';
import { DEFAULT_FETCH_LIMITS, FetchRefusedError } from '../ingest/web/guarded-fetch.ts';
import { ingestSite } from '../ingest/web/ingest-site.ts';
import { createProgressBar } from '../progress-bar.ts';
import { VISIBILITIES, type Store, type Visibility } from '../store/store.ts';
import {
  CliError,
  nonNegativeInteger,
  positiveInteger,
  requireKnowledgeBase,
  requireReaders,
  type CliContext,
} from './cli-context.ts';

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

/** `kb ingest`: files and folders, or a website (`--url`, `--sitemap`), into a knowledge base. */
export function addIngestCommand(program: Command, context: CliContext): void {
  const { deps, withStore, print } = context;
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
}
