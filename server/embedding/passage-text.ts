import { createHash } from 'node:crypto';

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

/** The key of an embedded text in the embedding cache: sha256, hex. */
export function embeddingTextHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
