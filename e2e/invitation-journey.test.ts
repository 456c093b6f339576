import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { axeViolations } from './axe-audit.ts';
import { CHROMIUM_LAUNCH, startDemo, type StartedDemo } from './start-server.ts';

/**
 * The invitation journey (docs/console.md "Members") in Debian's Chromium: the owner signs in at
 * `/console`, invites a new person from the Members tab and copies the
 * set-password link shown; the person opens it in a browser of their own,
 * chooses a password and lands signed in on their knowledge bases; the same
 * link opened again says it has been used; the owner's list no longer marks
 * the person as invited. Both pages pass axe's WCAG 2.2 A/AA rules.
 */
const PASSWORD = 'journey password 2026';
const INVITEE_PASSWORD = 'dana chooses this password';

let demo: StartedDemo | undefined;
let browser: Browser;
let apiUrl: string;

beforeAll(async () => {
  demo = await startDemo('kb-e2e-invite-', { KB_OWNER_PASSWORD: PASSWORD });
  ({ apiUrl } = demo);
  browser = await chromium.launch(CHROMIUM_LAUNCH);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

test('invite from the Members tab, open the link elsewhere, choose a password: signed in; the link then refused as used', async () => {
  const ownerContext = await browser.newContext();
  const owner = await ownerContext.newPage();
  await owner.goto(`${apiUrl}/console`);
  await owner.getByLabel('Email').fill('owner@example.com');
  await owner.getByLabel('Password').fill(PASSWORD);
  await owner.getByRole('button', { name: 'Sign in' }).click();
  await owner.getByRole('link', { name: /Node\.js API documentation/ }).click();
  await owner.getByRole('link', { name: 'Members' }).click();

  await owner.getByLabel('Email').fill('dana@example.com');
  await owner.getByLabel('Role', { exact: true }).selectOption('reader');
  await owner.getByRole('button', { name: 'Invite' }).click();
  const linkField = owner.getByLabel('Set-password link for dana@example.com');
  await expect.poll(() => linkField.inputValue()).toMatch(new RegExp(`^${apiUrl}/console#/set-password/kbp_`));
  const link = await linkField.inputValue();
  expect(await owner.getByRole('button', { name: 'Copy link' }).isVisible()).toBe(true);
  await expect.poll(() => owner.locator('tbody tr', { hasText: 'dana@example.com' }).textContent()).toContain('invited, no password yet');
  expect(await axeViolations(owner)).toEqual([]);

  const inviteeContext = await browser.newContext();
  const invitee = await inviteeContext.newPage();
  await invitee.goto(link);
  await expect.poll(() => invitee.getByRole('heading', { level: 1 }).textContent()).toBe('Choose your password');
  expect(await invitee.getByText('For dana@example.com.').isVisible()).toBe(true);
  expect(await axeViolations(invitee)).toEqual([]);
  await invitee.getByLabel('New password').fill(INVITEE_PASSWORD);
  await invitee.getByLabel('Repeat the password').fill(INVITEE_PASSWORD);
  await invitee.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect.poll(() => invitee.getByRole('link', { name: /Node\.js API documentation/ }).isVisible()).toBe(true);
  expect(new URL(invitee.url()).hash).toBe('#/');
  expect(await invitee.getByText('dana@example.com').first().isVisible()).toBe(true);

  const againContext = await browser.newContext();
  const again = await againContext.newPage();
  await again.goto(link);
  await expect.poll(() => again.getByRole('alert').filter({ hasText: 'link' }).textContent()).toContain('This set-password link has already been used');

  await owner.reload();
  await expect.poll(() => owner.locator('tbody tr', { hasText: 'dana@example.com' }).textContent()).not.toContain('invited');
  await Promise.all([ownerContext.close(), inviteeContext.close(), againContext.close()]);
});
