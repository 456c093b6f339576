import { chromium, type Browser, type BrowserContextOptions, type Page, type Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { issueToken } from '../server/auth/widget-tokens.ts';
import { DEMO_KB_ID } from '../server/seed.ts';
import { embeddedStoreLocation, openStore } from '../server/store/open-store.ts';
import { axeViolations } from './axe-audit.ts';
import { CHROMIUM_LAUNCH, startDemo, type StartedDemo } from './start-server.ts';

/**
 * The widget and the server together, as a visitor meets them: `npm start`
 * on an empty data folder, the demo page it serves on a second origin, driven
 * in Debian's Chromium by Playwright (no downloaded browser). From
 * `http://localhost:<demo>` the page's token is allowed; the same page at
 * `http://127.0.0.1:<demo>` is a different origin, which the token refuses.
 * Tokens are limited here to {@link QUESTIONS_PER_TOKEN} questions a
 * minute, so a page can meet a real 429. The demo server hands every load
 * the same token while it is valid, so each test gives its page a token of
 * its own ({@link giveOwnToken}): one test's questions never count against
 * another's.
 */
const QUESTION = 'How do I create a directory and its parent directories?';
const QUESTIONS_PER_TOKEN = 4;
/** Questions the Node.js docs answer, for journeys that ask several. */
const QUESTIONS = [
  QUESTION,
  'How do I parse command line arguments?',
  'How do I watch a file for changes?',
  'How do I read a file line by line?',
];
const UNANSWERABLE = 'What is the capital of Australia?';
/** The demo page's `support-url`. */
const SUPPORT_URL = 'https://riverbank-functions.example/support';

let dataDir: string;
let demo: StartedDemo | undefined;
let browser: Browser;
let demoPort: number;

/** The inline widget of the demo page. */
function inlineWidget(page: Page) {
  return page.locator('kb-widget[mode="inline"]');
}

/** A token for the demo page's origin issued through the server's store (as `npm run kb -- token issue` would), living `ttlMinutes` from `issuedAt`. */
async function issueDemoPageToken(issuedAt: number, ttlMinutes = 60): Promise<string> {
  const store = openStore(embeddedStoreLocation(dataDir));
  try {
    const owner = (await store.findUserByEmail('owner@example.com'))!;
    const { token } = await issueToken(
      store,
      { kbId: DEMO_KB_ID, issuerId: owner.id, allowedOrigins: [`http://localhost:${demoPort}`], ttlMinutes },
      { ttlCapMinutes: 60, now: issuedAt },
    );
    return token;
  } finally {
    await store.close();
  }
}

/** Gives every widget of the loaded page a token of its own, so the per-token rate limit counts this page's questions only. */
async function giveOwnToken(page: Page): Promise<void> {
  const token = await issueDemoPageToken(Date.now());
  for (const widget of await page.locator('kb-widget').all()) {
    await widget.evaluate((element, own) => {
      (element as HTMLElement & { token: string }).token = own;
    }, token);
  }
}

async function ask(page: Page, question: string): Promise<void> {
  const widget = inlineWidget(page);
  await widget.getByRole('textbox', { name: 'Your question' }).fill(question);
  await widget.getByRole('textbox', { name: 'Your question' }).press('Enter');
}

/** Asks in the inline widget and waits until that question's turn has finished (answered, abstained or failed). */
async function askAndWait(page: Page, question: string): Promise<void> {
  const finished = inlineWidget(page).locator('article.answer');
  const before = await finished.count();
  await ask(page, question);
  await expect.poll(() => finished.count(), { timeout: 20_000 }).toBe(before + 1);
}

/** Where the inline widget's transcript is scrolled, and whether its latest question lies fully in view. */
function transcriptState(page: Page): Promise<{ scrollTop: number; belowView: number; latestQuestionInView: boolean }> {
  return inlineWidget(page).evaluate((element) => {
    const transcript = element.shadowRoot!.querySelector<HTMLElement>('.transcript')!;
    const view = transcript.getBoundingClientRect();
    const question = [...transcript.querySelectorAll('.question')].at(-1)?.getBoundingClientRect();
    return {
      scrollTop: transcript.scrollTop,
      belowView: transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight,
      latestQuestionInView: question !== undefined && question.top >= view.top - 1 && question.bottom <= view.bottom + 1,
    };
  });
}

function isStreamRequest(response: Response): boolean {
  return response.url().includes('/widget/query/stream');
}

beforeAll(async () => {
  demo = await startDemo('kb-e2e-widget-', { KB_RATE_LIMIT_PER_TOKEN: String(QUESTIONS_PER_TOKEN) });
  ({ dataDir, demoPort } = demo);
  browser = await chromium.launch(CHROMIUM_LAUNCH);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

describe('the demo page on an allowed origin', () => {
  test('a question: streamed answer with a citation link and suggestions; a suggestion asks again', async () => {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${demoPort}/`);
    await giveOwnToken(page);
    const widget = inlineWidget(page);
    const streamed = page.waitForResponse(isStreamRequest);

    await ask(page, QUESTION);

    const response = await streamed;
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('text/event-stream; charset=utf-8');
    await expect.poll(() => widget.locator('article.answer').first().textContent()).toContain('recursive');
    await expect.poll(() => widget.locator('a.citation').count()).toBeGreaterThan(0);
    await expect.poll(() => widget.locator('li[part="citation"] .title').first().textContent()).toContain('File system');
    const suggestion = widget.locator('button.chip').first();
    const suggested = (await suggestion.textContent())!.trim();

    await suggestion.click();

    await expect.poll(() => widget.locator('p.question').nth(1).textContent()).toBe(suggested);
    await expect.poll(() => widget.locator('article.answer').count()).toBe(2);
    await page.close();
  });

  test('a long answer on a slow connection: Stop keeps what arrived and nothing more is added', async () => {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${demoPort}/`);
    await giveOwnToken(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 50, downloadThroughput: 1500, uploadThroughput: 100_000 });
    const widget = inlineWidget(page);

    await ask(page, QUESTION);
    await expect.poll(() => widget.locator('.answer').first().textContent(), { timeout: 20_000 }).toMatch(/\w{3,}/);
    await widget.getByRole('button', { name: 'Stop' }).click();
    const kept = await widget.locator('.answer').first().textContent();
    await page.waitForTimeout(1500);

    expect(await widget.locator('.answer').first().textContent()).toBe(kept);
    expect(await widget.locator('p.status').last().textContent()).toBe('You stopped this answer.');
    await page.close();
  });

  test('an expired token: the widget says the session expired', async () => {
    const expired = await issueDemoPageToken(Date.now() - 2 * 60 * 60_000);
    const page = await browser.newPage();
    await page.goto(`http://localhost:${demoPort}/`);
    await inlineWidget(page).evaluate((element, token) => {
      const widget = element as HTMLElement & { token: string; tokenProvider: unknown };
      widget.tokenProvider = undefined;
      widget.token = token;
    }, expired);

    await ask(page, QUESTION);

    await expect.poll(() => inlineWidget(page).locator('.notice').textContent()).toContain('This chat session has expired');
    await page.close();
  });

  test('keyboard only: open the launcher, ask, read the answer, Escape returns focus to the launcher', async () => {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${demoPort}/`);
    await giveOwnToken(page);
    const launcherWidget = page.locator('kb-widget:not([mode="inline"])');
    const launcher = launcherWidget.getByRole('button', { name: 'Open the assistant' });
    await launcher.focus();

    await page.keyboard.press('Enter');
    await expect.poll(() => launcherWidget.evaluate((element) => element.shadowRoot!.activeElement?.tagName)).toBe('INPUT');
    await page.keyboard.type(QUESTION);
    await page.keyboard.press('Enter');
    await expect.poll(() => launcherWidget.locator('article.answer').first().textContent()).toContain('recursive');
    await page.keyboard.press('Escape');

    await expect.poll(() => launcherWidget.evaluate((element) => element.shadowRoot!.activeElement?.className)).toBe('launcher');
    expect(await launcherWidget.locator('.launcher').getAttribute('aria-expanded')).toBe('false');
    await page.close();
  });
});

describe('the same page on an origin the token does not allow', () => {
  test('the widget says the site is not allowed; the network shows a 403 problem and no stream', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${demoPort}/`);
    const refused = page.waitForResponse(isStreamRequest);

    await ask(page, QUESTION);

    const response = await refused;
    expect(response.status()).toBe(403);
    expect(response.headers()['content-type']).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ status: 403, code: 'origin_not_allowed' });
    await expect.poll(() => inlineWidget(page).locator('.notice').textContent()).toContain("This site isn't allowed to use this assistant.");
    expect(await inlineWidget(page).locator('.answer').first().textContent()).toBe('');
    await page.close();
  });
});

for (const width of [1280, 360]) {
  describe(`visitor journeys at ${width} px, axe-core (WCAG 2.2 AA) clean in every state`, () => {
    /** The demo page in a fresh context at this width, animations off (axe reads settled colours). */
    async function openDemo(options: BrowserContextOptions = {}): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height: 760 }, reducedMotion: 'reduce', ...options });
      const page = await context.newPage();
      await page.goto(`http://localhost:${demoPort}/`);
      await expect.poll(() => inlineWidget(page).locator('.panel').count()).toBe(1);
      await giveOwnToken(page);
      return page;
    }

    test('the demo page in light and in dark mode: no violations, an answer with an opened quote included; the inline widget follows the system theme', async () => {
      const page = await openDemo();
      const panelBackground = () => inlineWidget(page).locator('.panel').evaluate((panel) => getComputedStyle(panel).backgroundColor);
      expect(await axeViolations(page)).toEqual([]);
      expect(await panelBackground()).toBe('rgb(255, 255, 255)');

      await page.emulateMedia({ colorScheme: 'dark' });

      expect(await panelBackground()).toBe('rgb(31, 34, 39)');
      expect(await axeViolations(page)).toEqual([]);
      await askAndWait(page, QUESTION);
      await inlineWidget(page).locator('summary').first().click();
      expect(await inlineWidget(page).locator('details[open] mark').count()).toBeGreaterThan(0);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    });

    test('four questions: each question and its answer scroll into view; scrolled up with nothing new below, no "Jump to latest" covers the transcript', async () => {
      const page = await openDemo();
      const widget = inlineWidget(page);

      for (const question of QUESTIONS) {
        await askAndWait(page, question);
        expect((await transcriptState(page)).latestQuestionInView).toBe(true);
      }
      expect((await transcriptState(page)).scrollTop).toBeGreaterThan(0);
      expect(await axeViolations(page)).toEqual([]);

      // The pill shows only for words arriving below while the visitor reads above (widget/kb-widget.browser.test.ts streams them).
      await widget.locator('.transcript').evaluate((transcript) => transcript.scrollTo({ top: 0 }));
      await page.waitForTimeout(300);
      expect(await widget.getByRole('button', { name: /Jump to latest/ }).count()).toBe(0);
      expect((await transcriptState(page)).scrollTop).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    }, 90_000);

    test("sources: the document's title, linked to the section on nodejs.org in a new tab; the opened quote marks the sentences used and takes keyboard focus", async () => {
      const page = await openDemo();
      const widget = inlineWidget(page);
      await askAndWait(page, QUESTION);
      const firstSource = widget.locator('li[part="citation"]').first();

      expect(await firstSource.locator('.title').textContent()).toContain('File system');
      const link = firstSource.locator('a').first();
      expect(await link.getAttribute('href')).toMatch(/^https:\/\/nodejs\.org\/docs\/latest-v18\.x\/api\/fs\.html#\w/);
      expect(await link.getAttribute('target')).toBe('_blank');
      const summary = firstSource.locator('summary').first();
      expect(await summary.textContent()).toMatch(/^Quote \[\d+\] · .*fs\.mkdir/);
      await summary.click();
      await page.keyboard.press('Tab');

      expect(await firstSource.locator('details[open] mark').count()).toBeGreaterThan(0);
      expect(await widget.evaluate((element) => element.shadowRoot!.activeElement?.tagName)).toBe('BLOCKQUOTE');
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    });

    test('a question the docs cannot answer: the abstention offers "Contact support", opening the support page in a new tab', async () => {
      const page = await openDemo();

      await askAndWait(page, UNANSWERABLE);

      const support = inlineWidget(page).getByRole('link', { name: /Contact support/ });
      expect(await support.getAttribute('href')).toBe(SUPPORT_URL);
      expect(await support.getAttribute('target')).toBe('_blank');
      expect(await support.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    });

    test('Copy answer: the answer with its sources reaches the clipboard; the button says "Copied"', async () => {
      const page = await openDemo({ permissions: ['clipboard-read', 'clipboard-write'] });
      const widget = inlineWidget(page);
      await askAndWait(page, QUESTION);

      await widget.getByRole('button', { name: 'Copy answer' }).click();

      await expect.poll(() => widget.locator('.actions .copy').textContent()).toBe('Copied');
      expect(await widget.locator('p[role="status"]').textContent()).toBe('Copied');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toContain('recursive');
      expect(copied).toMatch(/^\[1\] File system/m);
      expect(await axeViolations(page)).toEqual([]);
      await page.context().close();
    });

    test(`question ${QUESTIONS_PER_TOKEN + 1} within a minute: a real 429, the retry button counts down Retry-After and asks nothing until then`, async () => {
      const page = await openDemo();
      const widget = inlineWidget(page);
      for (const question of QUESTIONS) await askAndWait(page, question);
      const refused = page.waitForResponse(isStreamRequest);

      await askAndWait(page, UNANSWERABLE);

      const response = await refused;
      expect(response.status()).toBe(429);
      const retryAfter = Number(response.headers()['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(await widget.locator('.notice [role="alert"]').textContent()).toContain('Too many questions right now');
      const retry = widget.locator('.retry');
      const secondsLeft = async () => Number(/^Try again in (\d+) s$/.exec((await retry.textContent())!.trim())?.[1]);
      const first = await secondsLeft();
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(retryAfter);
      expect(await retry.getAttribute('aria-disabled')).toBe('true');
      expect(await axeViolations(page)).toEqual([]);
      let asked = 0;
      page.on('request', (request) => {
        if (request.url().includes('/widget/query/stream') && request.method() === 'POST') asked += 1;
      });

      await retry.focus();
      await page.keyboard.press('Enter');

      await expect.poll(secondsLeft, { timeout: 5000 }).toBeLessThan(first);
      expect(asked).toBe(0);
      expect(await widget.locator('p.question').count()).toBe(QUESTIONS.length + 1);
      await page.context().close();
    }, 90_000);

    test('reload: the conversation is still there; "New conversation" clears it, also for the next reload', async () => {
      const page = await openDemo();
      const widget = inlineWidget(page);
      await askAndWait(page, QUESTION);
      const answer = await widget.locator('article.answer').textContent();

      await page.reload();

      await expect.poll(() => widget.locator('p.question').textContent()).toBe(QUESTION);
      expect(await widget.locator('article.answer').textContent()).toBe(answer);
      expect(await widget.locator('li[part="citation"]').count()).toBeGreaterThan(0);
      expect(await axeViolations(page)).toEqual([]);
      await widget.getByRole('button', { name: 'New conversation' }).click();
      expect(await widget.locator('p.question').count()).toBe(0);
      expect(await widget.locator('button.chip').count()).toBe(3);
      await page.reload();
      await expect.poll(() => widget.locator('button.chip').count()).toBe(3);
      expect(await widget.locator('p.question').count()).toBe(0);
      await page.context().close();
    });

    test('launcher: Ctrl+K opens it on the greeting and starters; a starter asks; "Close the assistant" closes it and focus returns', async () => {
      const page = await openDemo();
      const launcherWidget = page.locator('kb-widget:not([mode="inline"])');
      const panel = launcherWidget.locator('.panel');
      const launcher = launcherWidget.getByRole('button', { name: 'Open the assistant' });

      await page.keyboard.press('Control+k');

      await expect.poll(() => panel.isVisible()).toBe(true);
      expect(await launcherWidget.locator('.greeting').textContent()).toContain('Ask me anything');
      expect(await launcherWidget.evaluate((element) => element.shadowRoot!.activeElement?.tagName)).toBe('INPUT');
      if (width < 480) {
        expect(await panel.boundingBox()).toEqual({ x: 0, y: 0, width, height: 760 });
        expect(await launcher.isVisible()).toBe(false);
      } else {
        expect(await launcher.getAttribute('aria-expanded')).toBe('true');
      }
      expect(await axeViolations(page)).toEqual([]);
      await launcherWidget.locator('button.chip').first().click();
      await expect.poll(() => launcherWidget.locator('article.answer').count(), { timeout: 20_000 }).toBe(1);
      expect(await axeViolations(page)).toEqual([]);

      await launcherWidget.getByRole('button', { name: 'Close the assistant' }).click();

      expect(await panel.isVisible()).toBe(false);
      await expect.poll(() => launcherWidget.evaluate((element) => element.shadowRoot!.activeElement?.className)).toBe('launcher');
      expect(await launcher.isVisible()).toBe(true);
      await page.context().close();
    });
  });
}
