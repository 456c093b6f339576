import { randomBytes } from 'node:crypto';
import { canReadDocument, hasUpdatePermission } from '../../access/access-rules.ts';
import type { ImportSourceRecord, ImportSourceSettings, Role, Store } from '../../store/store.ts';
import { ImportRunningError, type ImportJob, type ImportJobs } from './import-jobs.ts';
import { DEFAULT_CRAWL_LIMITS } from '../web/crawl-site.ts';
import { DEFAULT_FETCH_LIMITS } from '../web/guarded-fetch.ts';
import { ingestSite, type SiteIngestReport } from '../web/ingest-site.ts';

/**
 * Website imports as the service runs them, once or on a schedule
 * (docs/ingestion.md "Importing a website": re-synced websites). A person starts one from
 * the console; with an interval it becomes a *source*
 * (`import_sources`), which {@link syncDueImportSources} imports again
 * when due, with the access of who set it up. Each sync records what it
 * learned of every page (validators, links), so the next one asks
 * conditionally and reads only what changed (web/ingest-site.ts), and how
 * it ended, which the console shows beside the source.
 */

/** What imports need of the service. */
export interface SiteImportDeps {
  store: Store;
  imports: ImportJobs;
  /** `KB_IMPORT_ALLOW_PRIVATE_ADDRESSES`: private, loopback and link-local addresses the fetcher may reach (web/guarded-fetch.ts). */
  allowPrivateAddresses: boolean | readonly string[];
  now: () => number;
}

/** One import: what to crawl, with whose access, and the source it syncs, if any. */
export interface SiteImportRequest {
  kbId: string;
  kind: 'pages' | 'sitemap';
  /** Page URLs, or one sitemap URL. */
  urls: string[];
  settings: ImportSourceSettings;
  /** Who imports: a page whose document exists and they cannot read is left as it is. */
  starter: { userId: string; role: Role };
  /** The source this import syncs: it starts from what the source's last sync learned, and records how it ended. */
  source?: ImportSourceRecord;
}

/** One hour, in milliseconds. */
const HOUR_MS = 3_600_000;

/** How often a process looks for due sources, ms (a minute: a sync is due to the minute at best). */
export const RESYNC_CHECK_MS = 60_000;

/** Most imports running in a process at once before scheduled syncs wait for the next check. */
export const MAX_RUNNING_IMPORTS_FOR_RESYNC = 2;

/**
 * Starts an import as a job (ingest/jobs/import-jobs.ts).
 *
 * @returns the job, running
 * @throws ImportRunningError when an import of the same pages runs in the knowledge base
 */
export function startSiteImport(deps: SiteImportDeps, request: SiteImportRequest): ImportJob {
  const { store } = deps;
  const { source, settings, starter } = request;
  const seed = request.kind === 'sitemap' ? ({ kind: 'sitemap', url: request.urls[0]! } as const) : ({ kind: 'pages', urls: request.urls } as const);
  return deps.imports.start(
    { kbId: request.kbId, seed: { kind: request.kind, urls: request.urls }, startedBy: starter.userId, ...(source === undefined ? {} : { sourceId: source.id }) },
    async (onProgress) => {
      let report: SiteIngestReport;
      try {
        report = await ingestSite(store, seed, {
          kbId: request.kbId,
          visibility: settings.visibility,
          readers: settings.readers,
          quotable: settings.quotable,
          limits: { ...DEFAULT_CRAWL_LIMITS, maxPages: settings.maxPages, maxDepth: settings.maxDepth },
          fetchLimits: { ...DEFAULT_FETCH_LIMITS, allowPrivateAddresses: deps.allowPrivateAddresses },
          onProgress,
          mayReplace: (document) => canReadDocument(starter.userId, starter.role, document),
          ...(source === undefined ? {} : { previousPages: await store.listImportPages(source.id) }),
        });
      } catch (error) {
        if (source !== undefined) await store.finishImportSourceSync(source.id, { status: 'failed', finishedAt: deps.now(), error: (error as Error).message });
        throw error;
      }
      if (source !== undefined) {
        const counts = {
          created: report.created.length,
          updated: report.updated.length,
          unchanged: report.unchanged.length,
          removed: report.removed.length,
          failed: report.failed.length,
        };
        await store.finishImportSourceSync(source.id, { status: 'succeeded', finishedAt: deps.now(), ...counts }, report.learned);
      }
      return report;
    },
  );
}

/**
 * Records a source to re-import every `resyncHours` (the same knowledge
 * base, kind and URLs again: the one source, updated), its first sync due
 * one interval from now.
 */
export function saveImportSource(
  store: Pick<Store, 'saveImportSource'>,
  request: Pick<SiteImportRequest, 'kbId' | 'kind' | 'urls' | 'settings'> & { createdBy: string; resyncHours: number; now: number },
): Promise<ImportSourceRecord> {
  return store.saveImportSource({
    id: `src_${randomBytes(8).toString('hex')}`,
    kbId: request.kbId,
    kind: request.kind,
    urls: request.urls,
    settings: request.settings,
    resyncHours: request.resyncHours,
    createdBy: request.createdBy,
    createdAt: request.now,
    nextSyncAt: request.now + request.resyncHours * HOUR_MS,
  });
}

/**
 * Starts the syncs that are due, each claimed atomically in the store so
 * that replicas sharing the database run it once, while fewer than
 * {@link MAX_RUNNING_IMPORTS_FOR_RESYNC} imports run in this process (the
 * rest wait for a later check). A sync imports with the access of who set
 * the source up; when they may no longer import into the knowledge base
 * (not a member, or no longer an editor or owner), it fails, saying so,
 * and the source stays listed for someone to set up again or stop.
 *
 * @returns the jobs started
 */
export async function syncDueImportSources(deps: SiteImportDeps): Promise<ImportJob[]> {
  const started: ImportJob[] = [];
  while (deps.imports.running < MAX_RUNNING_IMPORTS_FOR_RESYNC) {
    const source = await deps.store.claimDueImportSource(deps.now());
    if (source === undefined) break;
    const role = await deps.store.getRole(source.kbId, source.createdBy);
    if (!hasUpdatePermission(role)) {
      await deps.store.finishImportSourceSync(source.id, {
        status: 'failed',
        finishedAt: deps.now(),
        error: 'The person who set up this re-sync may no longer import into this knowledge base (not an editor or owner of it now): set it up again, or stop it',
      });
      continue;
    }
    try {
      started.push(startSiteImport(deps, { kbId: source.kbId, kind: source.kind, urls: source.urls, settings: source.settings, starter: { userId: source.createdBy, role: role! }, source }));
    } catch (error) {
      // The same pages are importing already (started by a person): this sync is that one.
      if (!(error instanceof ImportRunningError)) throw error;
    }
  }
  return started;
}

/**
 * Checks for due sources now and every {@link RESYNC_CHECK_MS} (a timer
 * that does not keep the process alive), one check at a time.
 *
 * @param onError told of a check that failed (the store unreachable); the next check tries again
 * @returns stops the checks
 */
export function startImportResync(deps: SiteImportDeps, onError?: (error: Error) => void): () => void {
  let checking = false;
  const check = () => {
    if (checking) return;
    checking = true;
    void syncDueImportSources(deps)
      .catch((error: Error) => onError?.(error))
      .finally(() => (checking = false));
  };
  check();
  const timer = setInterval(check, RESYNC_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
