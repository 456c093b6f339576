import { Router } from 'express';
import { ImportRequestSchema, type ImportJob as ConsoleImportJob, type ImportJobList } from '../../protocol/console-protocol.ts';
import { canReadDocument, ReadersNotMembersError, requireReadersAreMembers } from '../access/access-rules.ts';
import { problem } from '../http/problem.ts';
import { ImportRunningError, type ImportJob } from '../ingest/import-jobs.ts';
import { DEFAULT_CRAWL_LIMITS } from '../ingest/web/crawl-site.ts';
import { DEFAULT_FETCH_LIMITS } from '../ingest/web/guarded-fetch.ts';
import { ingestSite } from '../ingest/web/ingest-site.ts';
import { membership, parseBody, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';

/**
 * Website imports from the console (README "Importing a website"): an
 * editor or owner starts one - pages of one site and what they link to
 * below their folder, or one sitemap - and it runs on the server as a job
 * (ingest/import-jobs.ts) that every member may follow. The fetcher's rules
 * are the command line's: robots.txt, the limits, and no private, loopback
 * or link-local address unless the service allows them
 * (`KB_IMPORT_ALLOW_PRIVATE_ADDRESSES`). As with an upload, a page whose
 * document exists and is one its starter cannot read is left as it is
 * (reported failed), and neither is such a document removed.
 */
export function importRoutes(deps: ConsoleRouteDeps): Router {
  const { store, imports } = deps;
  const router = Router();

  router.post('/knowledge-bases/:kbId/imports', async (request, response) => {
    const { kbId, role } = await membership(store, request, response);
    requireUpdatePermission(role, 'Importing a website');
    const body = parseBody(ImportRequestSchema, request.body);
    const origins = new Set(body.urls.map((url) => new URL(url).origin));
    if (origins.size > 1) throw problem(400, 'invalid_request', `urls: one import reads one site; these are on ${[...origins].join(', ')}`);
    const readers = body.visibility === 'restricted' ? (body.readers ?? []) : [];
    try {
      await requireReadersAreMembers(store, kbId, readers);
    } catch (error) {
      if (error instanceof ReadersNotMembersError) throw problem(400, 'invalid_request', error.message);
      throw error;
    }
    const user = signedInUser(response);
    const seed = body.kind === 'sitemap' ? ({ kind: 'sitemap', url: body.urls[0]! } as const) : ({ kind: 'pages', urls: body.urls } as const);
    let job: ImportJob;
    try {
      job = imports.start({ kbId, seed: { kind: body.kind, urls: body.urls }, startedBy: user.id }, (onProgress) =>
        ingestSite(store, seed, {
          kbId,
          visibility: body.visibility,
          readers,
          quotable: body.quotable ?? true,
          limits: { ...DEFAULT_CRAWL_LIMITS, maxPages: body.max_pages ?? DEFAULT_CRAWL_LIMITS.maxPages, maxDepth: body.max_depth ?? DEFAULT_CRAWL_LIMITS.maxDepth },
          fetchLimits: { ...DEFAULT_FETCH_LIMITS, allowPrivateAddresses: deps.importAllowPrivateAddresses },
          onProgress,
          mayReplace: (document) => canReadDocument(user.id, role, document),
        }),
      );
    } catch (error) {
      if (error instanceof ImportRunningError) throw problem(409, 'conflict', error.message);
      throw error;
    }
    response.status(202).location(`${request.baseUrl}/knowledge-bases/${encodeURIComponent(kbId)}/imports/${job.id}`);
    response.json(toConsoleImportJob(job, new Map([[user.id, user.email]])) satisfies ConsoleImportJob);
  });

  router.get('/knowledge-bases/:kbId/imports', async (request, response) => {
    const { kbId } = await membership(store, request, response);
    const jobs = imports.list(kbId);
    const emails = await emailsOf(jobs);
    response.json({ imports: jobs.map((job) => toConsoleImportJob(job, emails)) } satisfies ImportJobList);
  });

  router.get('/knowledge-bases/:kbId/imports/:importId', async (request, response) => {
    const { kbId } = await membership(store, request, response);
    const job = imports.get(kbId, String(request.params.importId));
    if (!job) throw problem(404, 'not_found', `No import "${String(request.params.importId)}" in knowledge base "${kbId}"`);
    response.json(toConsoleImportJob(job, await emailsOf([job])) satisfies ConsoleImportJob);
  });

  /** The emails of the jobs' starters, by user id (a job is polled every second: not the whole user list). */
  async function emailsOf(jobs: readonly ImportJob[]): Promise<Map<string, string>> {
    const users = await Promise.all([...new Set(jobs.map((job) => job.startedBy))].map((userId) => store.getUser(userId)));
    return new Map(users.flatMap((user) => (user ? [[user.id, user.email] as const] : [])));
  }

  return router;
}

function toConsoleImportJob(job: ImportJob, emails: ReadonlyMap<string, string>): ConsoleImportJob {
  const { report } = job;
  return {
    id: job.id,
    kind: job.seed.kind,
    urls: job.seed.urls,
    status: job.status,
    started_by: emails.get(job.startedBy) ?? '(removed user)',
    started_at: new Date(job.startedAt).toISOString(),
    ...(job.finishedAt === undefined ? {} : { finished_at: new Date(job.finishedAt).toISOString() }),
    progress: { ...job.progress },
    ...(report === undefined
      ? {}
      : {
          result: {
            site: report.site,
            created: report.created,
            updated: report.updated,
            unchanged: report.unchanged,
            removed: report.removed,
            skipped: report.skipped,
            failed: report.failed.map((failure) => ({ url: failure.url, doc_id: failure.docId, reason: failure.reason })),
            truncated: report.truncated,
          },
        }),
    ...(job.error === undefined ? {} : { error: job.error }),
  };
}
