import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makePdf } from '../server/testing/pdf-fixture.ts';
import { docsPage, serveTestSite, type TestSite } from '../server/testing/test-site.ts';
import { axeViolations } from './axe-audit.ts';
import { CHROMIUM_LAUNCH, startDemo, type StartedDemo } from './start-server.ts';

/**
 * The console's journey (docs/console.md) in Debian's Chromium, against `npm start` on an empty
 * data folder (private addresses allowed to the importer, so that it may
 * read the site this test serves on loopback): the owner signs in, uploads
 * a markdown file and a PDF, imports a three-page site through its sitemap;
 * a visitor on the demo page asks a question the PDF answers and one nobody
 * can, and rates the first 👎; the owner sees both questions, the abstention
 * and the 👎 in Insights, turns the unanswered question into a curated
 * answer with "Answer this"; asked again, it is answered with
 * `provenance: "qa_shortcut"`.
 */
const PASSWORD = 'journey password 2026';
const ANSWERED = 'How long does the quokka router warranty last?';
const UNANSWERED = 'What is the capybara loyalty discount?';
const CURATED = 'Capybara loyalty discounts are handled by the support desk [1].';

let demo: StartedDemo | undefined;
let site: TestSite | undefined;
let browser: Browser;
let apiUrl: string;
let demoPort: number;

beforeAll(async () => {
  demo = await startDemo('kb-e2e-run-console-', { KB_OWNER_PASSWORD: PASSWORD, KB_IMPORT_ALLOW_PRIVATE_ADDRESSES: 'true' });
  ({ apiUrl, demoPort } = demo);
  const navigation = '<a href="/help/">Help</a> <a href="/help/shipping">Shipping</a> <a href="/help/returns">Returns</a>';
  site = await serveTestSite({
    '/help/': { type: 'text/html', body: docsPage('Help centre', '<p>Welcome to the help centre of the quokka shop.</p>', navigation) },
    '/help/shipping': { type: 'text/html', body: docsPage('Shipping', '<p>Parcels leave the warehouse within two working days.</p>', navigation) },
    '/help/returns': { type: 'text/html', body: docsPage('Returns', '<p>Send unused items back within thirty days for a refund.</p>', navigation) },
  });
  site.resources.set('/sitemap.xml', {
    type: 'application/xml',
    body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/help/', '/help/shipping', '/help/returns'].map((path) => `<url><loc>${site!.origin}${path}</loc></url>`).join('')}</urlset>`,
  });
  browser = await chromium.launch(CHROMIUM_LAUNCH);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await demo?.stop();
});

/** A locator's text as read on screen: runs of white space as one space. */
async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * Asks on the demo page's inline widget; resolves to the stream's frames
 * once the answer has ended (read on their way to the page: a streamed
 * body cannot be read back from the browser).
 */
async function ask(page: Page, question: string): Promise<string> {
  const widget = page.locator('kb-widget[mode="inline"]');
  let received!: (frames: string) => void;
  const frames = new Promise<string>((resolve) => (received = resolve));
  await page.route('**/widget/query/stream', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const response = await route.fetch();
    const body = await response.text();
    received(body);
    await route.fulfill({ response, body });
  });
  await widget.getByRole('textbox', { name: 'Your question' }).fill(question);
  await widget.getByRole('textbox', { name: 'Your question' }).press('Enter');
  const streamed = await frames;
  await page.unroute('**/widget/query/stream');
  return streamed;
}

test('upload, import a site, a visitor asks and rates, Insights shows it, Answer this makes a curated answer that answers the next visitor', async () => {
  const console = await (await browser.newContext()).newPage();
  // Every violation of the console's content-security policy, on any page of the journey (none allowed).
  const policyViolations: string[] = [];
  await console.exposeFunction('reportPolicyViolation', (violation: string) => policyViolations.push(violation));
  await console.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      (window as unknown as { reportPolicyViolation(violation: string): void }).reportPolicyViolation(`${event.violatedDirective}: ${event.blockedURI} ${event.sourceFile}:${event.lineNumber} ${event.sample}`),
    );
  });
  await console.goto(`${apiUrl}/console`);
  await console.getByLabel('Email').fill('owner@example.com');
  await console.getByLabel('Password').fill(PASSWORD);
  await console.getByRole('button', { name: 'Sign in' }).click();
  await console.getByRole('link', { name: /Node\.js API documentation/ }).click();

  // Documents: a markdown file and a PDF, then a three-page site through its sitemap.
  const pdf = await makePdf([[{ text: 'Quokka router warranty', size: 20 }, { text: 'The warranty of the quokka router lasts three years from the day of purchase.' }]]);
  await console.getByRole('button', { name: 'Upload files' }).click();
  await console.getByLabel('Files').setInputFiles([
    { name: 'support-desk.md', mimeType: 'text/markdown', buffer: Buffer.from('# Support desk\n\nThe support desk answers the phone on weekdays from nine to five.\n') },
    { name: 'router-warranty.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdf) },
  ]);
  await console.getByRole('button', { name: 'Upload', exact: true }).click();
  const uploaded = console.getByRole('list', { name: 'Uploaded files' });
  await expect.poll(() => text(uploaded), { timeout: 30_000 }).toMatch(/router-warranty\.pdf: created.*support-desk\.md: created|support-desk\.md: created.*router-warranty\.pdf: created/);

  await console.getByRole('button', { name: 'Import a website' }).click();
  await console.getByRole('radio', { name: 'A sitemap' }).check();
  await console.getByLabel('Sitemap URL').fill(`${site!.origin}/sitemap.xml`);
  await console.getByLabel('Import again').selectOption('Every week');
  await console.getByRole('button', { name: 'Import', exact: true }).click();
  await expect
    .poll(() => text(console.getByRole('status').filter({ hasText: 'Imported from' })), { timeout: 60_000 })
    .toContain(`Imported from ${site!.origin}: 3 created, 0 updated, 0 unchanged, 0 removed, 0 skipped, 0 failed.`);
  await expect.poll(() => console.locator('tbody tr', { hasText: '/help/shipping.html' }).count()).toBe(1);
  await expect
    .poll(() => text(console.getByRole('region', { name: 'Re-synced websites' }).getByRole('listitem')))
    .toMatch(new RegExp(`^${site!.origin}/sitemap\\.xml \\(sitemap\\), every week, set up by .*Last sync .*: 3 created, 0 updated`));
  expect(await axeViolations(console)).toEqual([]);

  // A visitor asks on the demo page: one answered by the PDF (rated 👎), one nobody can answer.
  const visitor = await (await browser.newContext()).newPage();
  await visitor.goto(`http://localhost:${demoPort}/`);
  const widget = visitor.locator('kb-widget[mode="inline"]');
  const answered = await ask(visitor, ANSWERED);
  expect(answered).toContain('"provenance":"generated"');
  await expect.poll(() => widget.locator('article.answer').last().textContent()).toContain('three years');
  await expect.poll(() => widget.locator('li[part="citation"] .title').first().textContent()).toContain('Quokka router warranty');
  await widget.getByRole('button', { name: 'Not helpful' }).last().click();
  await widget.getByRole('radio', { name: 'Incorrect' }).check();
  const rated = visitor.waitForResponse((response) => response.url().endsWith('/widget/feedback'));
  await widget.getByRole('button', { name: 'Send' }).click();
  expect((await rated).status()).toBe(204);
  expect(await ask(visitor, UNANSWERED)).toContain('"provenance":"abstained"');

  // Insights: both questions, the abstention as a coverage gap, the 👎.
  await console.getByRole('link', { name: 'Insights' }).click();
  await expect
    .poll(
      async () => {
        await console.getByRole('link', { name: 'Documents' }).click();
        await console.getByRole('link', { name: 'Insights' }).click();
        return text(console.locator('.summary'));
      },
      { timeout: 20_000 },
    )
    .toContain('2 questions, 1 abstained (50 %)');
  expect(await text(console.locator('ol.gaps'))).toContain(UNANSWERED);
  expect(await text(console.locator('tbody tr', { hasText: ANSWERED }))).toContain('incorrect');
  expect(await axeViolations(console)).toEqual([]);

  // Answer this: the Curated answers form holds the question; the answer cites the support desk page.
  await console.getByRole('link', { name: `Answer this: ${UNANSWERED}` }).click();
  expect(await console.getByRole('textbox', { name: 'Question', exact: true }).inputValue()).toBe(UNANSWERED);
  await console.getByRole('textbox', { name: 'Answer', exact: true }).fill(CURATED);
  await console.getByRole('button', { name: 'Add a source' }).click();
  await console.getByLabel('Source 1: document').selectOption('support-desk.md');
  await console.getByRole('button', { name: 'Save curated answer' }).click();
  await expect.poll(() => text(console.locator('tbody tr', { hasText: UNANSWERED }))).toContain('Support desk');
  expect(await axeViolations(console)).toEqual([]);

  // The next visitor asking it gets the curated answer, citing the support desk page.
  const again = await ask(visitor, UNANSWERED);
  expect(again).toContain('"provenance":"qa_shortcut"');
  await expect.poll(() => widget.locator('article.answer').last().textContent()).toContain('handled by the support desk');

  // On a phone: with all this content, every tab fits 360 px, and nothing the page draws breaks its own CSP.
  await console.setViewportSize({ width: 360, height: 800 });
  for (const tab of ['Documents', 'Curated answers', 'Insights', 'Members', 'Developers']) {
    await console.getByRole('link', { name: tab, exact: true }).click();
    await expect.poll(() => text(console.locator('main'))).not.toContain('Loading');
    const [scrollWidth, clientWidth] = await console.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    expect(scrollWidth, `${tab} at 360 px`).toBeLessThanOrEqual(clientWidth!);
  }
  expect(policyViolations).toEqual([]);
}, 240_000);
