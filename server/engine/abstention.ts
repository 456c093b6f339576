import type { AnswerEvent } from './answer-events.ts';
import { citationTitle, sectionUrl } from './passages/section-link.ts';
import type { ScoredPassage } from '../store/store.ts';

/**
 * What the engine says when it abstains: the refusal, and the sections of
 * the pages that came near the question, so that a refusal still gives the
 * asker somewhere to go.
 */

/** The answer given when the service abstains. */
export const ABSTENTION_MESSAGE =
  "I couldn't find an answer to that in this knowledge base. Try rephrasing the question, or ask about something the documentation covers.";

/**
 * A section an abstention names: the passage of it nearest the question,
 * and what the section says it is about (engine/extractive/answer-composition.ts
 * `sectionSnippet`), absent for a document that is not quotable (its text
 * is kept out of quotes: docs/cli.md) or a section without prose.
 */
export interface RelatedSection {
  passage: ScoredPassage;
  snippet?: string;
}

/**
 * The abstention's events: the refusal, naming the pages that came near by
 * their nearest section (page title and section headings, "File system ›
 * fs.readdir(path[, options], callback)", linked to the section when the
 * page has a URL) and what that section says it is about (its describing
 * sentence, engine/extractive/answer-composition.ts `sectionSnippet`: "Reads
 * the contents of a directory."), so the asker can tell which one to open,
 * as a search result's snippet tells; then any follow-up suggestions. The
 * sections are not `citations`: an abstention draws on nothing
 * (docs/specification.md "Query response": citations are what an answer was
 * drawn from), and a snippet describes its section, not an answer.
 */
export function abstention(related: readonly RelatedSection[] = [], questions: readonly string[] = []): AnswerEvent[] {
  const sections = related.map(({ passage, snippet }) => {
    const title = citationTitle(passage) || passage.docId;
    const url = sectionUrl(passage);
    return `- ${url ? `[${markdownText(title)}](${url})` : markdownText(title)}${snippet ? `: ${snippet}` : ''}`;
  });
  return [
    { type: 'abstain', answer: sections.length === 0 ? ABSTENTION_MESSAGE : `${ABSTENTION_MESSAGE}\n\nThese sections may be related:\n${sections.join('\n')}` },
    ...(questions.length > 0 ? [{ type: 'suggestions' as const, questions: [...questions] }] : []),
    { type: 'done', abstained: true, provenance: 'abstained' },
  ];
}

/**
 * Cosine similarity (dense retrieval) from which a page counts as near the
 * question when the engine abstains: on the Node.js set's fit half, 0.45
 * names a page for none of the 18 off-topic questions and for 98 of the 107
 * answerable ones (0.40: 3 off-topic; 0.50: 84 answerable).
 */
export const RELATED_PAGE_SIMILARITY = 0.45;
/** Most pages an abstention names. */
export const MAX_RELATED_PAGES = 3;

/**
 * The nearest passage of each of the (at most {@link MAX_RELATED_PAGES})
 * pages whose passages reach {@link RELATED_PAGE_SIMILARITY}, most similar
 * first. The abstention names each page by that passage's section: in
 * reference docs the page is usually found, and the section is what a reader
 * cannot find on a long page (eval/README.md "What an abstention links to").
 */
export function nearPages(passages: readonly ScoredPassage[]): ScoredPassage[] {
  const near = passages
    .filter((passage) => (passage.similarity ?? 0) >= RELATED_PAGE_SIMILARITY)
    .sort((left, right) => right.similarity! - left.similarity!);
  const pages: ScoredPassage[] = [];
  for (const passage of near) {
    if (pages.length >= MAX_RELATED_PAGES) break;
    if (!pages.some((page) => page.docId === passage.docId)) pages.push(passage);
  }
  return pages;
}

/**
 * A title as literal markdown text (CommonMark 0.31 section 2.4, backslash
 * escapes): brackets, backslashes, emphasis markers and backticks escaped, so
 * that `__dirname` or `[offset]` in a section heading reads as written.
 */
function markdownText(title: string): string {
  return title.replace(/[\\[\]*_`]/g, (character) => `\\${character}`);
}
