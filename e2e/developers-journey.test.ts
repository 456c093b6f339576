import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';

/**
 * Issue 4's journey in Debian's Chromium: sign in at `/console`, open the
 * Developers tab, issue a token for the demo page's origin, paste it into the
 * demo page's widget, ask a question, revoke the token in the console, and
 * see the widget report the revoked token on the next question.
 */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'journey password 2026';
const QUESTION = 'How do I create a directory together with its missing parent directories?';

let dataDir: string;
let server: ChildProcess | undefined;
let browser: Browser;
let apiUrl: string;
let demoPort: number;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'kb-e2e-console-'));
  demoPort = await freePort();
  server = spawn('npm', ['start'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: '0',
      KB_DEMO_PORT: String(demoPort),
      KB_DATA_DIR: dataDir,
      KB_OWNER_PASSWORD: PASSWORD,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  apiUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`npm start did not start within 120 s:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (http:\/\/localhost:\d+)/.exec(output);
      if (match && output.includes('demo page: http://localhost:')) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    server!.stdout!.on('data', read);
    server!.stderr!.on('data', read);
    server!.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (server?.pid && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    process.kill(-server.pid, 'SIGTERM');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

test('sign in, issue a token on the Developers tab, embed it, ask, revoke: the next question reports the revoked token', async () => {
  const context = await browser.newContext();
  const console = await context.newPage();
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

  await console.getByRole('button', { name: 'Revoke' }).first().click();
  await console.getByRole('button', { name: 'Confirm revoke' }).click();
  await expect.poll(() => console.locator('table').textContent()).toContain('revoked');

  await widget.getByRole('textbox', { name: 'Your question' }).fill(QUESTION);
  await widget.getByRole('textbox', { name: 'Your question' }).press('Enter');
  await expect.poll(() => widget.locator('.notice').last().textContent()).toContain('This assistant has been switched off for this site.');
  await context.close();
});
