import type { Result, RunOptions } from 'axe-core';

/**
 * The accessibility audit (docs/widget.md "Rendering and accessibility"): axe-core's rules tagged for WCAG 2.0,
 * 2.1 and 2.2, levels A and AA. Asking by tag also runs the rules axe leaves
 * off by default, such as `target-size` (WCAG 2.2 success criterion 2.5.8),
 * which `chai-a11y-axe`'s `accessible()` skips. Used by the browser tests
 * (beside the element) and the Playwright journeys (e2e/).
 */
export const WCAG_22_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] as const;

/**
 * Options of `axe.run` for the audit: only violations are reported.
 *
 * @param extraTags further axe tags to run, e.g. `best-practice`
 */
export function wcagAuditOptions(extraTags: readonly string[] = []): RunOptions {
  return { runOnly: { type: 'tag', values: [...WCAG_22_AA_TAGS, ...extraTags] }, resultTypes: ['violations'] };
}

/** One line per failing node (`rule (impact): target - summary`), for an assertion's message; `[]` when clean. */
export function describeViolations(violations: readonly Result[]): string[] {
  return violations.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id} (${violation.impact}): ${JSON.stringify(node.target)} - ${node.failureSummary ?? violation.help}`),
  );
}
