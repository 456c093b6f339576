import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Problem, QueryResponse } from '../protocol/query-protocol.ts';
import type { ConsoleFeedback } from '../server/console-api/feedback-page.ts';
import { DEMO_KB_ID } from '../server/seed.ts';
import { axeViolations } from './axe-audit.ts';
import { CHROMIUM_LAUNCH, startDemo, type StartedDemo } from './start-server.ts';

/**
 * Feedback (docs/widget.md, docs/console.md "Insights") as a visitor and an editor meet it, in Debian's Chromium:
 * `npm start` on an empty data folder, the demo page on its own origin. The
 * visitor rates an answer down with a reason and a comment, and reports a
 * broken link on one of its sources; the owner, signed in to the console
 * API, reads both records; a span altered on its way back is refused. axe
 * (WCAG 2.2 AA) finds nothing in any of those states, at 1280 and 360 px.
 */
const PASSWORD = 'journey password 2026';
const QUESTION = 'How do I create a directory and its parent directories?';

let demo: StartedDemo | undefined;
let browser: Browser;
let apiUrl: string;
let demoPort: number;

beforeAll(async () => {
  demo = await startDemo('kb-e2e-feedback-', { KB_OWNER_PASSWORD: PASSWORD });
  ({ apiUrl, demoPort } = demo);
  browser = await chromium.launch(CHROMIUM_LAUNCH);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

/** The inline widget of the demo page. */
function inlineWidget(page: Page) {
  return page.locator('kb-widget[mode="inline"]');
}

/** The feedback records of the demo knowledge base, newest first, read through the console API as its owner. */
async function feedbackAsOwner(page: Page): Promise<ConsoleFeedback[]> {
  const request = page.context().request;
  const signIn = await request.post(`${apiUrl}/console/api/session`, {
    headers: { Origin: apiUrl },
    data: { email: 'owner@example.com', password: PASSWORD },
  });
  expect(signIn.status()).toBe(204);
  const listed = await request.get(`${apiUrl}/console/api/knowledge-bases/${DEMO_KB_ID}/feedback?limit=10`, { headers: { Origin: apiUrl } });
  expect(listed.status()).toBe(200);
  return ((await listed.json()) as { feedback: ConsoleFeedback[] }).feedback;
}

for (const width of [1280, 360]) {
  describe(`feedback journeys at ${width} px, axe-core (WCAG 2.2 AA) clean in every state`, () => {
    async function askOnDemo(): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height: 760 }, reducedMotion: 'reduce' });
      const page = await context.newPage();
      await page.goto(`http://localhost:${demoPort}/`);
      const widget = inlineWidget(page);
      await widget.getByRole('textbox', { name: 'Your question' }).fill(QUESTION);
      await widget.getByRole('textbox', { name: 'Your question' }).press('Enter');
      await expect.poll(() => widget.locator('article.answer').count(), { timeout: 20_000 }).toBe(1);
      return page;
    }

    test('a 👎 with a reason and a comment: thanked, stored, and readable by the owner through the console API', async () => {
      const page = await askOnDemo();
      const widget = inlineWidget(page);
      const comment = `Nothing about Windows paths (${width} px)`;

      await widget.getByRole('button', { name: 'Not helpful' }).click();
      await widget.getByRole('radio', { name: 'Out of date' }).check();
      await widget.getByRole('textbox', { name: 'Comment (optional)' }).fill(comment);
      expect(await widget.getByRole('button', { name: 'Not helpful' }).getAttribute('aria-pressed')).toBe('true');
      expect(await axeViolations(page)).toEqual([]);
      const sent = page.waitForResponse((response) => response.url().endsWith('/widget/feedback'));
      await widget.getByRole('button', { name: 'Send' }).click();

      expect((await sent).status()).toBe(204);
      await expect.poll(() => widget.getByRole('status').filter({ hasText: 'Thanks for the feedback' }).count()).toBe(1);
      expect(await widget.locator('form.feedback').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      const [record] = await feedbackAsOwner(page);
      expect(record).toMatchObject({
        kind: 'rating',
        question: QUESTION,
        provenance: 'generated',
        rating: 'down',
        reason: 'out_of_date',
        comment,
        unlisted_passages: 0,
      });
      expect(record!.passages.length).toBeGreaterThan(0);
      expect(record!.passages[0]).toEqual({ doc_id: 'fs.md', title: expect.stringMatching(/File system/) });
      await page.context().close();
    }, 90_000);

    test('"Report a problem" on a source with a genuine span: accepted and stored; the same span altered: refused as 400 naming it', async () => {
      const page = await askOnDemo();
      const widget = inlineWidget(page);
      const report = widget.getByRole('button', { name: /^Report a problem/ }).first();

      await report.click();
      expect(await report.getAttribute('aria-expanded')).toBe('true');
      await widget.getByRole('radio', { name: 'Broken link' }).check();
      expect(await axeViolations(page)).toEqual([]);
      const sent = page.waitForResponse((response) => response.url().endsWith('/widget/feedback'));
      await widget.getByRole('button', { name: 'Send' }).click();

      expect((await sent).status()).toBe(204);
      await expect.poll(() => widget.getByRole('status').filter({ hasText: 'Thanks for the feedback' }).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
      const [record] = await feedbackAsOwner(page);
      expect(record).toMatchObject({ kind: 'problem', question: QUESTION, reason: 'broken_link', passages: [{ doc_id: 'fs.md' }] });

      // The page's own token, from the page's origin: a genuine span is accepted, the same span altered is not.
      const outcomes = await page.evaluate(
        async ({ api, kbId, question }) => {
          const token = (document.querySelector('kb-widget[mode="inline"]') as HTMLElement & { token: string }).token;
          const post = (path: string, body: unknown) =>
            fetch(`${api}/kb-api/api/v1/kb/${kbId}/widget/${path}`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
              body: JSON.stringify(body),
            });
          const answer = (await (await post('query', { question })).json()) as QueryResponse;
          const span = answer.citations[0]!.source_span;
          const altered = { ref: `${span.ref.slice(0, 10)}${span.ref[10] === 'A' ? 'B' : 'A'}${span.ref.slice(11)}` };
          const body = (sourceSpan: unknown) => ({ kind: 'problem', question, provenance: answer.provenance, source_span: sourceSpan, reason: 'incorrect' });
          const genuine = await post('feedback', body(span));
          const refused = await post('feedback', body(altered));
          return { genuine: genuine.status, refused: refused.status, problem: (await refused.json()) as Problem };
        },
        { api: apiUrl, kbId: DEMO_KB_ID, question: QUESTION },
      );
      expect(outcomes.genuine).toBe(204);
      expect(outcomes.refused).toBe(400);
      expect(outcomes.problem).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining('"source_span"') });
      await page.context().close();
    }, 90_000);
  });
}
