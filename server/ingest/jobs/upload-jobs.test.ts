import { describe, expect, test } from 'vitest';
import { ImportJobs } from './import-jobs.ts';
import type { IngestJobKind } from './ingest-jobs.ts';
import { MAX_RUNNING_UPLOADS, UploadJobs, UploadsBusyError } from './upload-jobs.ts';

/** Upload jobs on their own: progress file by file, the cap on running uploads, and the registry they share with imports. */

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('UploadJobs', () => {
  test('progress moves file by file, naming the file being indexed; files refused up front count as done; the job ends with every outcome', async () => {
    let clock = 1000;
    const imports = new ImportJobs({ now: () => clock });
    const uploads = new UploadJobs(imports.registry);
    const between = gate();
    const refused = [{ docId: 'theirs.md', outcome: 'failed' as const, reason: 'a document of this id exists that you cannot read; it is left as it is' }];

    const job = uploads.start({ kbId: 'kb', startedBy: 'usr_1', files: ['theirs.md', 'a.md', 'b.pdf'], refused }, async (report) => {
      report.indexing('a.md');
      report.ended({ docId: 'a.md', outcome: 'created', passages: 2 });
      report.indexing('b.pdf');
      await between.wait;
      report.ended({ docId: 'b.pdf', outcome: 'failed', reason: 'The file is not a PDF that can be read' });
    });
    const atStart = { ...job.progress };
    await tick();
    const midway = { status: job.status, progress: { ...job.progress }, results: job.results.map((result) => result.docId) };
    clock = 2000;
    between.open();
    await imports.registry.idle();

    expect(job.id).toMatch(/^upl_[0-9a-f]{16}$/);
    expect(atStart).toEqual({ done: 1, total: 3 });
    expect(midway).toEqual({ status: 'running', progress: { done: 2, total: 3, docId: 'b.pdf' }, results: ['theirs.md', 'a.md'] });
    expect(job).toMatchObject({ status: 'succeeded', startedAt: 1000, finishedAt: 2000, progress: { done: 3, total: 3, docId: 'b.pdf' } });
    expect(job.results.map((result) => [result.docId, result.outcome])).toEqual([
      ['theirs.md', 'failed'],
      ['a.md', 'created'],
      ['b.pdf', 'failed'],
    ]);
  });

  test('a work that throws fails the job with its sentence; the outcomes before it stay', async () => {
    const imports = new ImportJobs({ now: () => 0 });
    const uploads = new UploadJobs(imports.registry);

    const job = uploads.start({ kbId: 'kb', startedBy: 'usr_1', files: ['a.md', 'b.md'] }, async (report) => {
      report.ended({ docId: 'a.md', outcome: 'created', passages: 1 });
      throw new Error('b.md: the knowledge base is unavailable; the files after it were not indexed');
    });
    await imports.registry.idle();

    expect(job).toMatchObject({ status: 'failed', error: 'b.md: the knowledge base is unavailable; the files after it were not indexed', progress: { done: 1, total: 2 } });
  });

  test(`at most ${MAX_RUNNING_UPLOADS} uploads run at once in a knowledge base: the next is refused, another knowledge base's starts`, async () => {
    const imports = new ImportJobs({ now: () => 0 });
    const uploads = new UploadJobs(imports.registry);
    const hold = gate();
    const start = (kbId: string) => uploads.start({ kbId, startedBy: 'usr_1', files: ['a.md'] }, () => hold.wait);
    for (let index = 0; index < MAX_RUNNING_UPLOADS; index += 1) start('kb');

    expect(() => start('kb')).toThrow(UploadsBusyError);
    expect(start('other').status).toBe('running');
    hold.open();
    await imports.registry.idle();
    expect(start('kb').status).toBe('running');
    await imports.registry.idle();
  });

  test('uploads share the imports’ registry: its listeners hear both kinds, its `running` counts both and its `idle()` waits for both; each kind lists and counts its own', async () => {
    const imports = new ImportJobs({ now: () => 0 });
    const uploads = new UploadJobs(imports.registry);
    const heard: string[] = [];
    imports.registry.subscribe({ ended: (job, kind: IngestJobKind) => heard.push(`${kind} ${job.status}`) });
    const hold = gate();
    const upload = uploads.start({ kbId: 'kb', startedBy: 'usr_1', files: ['a.md'] }, () => hold.wait);
    const site = imports.start({ kbId: 'kb', seed: { kind: 'pages', urls: ['https://a.example/'] }, startedBy: 'usr_1' }, async () => ({
      site: 'https://a.example',
      created: [],
      updated: [],
      unchanged: [],
      removed: [],
      skipped: [],
      failed: [],
      truncated: false,
      learned: [],
    }));
    await imports.idle();
    const runningMidway = [imports.registry.running, imports.running];
    let idle = false;
    const waited = imports.registry.idle().then(() => (idle = true));
    await tick();
    const idleBeforeUploadEnded = idle;
    hold.open();
    await waited;

    expect(runningMidway).toEqual([1, 0]);
    expect(idleBeforeUploadEnded).toBe(false);
    expect(heard).toEqual(['import succeeded', 'upload succeeded']);
    expect(imports.list('kb').map((job) => job.id)).toEqual([site.id]);
    expect(uploads.list('kb').map((job) => job.id)).toEqual([upload.id]);
    expect(imports.get('kb', upload.id)).toBeUndefined();
  });
});
