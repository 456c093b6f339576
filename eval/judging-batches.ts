import type { DumpRecord } from './docs-eval.ts';
import type { PageVerdict } from './docs-questions.ts';

/**
 * The batches a reader judges for the second judgment of a question set
 * (eval/README.md "Pages judged to answer", the instructions in
 * eval/k8s-docs-judging.md): for each answerable question of a dump, the
 * pages among its retrieved passages that have no verdict yet, each with
 * the retrieved sections' text, in retrieval order. The gold page is shown
 * like any other (a page never judged is judged blind), so the readers'
 * verdicts on gold pages measure them against the set.
 */

/** A retrieved section's text, by page and heading path; undefined when the page no longer has it. */
export type SectionText = (page: string, headingPath: readonly string[]) => string | undefined;

/** Characters of a section shown to the reader; the page file holds the rest. */
export const SHOWN_SECTION_CHARACTERS = 1500;

/**
 * @param records the dump's records of one set (`npm run eval -- --dump`)
 * @param judgments question id → page → verdict already given
 * @param sectionText the text of a retrieved section
 * @param questionsPerBatch questions a batch holds at most
 * @returns markdown batches, each `## Question <id>` with the question,
 *   then `### Page <id> #n: \`<page>\` - "<title>"` with its sections;
 *   questions whose pages are all judged are left out
 */
export function judgingBatches(
  records: readonly DumpRecord[],
  judgments: ReadonlyMap<string, Readonly<Record<string, PageVerdict>>>,
  sectionText: SectionText,
  questionsPerBatch: number,
): string[] {
  const questions: string[] = [];
  for (const record of records) {
    if (record.expect !== 'answer') continue;
    const judged = judgments.get(record.id) ?? {};
    const pages = new Map<string, string[][]>();
    for (const { doc_id: page, heading } of record.top) {
      if (judged[page] !== undefined) continue;
      pages.set(page, [...(pages.get(page) ?? []), heading]);
    }
    if (pages.size === 0) continue;
    const lines = [`## Question ${record.id}`, '', `> ${record.question}`, ''];
    let number = 0;
    for (const [page, headings] of pages) {
      number += 1;
      lines.push(`### Page ${record.id} #${number}: \`${page}\``, '');
      for (const heading of headings) {
        const text = (sectionText(page, heading) ?? '(the page no longer has this section)').replace(/\n{3,}/g, '\n\n');
        const shown = text.length > SHOWN_SECTION_CHARACTERS ? `${text.slice(0, SHOWN_SECTION_CHARACTERS)} [...]` : text;
        lines.push(`Section: ${heading.join(' > ')}`, '', '```text', shown, '```', '');
      }
    }
    questions.push(lines.join('\n'));
  }
  const batches: string[] = [];
  for (let start = 0; start < questions.length; start += questionsPerBatch) batches.push(questions.slice(start, start + questionsPerBatch).join('\n'));
  return batches;
}
