import { expect } from '@open-wc/testing';
import 'axe-core';
import type { AxeResults, ElementContext, RunOptions } from 'axe-core';
import { describeViolations, wcagAuditOptions } from './wcag-audit.ts';

/**
 * The WCAG 2.2 A/AA audit (wcag-audit.ts) for browser tests, with axe-core's
 * script loaded into the test page (it registers `window.axe`).
 */

/** axe-core, which its script registers on `window`. */
const axe = (window as unknown as { axe: { run: (context: ElementContext, options: RunOptions) => Promise<AxeResults> } }).axe;

/** Asserts that axe finds no WCAG 2.2 A/AA violation and no best-practice one in the element, its shadow root included. */
export async function expectNoAxeViolations(element: Element): Promise<void> {
  const results = await axe.run(element, wcagAuditOptions(['best-practice']));
  expect(describeViolations(results.violations)).to.deep.equal([]);
}
