import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CHROMIUM_LAUNCH, startDemo, type StartedDemo } from './start-server.ts';

/**
 * The Developers tab's journey (docs/console.md "Developers") in Debian's Chromium: sign in at `/console`, open the
 * Developers tab, issue a token for the demo page's origin, ask a question in
 * the tab's live preview (a preview token limited to the console's origin)
 * and see a cited answer, paste the issued token into the demo page's widget,
 * ask a question, revoke the token in the console, and see the widget report
 * the revoked token on the next question.
 */
const PASSWORD = 'journey password 2026';
const QUESTION = 'How do I create a directory and its parent directories?';

let demo: StartedDemo | undefined;
let browser: Browser;
let apiUrl: string;
let demoPort: number;

beforeAll(async () => {
  demo = await startDemo('kb-e2e-console-', { KB_OWNER_PASSWORD: PASSWORD });
  ({ apiUrl, demoPort } = demo);
  browser = await chromium.launch(CHROMIUM_LAUNCH);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

test('sign in, issue a token on the Developers tab, preview it, embed it, ask, revoke: the next question reports the revoked token', async () => {
  const context = await browser.newContext();
  const console = await context.newPage();
  const policyViolations: string[] = [];
  console.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) policyViolations.push(message.text());
  });
  await console.goto(`${apiUrl}/console`);
  await console.getByLabel('Email').fill('owner@example.com');
  await console.getByLabel('Password').fill(PASSWORD);
  await console.getByRole('button', { name: 'Sign in' }).click();
  await console.getByRole('link', { name: /Node\.js API documentation/ }).click();
  await console.getByRole('link', { name: 'Developers' }).click();
  await console.getByLabel('Allowed origins').fill(`http://localhost:${demoPort}`);
  await console.getByRole('button', { name: 'Issue token' }).click();
  const snippet = (await console.locator('pre').filter({ hasText: '<kb-widget' }).first().textContent())!;
  const token = /token="(kbw_[^"]+)"/.exec(snippet)![1]!;
  expect(snippet).toContain(`<script src="${apiUrl}/widget/kb-widget.js"></script>`);

  const preview = console.locator('kb-widget-preview kb-widget');
  await preview.getByRole('textbox', { name: 'Your question' }).fill(QUESTION);
  await preview.getByRole('textbox', { name: 'Your question' }).press('Enter');
  await expect.poll(() => preview.locator('article.answer').first().textContent()).toContain('recursive');
  await expect.poll(() => preview.locator('a.citation').count()).toBeGreaterThan(0);
  await expect.poll(() => preview.locator('li[part="citation"] .title').first().textContent()).toContain('File system');
  const previewRow = console.locator('tbody tr', { hasText: 'Preview' });
  await expect.poll(() => previewRow.count()).toBe(1);
  expect(await previewRow.textContent()).toContain(apiUrl);
  expect(policyViolations).toEqual([]);

  const demo = await context.newPage();
  await demo.goto(`http://localhost:${demoPort}/`);
  const widget = demo.locator('kb-widget[mode="inline"]');
  await widget.evaluate((element, issued) => {
    const embedded = element as HTMLElement & { token: string; tokenProvider: unknown };
    embedded.tokenProvider = undefined;
    embedded.token = issued;
  }, token);
  await widget.getByRole('textbox', { name: 'Your question' }).fill(QUESTION);
  await widget.getByRole('textbox', { name: 'Your question' }).press('Enter');
  await expect.poll(() => widget.locator('article.answer').first().textContent()).toContain('recursive');

  // The embed token issued above, told apart by its Revoke button's name from the demo page's own token (purpose demo) for the same origin.
  const revokeName = new RegExp(`^Revoke embed token …[\\w-]{4}, created \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d, for http://localhost:${demoPort}$`);
  const tokenId = await console.locator('tbody tr').filter({ has: console.getByRole('button', { name: revokeName }) }).getAttribute('data-token-id');
  const issuedRow = console.locator(`tbody tr[data-token-id="${tokenId}"]`);
  await issuedRow.getByRole('button', { name: revokeName }).click();
  await issuedRow.getByRole('button', { name: /^Confirm revoke embed token/ }).click();
  await expect.poll(() => issuedRow.textContent()).toContain('revoked');

  await widget.getByRole('textbox', { name: 'Your question' }).fill(QUESTION);
  await widget.getByRole('textbox', { name: 'Your question' }).press('Enter');
  await expect.poll(() => widget.locator('.notice').last().textContent()).toContain('This assistant has been switched off for this site.');
  await context.close();
});
