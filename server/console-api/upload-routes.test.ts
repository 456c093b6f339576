import { connect } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UploadJobSchema, type UploadJob, type UploadJobList } from '../../protocol/console-protocol.ts';
import type { QueryResponse } from '../../protocol/query-protocol.ts';
import { consoleCall } from '../testing/console-call.ts';
import { makePdf } from '../testing/pdf-fixture.ts';
import { createWidgetFixture, type WidgetFixture } from '../testing/widget-fixture.ts';

/**
 * Uploads of files from the console API over real HTTP on the test run's
 * backend: a batch runs as a job that reports its progress and each file's
 * outcome (and counts in /metrics); a file that is not its format fails
 * alone, named, and leaves the knowledge base as it was; what can be
 * checked before the job is refused up front, naming the file or readers.
 */

const PASSWORD = 'correct horse battery staple';
let fixture: WidgetFixture;
let owner: string;
let bob: string;
let reader: string;

beforeAll(async () => {
  fixture = await createWidgetFixture({ consolePasswords: { owner: PASSWORD, bob: PASSWORD, reader: PASSWORD } });
  [owner, bob, reader] = await Promise.all([fixture.signIn('owner@example.com', PASSWORD), fixture.signIn('bob@example.com', PASSWORD), fixture.signIn('reader@example.com', PASSWORD)]);
});
afterAll(async () => {
  await fixture.close();
});

function call(method: string, path: string, cookie: string, body?: unknown) {
  return consoleCall(fixture, method, path, cookie, body);
}

/** Polls the job, as the console does, until it ends (as a reader unless `viewer` is given). */
async function finished(id: string, viewer = reader): Promise<UploadJob> {
  for (;;) {
    const job = (await (await call('GET', `uploads/${id}`, viewer)).json()) as UploadJob;
    if (job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function endedJobs(outcome: string): Promise<number> {
  const metrics = await (await fetch(`${fixture.baseUrl}/metrics`)).text();
  return Number(new RegExp(`^kb_ingest_jobs_total\\{kind="upload",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
}

async function detail(response: Response): Promise<[number, string]> {
  return [response.status, ((await response.json()) as { detail: string }).detail];
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('uploads', () => {
  test('markdown, a PDF and a ".pdf" that is not one: 202 with a running job; it ends with two stored, the bad file failed by name and its document kept as it was', async () => {
    const old = await call('PUT', 'documents/manuals/scan.pdf', owner, {
      content_base64: Buffer.from(await makePdf([[{ text: 'Scanner manual', size: 20 }, { text: 'The scanner warms up for two minutes before the first page.' }]])).toString('base64'),
      visibility: 'public',
    });
    expect(old.status).toBe(201);
    const before = await fixture.store.getDocument('docs', 'manuals/scan.pdf');
    const succeededBefore = await endedJobs('succeeded');
    const pdf = await makePdf([[{ text: 'Quokka router warranty', size: 20 }, { text: 'The warranty of the quokka router lasts three years from the day of purchase.' }]]);

    const started = await call('POST', 'uploads', owner, {
      files: [
        { doc_id: 'manuals/reset.md', content: '# Resetting the router\n\nHold the reset button of the router for ten seconds.\n' },
        { doc_id: 'manuals/router.pdf', content_base64: Buffer.from(pdf).toString('base64') },
        { doc_id: 'manuals/scan.pdf', content_base64: base64('# this is markdown, not a PDF') },
      ],
      visibility: 'public',
    });
    const job = (await started.json()) as UploadJob;
    const done = await finished(job.id);

    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`/console/api/knowledge-bases/docs/uploads/${job.id}`);
    expect([job.status, job.started_by, job.files, job.progress.done, job.progress.total]).toEqual(['running', 'owner@example.com', ['manuals/reset.md', 'manuals/router.pdf', 'manuals/scan.pdf'], 0, 3]);
    expect(UploadJobSchema.parse(done)).toEqual(done);
    expect(done).toMatchObject({ status: 'succeeded', progress: { done: 3, total: 3, doc_id: 'manuals/scan.pdf' } });
    expect(done.results.map((result) => [result.doc_id, result.outcome])).toEqual([
      ['manuals/reset.md', 'created'],
      ['manuals/router.pdf', 'created'],
      ['manuals/scan.pdf', 'failed'],
    ]);
    expect(done.results[2]!.reason).toMatch(/^The file is not a PDF that can be read/);
    expect(done.results[1]!.passages).toBeGreaterThan(0);
    const after = await fixture.store.getDocument('docs', 'manuals/scan.pdf');
    expect([after?.title, after?.contentHash, after?.updatedAt]).toEqual([before?.title, before?.contentHash, before?.updatedAt]);
    const { token } = await fixture.issue();
    const ask = async (question: string) => ((await (await fixture.post('query', { question }, { token })).json()) as QueryResponse).citations.map((citation) => citation.doc_id);
    expect(await ask('quokka router warranty')).toContain('manuals/router.pdf');
    expect(await ask('scanner warm up before the first page')).toContain('manuals/scan.pdf');
    expect(await endedJobs('succeeded')).toBe(succeededBefore + 1);
    const list = (await (await call('GET', 'uploads', reader)).json()) as UploadJobList;
    expect(list.uploads[0]!.id).toBe(job.id);
  });

  test('uploaded again unchanged: every file unchanged; one edited: updated', async () => {
    const files = [
      { doc_id: 'faq/a.md', content: '# Alpacas\n\nAlpacas hum when they are curious.\n' },
      { doc_id: 'faq/b.txt', content_base64: base64('Bison graze in the open prairie.\n') },
    ];
    await finished(((await (await call('POST', 'uploads', owner, { files, visibility: 'workspace' })).json()) as UploadJob).id);

    const again = await finished(((await (await call('POST', 'uploads', owner, { files, visibility: 'workspace' })).json()) as UploadJob).id);
    const edited = await finished(
      ((await (await call('POST', 'uploads', owner, { files: [{ ...files[0], content: '# Alpacas\n\nAlpacas hum and click.\n' }], visibility: 'workspace' })).json()) as UploadJob).id,
    );

    expect(again.results.map((result) => result.outcome)).toEqual(['unchanged', 'unchanged']);
    expect(edited.results.map((result) => result.outcome)).toEqual(['updated']);
    expect((await fixture.store.getDocument('docs', 'faq/a.md'))?.visibility).toBe('workspace');
  });

  test("an editor's upload reports a file whose document they cannot read failed at once and leaves it as it is; the rest is stored, restricted to the readers given", async () => {
    const secretBefore = await fixture.store.getDocument('docs', 'secret.md');

    const started = await call('POST', 'uploads', bob, {
      files: [
        { doc_id: 'secret.md', content: '# Mine now\n\nBob replaced the launch plan.\n' },
        { doc_id: 'bob/notes.md', content: '# Notes\n\nBob keeps his notes here.\n' },
      ],
      visibility: 'restricted',
      readers: [fixture.users.bob.id],
    });
    const job = (await started.json()) as UploadJob;
    const done = await finished(job.id, bob);
    const seenByReader = (await (await call('GET', `uploads/${job.id}`, reader)).json()) as UploadJob;

    expect(job.results).toEqual([{ doc_id: 'secret.md', outcome: 'failed', reason: 'a document of this id exists that you cannot read; it is left as it is' }]);
    // Someone else's upload shows only the documents one can read: neither is the reader's.
    expect([seenByReader.files, seenByReader.results, seenByReader.hidden, seenByReader.progress]).toEqual([[], [], 2, { done: 2, total: 2 }]);
    expect(job.progress).toMatchObject({ done: 1, total: 2 });
    expect(done.results.map((result) => [result.doc_id, result.outcome])).toEqual([
      ['secret.md', 'failed'],
      ['bob/notes.md', 'created'],
    ]);
    expect(await fixture.store.getDocument('docs', 'secret.md')).toEqual(secretBefore);
    const notes = await fixture.store.getDocument('docs', 'bob/notes.md');
    expect([notes?.visibility, notes?.readers]).toEqual(['restricted', [fixture.users.bob.id]]);
  });

  test('refused up front, naming the file or the readers, no job started: a reader, an unsupported extension, a bad id, an id twice, readers who are not members', async () => {
    const listed = async () => ((await (await call('GET', 'uploads', owner)).json()) as UploadJobList).uploads.length;
    const before = await listed();
    const good = { doc_id: 'ok.md', content: '# Ok\n\nFine.\n' };

    const asReader = await call('POST', 'uploads', reader, { files: [good], visibility: 'public' });

    expect(await detail(asReader)).toEqual([403, 'Uploading files needs update permission (editor or owner); your role is reader']);
    expect(await detail(await call('POST', 'uploads', owner, { files: [good, { doc_id: 'notes.docx', content: 'x' }], visibility: 'public' }))).toEqual([
      400,
      'files.1.doc_id: "notes.docx" has no supported extension (.md, .markdown, .html, .htm, .txt, .text, .pdf)',
    ]);
    expect(await detail(await call('POST', 'uploads', owner, { files: [{ doc_id: 'a/../b.md', content: '# B' }], visibility: 'public' }))).toEqual([
      400,
      'files.0.doc_id: "a/../b.md" is not a document id: use a relative path such as guides/setup.md',
    ]);
    expect(await detail(await call('POST', 'uploads', owner, { files: [good, good], visibility: 'public' }))).toEqual([400, 'files.1.doc_id: "ok.md" is given twice in this upload']);
    expect(await detail(await call('POST', 'uploads', owner, { files: [good], visibility: 'restricted', readers: ['usr_nobody', fixture.users.bob.id] }))).toEqual([
      400,
      'readers: not members of "docs": usr_nobody',
    ]);
    expect((await call('POST', 'uploads', owner, { files: [], visibility: 'public' })).status).toBe(400);
    expect(await listed()).toBe(before);
    expect(await fixture.store.getDocument('docs', 'ok.md')).toBeUndefined();
  });

  test('an unknown upload: 404 not_found; another knowledge base does not show it', async () => {
    const job = (await (await call('POST', 'uploads', owner, { files: [{ doc_id: 'x.md', content: '# X\n\nText.\n' }], visibility: 'public' })).json()) as UploadJob;
    await finished(job.id);

    const unknown = await call('GET', 'uploads/upl_0000000000000000', owner);
    const elsewhere = await fetch(`${fixture.baseUrl}/console/api/knowledge-bases/other/uploads/${job.id}`, { headers: { Cookie: owner, Origin: fixture.baseUrl } });

    expect(await detail(unknown)).toEqual([404, 'No upload "upl_0000000000000000" in knowledge base "docs"']);
    expect(elsewhere.status).toBe(404);
  });

  test('a body announced over 25 MiB: 413 before it is read, saying to send several uploads', async () => {
    const url = new URL(fixture.baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));

    socket.write(
      `POST /console/api/knowledge-bases/docs/uploads HTTP/1.1\r\nHost: ${url.host}\r\nOrigin: ${fixture.baseUrl}\r\nCookie: ${owner}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${25 * 1024 * 1024 + 1}\r\n\r\n`,
    );
    await once(socket, 'close');

    const head = Buffer.concat(chunks).toString('utf8');
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toContain(`"detail":"The request body of ${25 * 1024 * 1024 + 1} bytes is larger than the 25 MiB limit: send the files in several uploads"`);
  });
});
