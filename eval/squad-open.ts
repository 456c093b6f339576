import { readFile } from 'node:fs/promises';
import { markdownDocument } from './markdown-source.ts';

/**
 * SQuAD 2.0 (Rajpurkar, Jia & Liang, ACL 2018) under the open protocol of
 * kb-widget's evaluation: the 35 dev articles sorted by title, those at
 * positions 0, 4, 8, ... held out (never ingested), the others ingested with
 * one document per article and one section per paragraph. Questions are then
 * asked of the whole corpus, not of a given paragraph.
 */

export interface SquadQuestion {
  id: string;
  question: string;
  /** Gold answer texts (empty when unanswerable). */
  answers: string[];
  unanswerable: boolean;
  /** 1-based position of the question's paragraph in its article. */
  paragraph: number;
}

export interface SquadArticle {
  title: string;
  paragraphs: string[];
  questions: SquadQuestion[];
}

interface RawSquad {
  data: {
    title: string;
    paragraphs: { context: string; qas: { id: string; question: string; answers: { text: string }[]; is_impossible: boolean }[] }[];
  }[];
}

/** Reads `dev-v2.0.json` (the official layout), articles sorted by title. */
export async function loadSquad(path: string): Promise<SquadArticle[]> {
  const raw = JSON.parse(await readFile(path, 'utf8')) as RawSquad;
  return raw.data
    .map((article) => ({
      title: article.title,
      paragraphs: article.paragraphs.map((paragraph) => paragraph.context),
      questions: article.paragraphs.flatMap((paragraph, index) =>
        paragraph.qas.map((qa) => ({
          id: qa.id,
          question: qa.question.trim(),
          answers: qa.answers.map((answer) => answer.text),
          unanswerable: qa.is_impossible,
          paragraph: index + 1,
        })),
      ),
    }))
    .sort((left, right) => (left.title < right.title ? -1 : left.title > right.title ? 1 : 0));
}

/** The open protocol's split: held out = positions that are multiples of 4 in title order. */
export function splitOpenProtocol(articles: readonly SquadArticle[]): { ingested: SquadArticle[]; heldOut: SquadArticle[] } {
  return {
    ingested: articles.filter((_, position) => position % 4 !== 0),
    heldOut: articles.filter((_, position) => position % 4 === 0),
  };
}

/** Heading of a paragraph's section, so citations can be traced back to it. */
export function paragraphHeading(paragraph: number): string {
  return `Paragraph ${paragraph}`;
}

/** An article as a markdown document: its title, then one section per paragraph (text escaped, read back literally). */
export function articleMarkdown(article: SquadArticle): string {
  return markdownDocument(
    article.title.replace(/_/g, ' '),
    article.paragraphs.map((text, index) => ({ heading: paragraphHeading(index + 1), text })),
  );
}

/** File name of an article's document. */
export function articleFileName(article: SquadArticle): string {
  return `${article.title.replace(/[^\w-]+/g, '_')}.md`;
}

/**
 * Halves of a list of articles for calibration (odd positions: the evidence
 * model is fitted on them by `npm run calibrate`) and for reporting (even
 * positions: every SQuAD figure of `npm run eval` is measured on them), so no
 * figure is reported on the data its threshold was fitted on.
 */
export function calibrationSplit<T>(items: readonly T[]): { calibration: T[]; report: T[] } {
  return {
    calibration: items.filter((_, position) => position % 2 === 1),
    report: items.filter((_, position) => position % 2 === 0),
  };
}
