import type { Request, Response } from 'express';
import { ImportRequestSchema, type ImportJob as ConsoleImportJob, type ImportSource, type ImportSourceList } from '../../protocol/console-protocol.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { problem } from '../http/problem.ts';
import type { RouteRecord } from '../http/route-record.ts';
import { ImportRunningError, type ImportJob, type ImportJobs } from '../ingest/jobs/import-jobs.ts';
import { saveImportSource, startSiteImport, type SiteImportRequest } from '../ingest/jobs/import-sources.ts';
import { DEFAULT_CRAWL_LIMITS } from '../ingest/web/crawl-site.ts';
import type { ImportSourceRecord, ImportSourceSync, Store } from '../store/store.ts';
import { emailsByUserId, membership, parseBody, requireMemberReaders, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { sendJob, sendJobList, type JobKindView } from './job-views.ts';
import { consoleErrors, idParameter, sourceId } from './openapi-parts.ts';

/** Starts a website import: pages of one site and what they link to below their folder, or one sitemap. */
async function startImport(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store, imports } = deps;
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Importing a website');
  const body = parseBody(ImportRequestSchema, request.body);
  const origins = new Set(body.urls.map((url) => new URL(url).origin));
  if (origins.size > 1) throw problem(400, 'invalid_request', `urls: one import reads one site; these are on ${[...origins].join(', ')}`);
  const readers = body.visibility === 'restricted' ? (body.readers ?? []) : [];
  await requireMemberReaders(store, kbId, readers);
  const user = signedInUser(response);
  const settings = {
    visibility: body.visibility,
    readers,
    quotable: body.quotable ?? true,
    maxPages: body.max_pages ?? DEFAULT_CRAWL_LIMITS.maxPages,
    maxDepth: body.max_depth ?? DEFAULT_CRAWL_LIMITS.maxDepth,
  };
  const resyncHours = body.resync_hours ?? 0;
  // Refused before the source is saved, so that a refusal changes nothing.
  if (imports.isRunning(kbId, { kind: body.kind, urls: body.urls })) throw runningProblem(body.urls);
  const source =
    resyncHours === 0 ? undefined : await saveImportSource(store, { kbId, kind: body.kind, urls: body.urls, settings, createdBy: user.id, resyncHours, now: deps.now() });
  const job = start(deps, { kbId, kind: body.kind, urls: body.urls, settings, starter: { userId: user.id, role }, ...(source === undefined ? {} : { source }) });
  sendStarted(request, response, job, user);
}

/** The knowledge base's website imports, newest first (any member). */
async function listImports(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  await sendJobList(request, response, deps.store, importView(deps.imports));
}

/** One website import: its progress, then what it did or why it failed (any member). */
async function showImport(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  await sendJob(request, response, deps.store, importView(deps.imports));
}

/** The websites the knowledge base imports again on a schedule, each with how its last sync ended (any member). */
async function listImportSources(request: Request, response: Response, { store }: ConsoleRouteDeps): Promise<void> {
  const { kbId } = await membership(store, request, response);
  const sources = await store.listImportSources(kbId);
  const emails = await emailsByUserId(store, sources.map((source) => source.createdBy));
  response.json({ sources: sources.map((source) => toConsoleImportSource(source, emails)) } satisfies ImportSourceList);
}

/** Starts a source's sync now, with the access of the person asking (its schedule is unchanged). */
async function syncImportSource(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(deps.store, request, response);
  requireUpdatePermission(role, 'Syncing a website');
  const source = await requireSource(deps.store, kbId, String(request.params.sourceId));
  const user = signedInUser(response);
  const job = start(deps, { kbId, kind: source.kind, urls: source.urls, settings: source.settings, starter: { userId: user.id, role }, source });
  sendStarted(request, response, job, user);
}

/** Stops re-syncing a website; the documents imported from it stay. */
async function stopImportSource(request: Request, response: Response, { store }: ConsoleRouteDeps): Promise<void> {
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Stopping a re-sync');
  await requireSource(store, kbId, String(request.params.sourceId));
  await store.deleteImportSource(kbId, String(request.params.sourceId));
  response.status(204).end();
}

/** @throws a 404 problem when the knowledge base re-syncs no such website */
async function requireSource(store: Pick<Store, 'getImportSource'>, kbId: string, sourceId: string): Promise<ImportSourceRecord> {
  const source = await store.getImportSource(kbId, sourceId);
  if (!source) throw problem(404, 'not_found', `No re-synced website "${sourceId}" in knowledge base "${kbId}"`);
  return source;
}

/** @throws a 409 problem when the same pages are importing already */
function start(deps: ConsoleRouteDeps, importRequest: SiteImportRequest): ImportJob {
  try {
    return startSiteImport({ store: deps.store, imports: deps.imports, allowPrivateAddresses: deps.importAllowPrivateAddresses, now: deps.now }, importRequest);
  } catch (error) {
    if (error instanceof ImportRunningError) throw runningProblem(importRequest.urls);
    throw error;
  }
}

/** Website imports as job-views.ts serves them. */
function importView(imports: ImportJobs): JobKindView<ImportJob, ConsoleImportJob> {
  return {
    plural: 'imports',
    singular: 'import',
    list: (kbId) => imports.list(kbId),
    get: (kbId, id) => imports.get(kbId, id),
    toView: toConsoleImportJob,
  };
}

/**
 * Website imports from the console (docs/ingestion.md "Importing a website"): an
 * editor or owner starts one - pages of one site and what they link to
 * below their folder, or one sitemap - and it runs on the server as a job
 * (ingest/jobs/import-jobs.ts) that every member may follow. The fetcher's rules
 * are the command line's: robots.txt, the limits, and no private, loopback
 * or link-local address unless the service allows them
 * (`KB_IMPORT_ALLOW_PRIVATE_ADDRESSES`). As with an upload, a page whose
 * document exists and is one its starter cannot read is left as it is
 * (reported failed), and neither is such a document removed.
 */
export const IMPORT_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/imports',
    body: ImportRequestSchema,
    operation: {
      summary:
        'Start a website import (editors and owners): pages of one site and those they link to below their folder, or one sitemap; robots.txt obeyed, private addresses refused unless KB_IMPORT_ALLOW_PRIVATE_ADDRESSES allows them. It runs on the server; follow it at the Location',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: {
        '202': json(ref('ImportJob'), 'Started: running'),
        '400': problemResponse('A URL that is not http(s), URLs of several sites, a sitemap import with several URLs, readers who are not members (`invalid_request`)'),
        '409': problemResponse('An import of the same URLs is running in the knowledge base (`conflict`)'),
        ...consoleErrors,
      },
    },
    handler: startImport,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/imports',
    operation: {
      summary: "The knowledge base's website imports, newest first: those running and the last ones finished (any member)",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: { '200': json(ref('ImportJobList'), 'Imports'), ...consoleErrors },
    },
    handler: listImports,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/imports/:importId',
    operation: {
      summary: 'One website import: its progress, then what it did (document ids by outcome) or why it failed (any member)',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, idParameter('importId')],
      responses: { '200': json(ref('ImportJob'), 'The import'), ...consoleErrors },
    },
    handler: showImport,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/import-sources',
    operation: {
      summary:
        'The websites the knowledge base imports again on a schedule (set up by an import with `resync_hours`), by next sync, each with how its last sync ended (any member)',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: { '200': json(ref('ImportSourceList'), 'Re-synced websites'), ...consoleErrors },
    },
    handler: listImportSources,
  },
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/import-sources/:sourceId/sync',
    operation: {
      summary: "Sync a re-synced website now (editors and owners), with the access of the person asking; its schedule is unchanged. Follow the import at the Location",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, sourceId],
      responses: {
        '202': json(ref('ImportJob'), 'Started: running'),
        '409': problemResponse('An import of the same URLs is running in the knowledge base (`conflict`)'),
        ...consoleErrors,
      },
    },
    handler: syncImportSource,
  },
  {
    method: 'delete',
    path: '/knowledge-bases/:kbId/import-sources/:sourceId',
    operation: {
      summary: 'Stop re-syncing a website (editors and owners); the documents imported from it stay',
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, sourceId],
      responses: { '204': { description: 'Stopped' }, ...consoleErrors },
    },
    handler: stopImportSource,
  },
];

/** 409: the same pages are importing already. */
function runningProblem(urls: readonly string[]) {
  return problem(409, 'conflict', `An import of ${urls.join(', ')} is already running in this knowledge base`);
}

/** 202 with the job, running, and where to follow it. */
function sendStarted(request: Request, response: Response, job: ImportJob, starter: { id: string; email: string }): void {
  response.status(202).location(`${request.baseUrl}/knowledge-bases/${encodeURIComponent(job.kbId)}/imports/${job.id}`);
  response.json(toConsoleImportJob(job, new Map([[starter.id, starter.email]])) satisfies ConsoleImportJob);
}

/**
 * @param shown whether one of its document ids may be shown to the person viewing it (job-views.ts); default all (its starter)
 */
function toConsoleImportJob(job: ImportJob, emails: ReadonlyMap<string, string>, shown: (docId: string) => boolean = () => true): ConsoleImportJob {
  const { report } = job;
  let hidden = 0;
  const visible = <T>(items: readonly T[], docIdOf: (item: T) => string): T[] =>
    items.filter((item) => {
      if (shown(docIdOf(item))) return true;
      hidden += 1;
      return false;
    });
  const same = (docId: string) => docId;
  return {
    id: job.id,
    kind: job.seed.kind,
    urls: job.seed.urls,
    status: job.status,
    started_by: emails.get(job.startedBy) ?? '(removed user)',
    ...(job.sourceId === undefined ? {} : { source_id: job.sourceId }),
    started_at: new Date(job.startedAt).toISOString(),
    ...(job.finishedAt === undefined ? {} : { finished_at: new Date(job.finishedAt).toISOString() }),
    progress: { ...job.progress },
    ...(report === undefined
      ? {}
      : {
          result: {
            site: report.site,
            created: visible(report.created, same),
            updated: visible(report.updated, same),
            unchanged: visible(report.unchanged, same),
            removed: visible(report.removed, same),
            skipped: report.skipped,
            failed: visible(report.failed, (failure) => failure.docId).map((failure) => ({ url: failure.url, doc_id: failure.docId, reason: failure.reason })),
            truncated: report.truncated,
            ...(hidden === 0 ? {} : { hidden }),
          },
        }),
    ...(job.error === undefined ? {} : { error: job.error }),
  };
}

function toConsoleImportSource(source: ImportSourceRecord, emails: ReadonlyMap<string, string>): ImportSource {
  const { settings } = source;
  return {
    id: source.id,
    kind: source.kind,
    urls: source.urls,
    visibility: settings.visibility,
    readers: settings.readers,
    quotable: settings.quotable,
    max_pages: settings.maxPages,
    max_depth: settings.maxDepth,
    resync_hours: source.resyncHours,
    created_by: emails.get(source.createdBy) ?? '(removed user)',
    created_at: new Date(source.createdAt).toISOString(),
    next_sync_at: new Date(source.nextSyncAt).toISOString(),
    ...(source.lastSync === undefined ? {} : { last_sync: toConsoleImportSync(source.lastSync) }),
  };
}

function toConsoleImportSync({ finishedAt, ...outcome }: ImportSourceSync): ImportSource['last_sync'] {
  return { ...outcome, finished_at: new Date(finishedAt).toISOString() };
}
