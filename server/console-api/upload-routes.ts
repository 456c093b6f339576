import type { Request, Response } from 'express';
import { UploadRequestSchema, type UploadJob as ConsoleUploadJob } from '../../protocol/console-protocol.ts';
import { canReadDocument } from '../access/access-rules.ts';
import { json, kbId as kbIdParameter, problemResponse, ref } from '../http/openapi-parts.ts';
import { problem } from '../http/problem.ts';
import type { RouteRecord } from '../http/route-record.ts';
import { ingestUploadedFiles, NOT_REPLACEABLE_REASON, type UploadedFile } from '../ingest/jobs/ingest-upload.ts';
import { parserFor, SUPPORTED_EXTENSIONS } from '../ingest/parsing/source-formats.ts';
import { UploadsBusyError, type UploadFileResult, type UploadJob, type UploadJobs } from '../ingest/jobs/upload-jobs.ts';
import { documentIdProblem, membership, parseBody, requireMemberReaders, requireUpdatePermission, signedInUser, type ConsoleRouteDeps } from './console-context.ts';
import { sendJob, sendJobList, type JobKindView } from './job-views.ts';
import { consoleErrors, idParameter } from './openapi-parts.ts';

/**
 * Starts an upload: checks each id (a relative path with a supported
 * extension, once per upload) and the readers, reports a file whose
 * document exists and that the uploader cannot read failed at once, and
 * answers 202 with the job and where to follow it.
 */
async function startUpload(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  const { store, uploads } = deps;
  const { kbId, role } = await membership(store, request, response);
  requireUpdatePermission(role, 'Uploading files');
  const body = parseBody(UploadRequestSchema, request.body);
  const seen = new Set<string>();
  for (const [index, file] of body.files.entries()) {
    const invalid =
      documentIdProblem(file.doc_id) ??
      (parserFor(file.doc_id) === undefined ? `"${file.doc_id}" has no supported extension (${SUPPORTED_EXTENSIONS})` : undefined) ??
      (seen.has(file.doc_id) ? `"${file.doc_id}" is given twice in this upload` : undefined);
    if (invalid !== undefined) throw problem(400, 'invalid_request', `files.${index}.doc_id: ${invalid}`);
    seen.add(file.doc_id);
  }
  const readers = body.visibility === 'restricted' ? (body.readers ?? []) : [];
  await requireMemberReaders(store, kbId, readers);
  const user = signedInUser(response);
  const refused: UploadFileResult[] = [];
  const files: UploadedFile[] = [];
  for (const file of body.files) {
    const existing = await store.getDocument(kbId, file.doc_id);
    if (existing !== undefined && !canReadDocument(user.id, role, existing)) {
      refused.push({ docId: file.doc_id, outcome: 'failed', reason: NOT_REPLACEABLE_REASON });
    } else {
      files.push({ docId: file.doc_id, bytes: file.content !== undefined ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content_base64!, 'base64') });
    }
  }
  let job: UploadJob;
  try {
    job = uploads.start({ kbId, startedBy: user.id, files: body.files.map((file) => file.doc_id), refused }, (report) =>
      ingestUploadedFiles(store, files, {
        kbId,
        visibility: body.visibility,
        readers,
        quotable: body.quotable ?? true,
        // Checked again at each file's turn: a document may have been added since.
        mayReplace: (document) => canReadDocument(user.id, role, document),
        report,
      }),
    );
  } catch (error) {
    if (error instanceof UploadsBusyError) throw problem(409, 'conflict', error.message);
    throw error;
  }
  response.status(202).location(`${request.baseUrl}/knowledge-bases/${encodeURIComponent(kbId)}/uploads/${job.id}`);
  response.json(toConsoleUploadJob(job, new Map([[user.id, user.email]])) satisfies ConsoleUploadJob);
}

/** The knowledge base's uploads, newest first (any member). */
async function listUploads(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  await sendJobList(request, response, deps.store, uploadView(deps.uploads));
}

/** One upload: its progress and each file's outcome (any member). */
async function showUpload(request: Request, response: Response, deps: ConsoleRouteDeps): Promise<void> {
  await sendJob(request, response, deps.store, uploadView(deps.uploads));
}

/** Uploads as job-views.ts serves them. */
function uploadView(uploads: UploadJobs): JobKindView<UploadJob, ConsoleUploadJob> {
  return {
    plural: 'uploads',
    singular: 'upload',
    list: (kbId) => uploads.list(kbId),
    get: (kbId, id) => uploads.get(kbId, id),
    toView: toConsoleUploadJob,
  };
}

/**
 * Uploads of files from the console (docs/console.md "Documents"; docs/http-api.md "Uploads"): an
 * editor or owner sends files - markdown, HTML, plain text, PDF - with the
 * access they get, and they are indexed on the server as a job
 * (ingest/jobs/upload-jobs.ts) that every member may follow, each file in its own
 * transaction through `ingestSource`, as `PUT …/documents/{docId}` indexes
 * one. What can be checked before the job is: each id (a relative path with
 * a supported extension, once per upload) and the readers (members) refuse
 * the whole request, naming the file or the readers; a file whose document
 * exists and is one the uploader cannot read is reported failed at once and
 * left as it is. The job then reports its progress and each file's outcome;
 * a file that is not its format fails alone, named, and changes nothing.
 */
export const UPLOAD_ROUTES: readonly RouteRecord<ConsoleRouteDeps>[] = [
  {
    method: 'post',
    path: '/knowledge-bases/:kbId/uploads',
    body: UploadRequestSchema,
    operation: {
      summary:
        "Upload files (editors and owners): each becomes the document of its id, indexed like `PUT …/documents/{docId}` in its own transaction, as a job on the server that reports its progress and each file's outcome; a file that fails (not its format) changes nothing. Follow it at the Location",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      requestBody: { description: 'At most 25 MiB of JSON and 200 files; send more as several uploads' },
      responses: {
        '202': json(ref('UploadJob'), 'Started: running (a file whose document exists and that the person cannot read is already reported failed)'),
        '400': problemResponse('A malformed id, an unsupported extension or an id given twice (naming the file), an empty or malformed source, readers who are not members (`invalid_request`)'),
        '409': problemResponse('4 uploads are already running in the knowledge base (`conflict`)'),
        '413': problemResponse('Body over 25 MiB (`payload_too_large`)'),
        ...consoleErrors,
      },
    },
    handler: startUpload,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/uploads',
    operation: {
      summary: "The knowledge base's uploads of files, newest first: those running and the last ones finished (any member)",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter],
      responses: { '200': json(ref('UploadJobList'), 'Uploads'), ...consoleErrors },
    },
    handler: listUploads,
  },
  {
    method: 'get',
    path: '/knowledge-bases/:kbId/uploads/:uploadId',
    operation: {
      summary: "One upload: its progress and each file's outcome (created, updated, unchanged, failed with the reason), or why it stopped (any member)",
      security: [{ consoleSession: [] }],
      parameters: [kbIdParameter, idParameter('uploadId')],
      responses: { '200': json(ref('UploadJob'), 'The upload'), ...consoleErrors },
    },
    handler: showUpload,
  },
];

/**
 * @param shown whether one of its document ids may be shown to the person viewing it (job-views.ts); default all (its starter)
 */
function toConsoleUploadJob(job: UploadJob, emails: ReadonlyMap<string, string>, shown: (docId: string) => boolean = () => true): ConsoleUploadJob {
  const files = job.files.filter(shown);
  const hidden = job.files.length - files.length;
  return {
    id: job.id,
    status: job.status,
    started_by: emails.get(job.startedBy) ?? '(removed user)',
    started_at: new Date(job.startedAt).toISOString(),
    ...(job.finishedAt === undefined ? {} : { finished_at: new Date(job.finishedAt).toISOString() }),
    files,
    ...(hidden === 0 ? {} : { hidden }),
    progress: {
      done: job.progress.done,
      total: job.progress.total,
      ...(job.progress.docId === undefined || !shown(job.progress.docId) ? {} : { doc_id: job.progress.docId }),
    },
    results: job.results.filter((result) => shown(result.docId)).map((result) => ({
      doc_id: result.docId,
      outcome: result.outcome,
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      ...(result.passages === undefined ? {} : { passages: result.passages }),
    })),
    ...(job.error === undefined ? {} : { error: job.error }),
  };
}
