import { stemmer } from 'stemmer';
import { STOP_WORDS } from './stop-words.ts';

/**
 * The one text analyzer of the engine, used for documents at ingest and for
 * questions at query time, by every storage backend (DESIGN.md "Storage").
 *
 * Steps, after Lucene's `EnglishAnalyzer`: Unicode NFKC, lower case,
 * possessive `'s` removed, split on anything that is not a letter, a digit or a combining mark,
 * stop words dropped ({@link STOP_WORDS}), Porter stemming (M. F. Porter,
 * "An algorithm for suffix stripping", 1980, via the `stemmer` package).
 * Tokens longer than {@link MAX_TOKEN_LENGTH} characters are dropped.
 */

/**
 * Version of {@link analyze}'s output for the same text: raised with every
 * change to tokenizing, stop words or stemming, so that indexes made with
 * another version are re-made (retrieval/index-fields.ts).
 */
export const ANALYZER_VERSION = 1;

/** Longest token kept, in characters: longer runs are hashes or base64, not words. */
export const MAX_TOKEN_LENGTH = 40;

/** Letters, digits and combining marks (so scripts such as Devanagari keep whole words). */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * Memo of Porter stems: stemming is the analyzer's main cost and natural
 * text repeats a small vocabulary. Cleared when it reaches
 * {@link STEM_CACHE_LIMIT} entries, so memory stays bounded.
 */
const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 100_000;

function stem(token: string): string {
  let stemmed = stemCache.get(token);
  if (stemmed === undefined) {
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemmed = stemmer(token);
    stemCache.set(token, stemmed);
  }
  return stemmed;
}
const POSSESSIVE = /['\u2019]s\b/gu;

/**
 * Splits text into lower-cased word tokens, before stop words and stemming.
 *
 * @param text any text, markdown or plain
 * @returns tokens in order of appearance, duplicates kept
 */
export function tokenize(text: string): string[] {
  const normalized = text.normalize('NFKC').toLowerCase().replace(POSSESSIVE, '');
  const tokens: string[] = [];
  for (const match of normalized.matchAll(WORD)) {
    const token = match[0];
    if (token.length <= MAX_TOKEN_LENGTH) tokens.push(token);
  }
  return tokens;
}

/**
 * Analyzes text into index terms: tokens without stop words, stemmed.
 *
 * @param text any text
 * @returns terms in order of appearance, duplicates kept (so their count is the term frequency)
 */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const token of tokenize(text)) {
    if (STOP_WORDS.has(token)) continue;
    terms.push(stem(token));
  }
  return terms;
}

/**
 * Counts term frequencies.
 *
 * @param terms analyzed terms, e.g. from {@link analyze}
 * @returns term -> number of occurrences
 */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}
