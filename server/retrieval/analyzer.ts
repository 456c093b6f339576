import { stemmer } from 'stemmer';
import { ABBREVIATIONS } from './abbreviations.ts';
import { STOP_WORDS } from './stop-words.ts';

/**
 * The one text analyzer of the engine, used for documents at ingest and for
 * questions at query time, by every storage backend (docs/design-decisions.md "Storage").
 *
 * Steps, after Lucene's `EnglishAnalyzer`: Unicode NFKC, possessive `'s`
 * removed, split on anything that is not a letter, a digit or a combining
 * mark, lower case; an identifier written in camel case is kept whole and
 * also split into its words (`createReadStream`: `createreadstream`,
 * `create`, `read`, `stream`, as Lucene's `WordDelimiterGraphFilter` with
 * `preserveOriginal`); an abbreviation is kept and followed by the words it
 * stands for ({@link ABBREVIATIONS}: `env`, `environment`); stop words
 * dropped ({@link STOP_WORDS}), Porter stemming (M. F. Porter, "An algorithm
 * for suffix stripping", 1980, via the `stemmer` package). Tokens longer
 * than {@link MAX_TOKEN_LENGTH} characters are dropped.
 */

/**
 * Version of {@link analyze}'s output for the same text: raised with every
 * change to tokenizing, stop words or stemming, so that indexes made with
 * another version are re-made (retrieval/index-fields.ts; docs/ingestion.md
 * "What forces a rebuild").
 */
export const ANALYZER_VERSION = 2;

/** Longest token kept, in characters: longer runs are hashes or base64, not words. */
export const MAX_TOKEN_LENGTH = 40;

/** Letters, digits and combining marks (so scripts such as Devanagari keep whole words). */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** {@link WORD} for ASCII text, where it means the same and runs faster (no Unicode property tables). */
const ASCII_WORD = /[A-Za-z0-9]+/g;

const POSSESSIVE = /['\u2019][sS]\b/gu;
const NON_ASCII = /[^\x00-\x7f]/;
/** A change of case inside a word: `aB`, or `ABc` (an acronym followed by a word). */
const CASE_CHANGE = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;
/** The words of a camel-case identifier: `Read`, `read`, an acronym `HTTP`, or digits. */
const CAMEL_CASE_WORD = /\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}+(?![\p{Ll}\p{M}])|\p{N}+/gu;

/**
 * Splits text into lower-cased word tokens, before stop words and stemming;
 * a camel-case identifier is followed by its words.
 *
 * @param text any text, markdown or plain
 * @returns tokens in order of appearance, duplicates kept
 */
export function tokenize(text: string): string[] {
  // NFKC leaves ASCII as it is: only other text pays for normalizing.
  const ascii = !NON_ASCII.test(text);
  const normalized = (ascii ? text : text.normalize('NFKC')).replace(POSSESSIVE, '');
  const tokens: string[] = [];
  // `match` with the global flag gives the words as strings, without a match object each.
  for (const word of normalized.match(ascii ? ASCII_WORD : WORD) ?? []) {
    if (word.length > MAX_TOKEN_LENGTH) continue;
    const lower = word.toLowerCase();
    tokens.push(lower);
    // A word without capitals has no case change to split at.
    if (lower === word || !CASE_CHANGE.test(word)) continue;
    const parts = word.match(CAMEL_CASE_WORD);
    if (parts && parts.length > 1) for (const part of parts) tokens.push(part.toLowerCase());
  }
  return tokens;
}

/**
 * Analyzes text into index terms: tokens without stop words, stemmed, each
 * abbreviation followed by the terms of the words it stands for.
 *
 * @param text any text
 * @returns terms in order of appearance, duplicates kept (so their count is the term frequency)
 */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const token of tokenize(text)) {
    const analyzed = tokenTerms(token);
    for (let index = 0; index < analyzed.length; index++) terms.push(analyzed[index]!);
  }
  return terms;
}

/**
 * Memo of each token's terms (none for a stop word, else its Porter stem,
 * then any expansion's terms): stemming is the analyzer's main cost and
 * natural text repeats a small vocabulary, and one map lookup a token
 * replaces the stop-word set's and the expansions'. Cleared when it reaches
 * {@link TOKEN_CACHE_LIMIT} entries, so memory stays bounded.
 */
const tokenTermsCache = new Map<string, readonly string[]>();
const TOKEN_CACHE_LIMIT = 100_000;

function tokenTerms(token: string): readonly string[] {
  let terms = tokenTermsCache.get(token);
  if (terms === undefined) {
    const expansion = EXPANSIONS.get(token) ?? [];
    terms = STOP_WORDS.has(token) ? expansion : [stemmer(token), ...expansion];
    if (tokenTermsCache.size >= TOKEN_CACHE_LIMIT) tokenTermsCache.clear();
    tokenTermsCache.set(token, terms);
  }
  return terms;
}

/** {@link ABBREVIATIONS} as analyzed terms: stop words dropped, stemmed. */
const EXPANSIONS: ReadonlyMap<string, readonly string[]> = new Map(
  [...ABBREVIATIONS].map(([abbreviation, words]) => [abbreviation, tokenize(words).filter((word) => !STOP_WORDS.has(word)).map((word) => stemmer(word))]),
);

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
