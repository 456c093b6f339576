import { describe, expect, test } from 'vitest';
import { ImportJobs, type ImportJob } from './import-jobs.ts';
import type { SiteIngestReport } from '../web/ingest-site.ts';

/** The job registry on its own: progress, outcome, failure, how many stay listed, listeners. */

const REPORT: SiteIngestReport = { site: 'https://a.example', created: ['a.example/index.html'], updated: [], unchanged: [], removed: [], skipped: [], failed: [], truncated: false, learned: [] };

function seed(n: number) {
  return { kbId: 'kb', seed: { kind: 'pages' as const, urls: [`https://a.example/${n}`] }, startedBy: 'usr_1' };
}

describe('ImportJobs', () => {
  test('a job reports its progress while it runs and its report when it ends; a failing one its error', async () => {
    let clock = 1000;
    const jobs = new ImportJobs({ now: () => clock });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = jobs.start(seed(1), async (onProgress) => {
      onProgress({ done: 1, total: 2, url: 'https://a.example/1' });
      await gate;
      return REPORT;
    });
    const failing = jobs.start(seed(2), async () => {
      throw new Error('https://a.example/2: the site could not be reached');
    });

    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([running.status, running.progress]).toEqual(['running', { phase: 'indexing', done: 1, total: 2, url: 'https://a.example/1' }]);
    clock = 2000;
    release();
    await jobs.idle();

    expect(running).toMatchObject({ status: 'succeeded', report: REPORT, startedAt: 1000, finishedAt: 2000 });
    expect(failing).toMatchObject({ status: 'failed', error: 'https://a.example/2: the site could not be reached' });
    expect(jobs.list('kb').map((job) => job.id)).toEqual([failing.id, running.id]);
    expect(jobs.get('kb', running.id)).toBe(running);
    expect(jobs.get('other', running.id)).toBeUndefined();
  });

  test('the oldest finished jobs make room, never a running one; listeners hear of every start and end', async () => {
    const jobs = new ImportJobs({ now: () => 0, keepPerKnowledgeBase: 2 });
    const heard: string[] = [];
    jobs.subscribe({ started: (job: ImportJob) => heard.push(`start ${job.seed.urls[0]}`), ended: (job: ImportJob) => heard.push(`${job.status} ${job.seed.urls[0]}`) });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = jobs.start(seed(1), async () => (await gate, REPORT));
    jobs.start(seed(2), async () => REPORT);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const third = jobs.start(seed(3), async () => REPORT);
    release();
    await jobs.idle();

    expect(jobs.list('kb').map((job) => job.id)).toEqual([third.id, slow.id]);
    expect(jobs.running).toBe(0);
    expect(heard.slice(0, 4)).toEqual(['start https://a.example/1', 'start https://a.example/2', 'succeeded https://a.example/2', 'start https://a.example/3']);
    expect(heard.slice(4).sort()).toEqual(['succeeded https://a.example/1', 'succeeded https://a.example/3']);
  });
});
