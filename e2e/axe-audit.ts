import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';
import { describeViolations, wcagAuditOptions } from '../widget/testing/wcag-audit.ts';

/** axe-core's browser script, read once. */
const axeScript = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core's WCAG 2.2 A/AA rules (widget/testing/wcag-audit.ts) on the
 * whole page, open shadow roots included. The script is evaluated through
 * the DevTools protocol, which the demo page's Content-Security-Policy does
 * not govern, so the page is audited with its policy in force.
 *
 * @returns one line per failing node; `[]` when the page passes
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeScript);
  const results = await page.evaluate(
    (options) => (window as unknown as { axe: { run: (context: Document, options: RunOptions) => Promise<AxeResults> } }).axe.run(document, options),
    wcagAuditOptions(),
  );
  return describeViolations(results.violations);
}
