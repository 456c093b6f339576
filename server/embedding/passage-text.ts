import { createHash } from 'node:crypto';
import { splitSentences } from '../text/sentences.ts';

/**
 * What a passage is embedded as: its place in the documentation (the
 * document's title, then its section headings) above its text, so that a
 * passage such as "Returns: `<string[]>`" carries the API it belongs to -
 * the contextual prefix of contextual retrieval (Anthropic, "Introducing
 * contextual retrieval", 2024) with the documents' own headings as context.
 */

/** The title and headings joined as a breadcrumb, then the text. */
export function passageEmbeddingText(passage: { title: string; headingPath: readonly string[]; text: string }): string {
  const trail = [passage.title, ...passage.headingPath.slice(1)].filter((part) => part.trim() !== '').join(' › ');
  return trail === '' ? passage.text : `${trail}\n${passage.text}`;
}

/**
 * What each sentence of a passage is embedded as, for the sentence
 * similarity of the second stage and the evidence model
 * (retrieval/sentence-similarity.ts): every quotable sentence
 * (text/sentences.ts) but a status line, led by the passage's own section
 * heading (the page title before the first heading) - `fs.mkdir(path[,
 * options], callback): Asynchronously creates a directory.` - so that a
 * sentence that names no API still carries the one it documents. One
 * sentence against the question is the granularity of Dense X Retrieval
 * (T. Chen et al., "Dense X Retrieval: What retrieval granularity should we
 * use?", EMNLP 2024); as retrieval units alone they ranked pages worse here
 * than passage vectors (eval/README.md "Where the documentation questions
 * are lost"), as evidence about a retrieved passage they help.
 *
 * @returns the texts in sentence order, none for a passage of code alone
 */
export function sentenceEmbeddingTexts(passage: { title: string; headingPath: readonly string[]; text: string }): string[] {
  const heading = passage.headingPath.at(-1)?.trim() || passage.title.trim();
  return splitSentences(passage.text)
    .filter((sentence) => sentence.kind !== 'status')
    .map((sentence) => (heading === '' ? sentence.text : `${heading}: ${sentence.text}`));
}

/** The key of an embedded text in the embedding cache: sha256, hex. */
export function embeddingTextHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
