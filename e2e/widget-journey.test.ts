import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { issueToken } from '../server/auth/widget-tokens.ts';
import { DEMO_KB_ID } from '../server/seed.ts';
import { embeddedStoreLocation, openStore } from '../server/store/open-store.ts';
import { CHROMIUM_LAUNCH, freePort, startServer, stopServer } from './start-server.ts';

/**
 * The widget and the server together, as a visitor meets them: `npm start`
 * on an empty data folder, the demo page it serves on a second origin, driven
 * in Debian's Chromium by Playwright (no downloaded browser). From
 * `http://localhost:<demo>` the page's token is allowed; the same page at
 * `http://127.0.0.1:<demo>` is a different origin, which the token refuses.
 */
const QUESTION = 'How do I create a directory together with its missing parent directories?';

let dataDir: string;
let server: ChildProcess | undefined;
let browser: Browser;
let demoPort: number;

/** The inline widget of the demo page. */
function inlineWidget(page: Page) {
  return page.locator('kb-widget[mode="inline"]');
}

async function ask(page: Page, question: string): Promise<void> {
  const widget = inlineWidget(page);
  await widget.getByRole('textbox', { name: 'Your question' }).fill(question);
  await widget.getByRole('textbox', { name: 'Your question' }).press('Enter');
}

function isStreamRequest(response: Response): boolean {
  return response.url().includes('/widget/query/stream');
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'kb-e2e-widget-'));
  demoPort = await freePort();
  server = (
    await startServer({ PORT: '0', KB_DEMO_PORT: String(demoPort), KB_DATA_DIR: dataDir }, (output) =>
      output.includes('demo page: http://localhost:'),
    )
  ).process;
  browser = await chromium.launch(CHROMIUM_LAUNCH);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stopServer(server);
  await rm(dataDir, { recursive: true, force: true });
});

describe('the demo page on an allowed origin', () => {
  test('a question: streamed answer with a citation link and suggestions; a suggestion asks again', async () => {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${demoPort}/`);
    const widget = inlineWidget(page);
    const streamed = page.waitForResponse(isStreamRequest);

    await ask(page, QUESTION);

    const response = await streamed;
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('text/event-stream; charset=utf-8');
    await expect.poll(() => widget.locator('article.answer').first().textContent()).toContain('recursive');
    await expect.poll(() => widget.locator('a.citation').count()).toBeGreaterThan(0);
    await expect.poll(() => widget.locator('li[part="citation"]').first().textContent()).toContain('fs.md');
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
    const store = openStore(embeddedStoreLocation(dataDir));
    let expired: string;
    try {
      const owner = (await store.findUserByEmail('owner@example.com'))!;
      const issuedAt = Date.now() - 2 * 60 * 60_000;
      ({ token: expired } = await issueToken(
        store,
        { kbId: DEMO_KB_ID, issuerId: owner.id, allowedOrigins: [`http://localhost:${demoPort}`] },
        { ttlCapMinutes: 60, now: issuedAt },
      ));
    } finally {
      await store.close();
    }
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
