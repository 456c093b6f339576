import { analyze } from './analyzer.ts';
import { splitSentences, type Sentence } from './sentences.ts';

/**
 * The analyzed form of a retrieved passage that the second ranking stage
 * (engine/passage-rerank.ts) and the extractive answerer read: its terms in
 * order, its heading path's terms, and its quotable sentences with theirs.
 * BM25 needs only term frequencies, which the index holds; proximity,
 * phrases and sentences need the terms in order, which it does not, so they
 * are computed here from the passage's text (a forward index, built lazily).
 *
 * Analysis is a pure function of the heading path and the text, so results
 * are memoized in a bounded least-recently-used map keyed by them: a
 * passage retrieved again (popular passages are, across questions) costs a
 * map lookup instead of tokenising, stemming and splitting it again. One
 * map per thread: every answer worker has its own.
 */

/** A quotable sentence of a passage with its analyzed terms (in order, duplicates kept). */
export interface AnalyzedSentence {
  sentence: Sentence;
  terms: readonly string[];
}

/** A passage's analysis (see the module's documentation); shared between callers, never to be changed. */
export interface PassageAnalysis {
  /** Analyzed terms of the text, in order, duplicates kept (`analyze(text)`). */
  readonly terms: readonly string[];
  /** Distinct analyzed terms of the heading path. */
  readonly headingTerms: ReadonlySet<string>;
  /** Quotable sentences (`splitSentences(text)`), each with its analyzed terms. */
  readonly sentences: readonly AnalyzedSentence[];
}

/**
 * Passages whose analysis is kept per thread. A passage of 1,200 characters
 * (the chunker's maximum) analyzes to about 150 terms; with its sentences an
 * entry holds a few kilobytes besides its text, so the map stays within
 * roughly 20 MB, and holds every passage of a knowledge base of a few
 * hundred documents.
 */
export const PASSAGE_ANALYSIS_CACHE_SIZE = 4096;

const cache = new Map<string, PassageAnalysis>();

/**
 * @param passage the passage's heading path and text, as the store returns them
 * @returns its analysis, memoized (the same object for the same heading path and text)
 */
export function analyzePassage(passage: { headingPath: readonly string[]; text: string }): PassageAnalysis {
  const key = `${passage.headingPath.join('\u0001')}\u0000${passage.text}`;
  const cached = cache.get(key);
  if (cached) {
    // Re-inserted, so the map's insertion order stays least recently used first.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const analysis: PassageAnalysis = {
    terms: analyze(passage.text),
    headingTerms: new Set(analyze(passage.headingPath.join(' '))),
    sentences: splitSentences(passage.text).map((sentence) => ({ sentence, terms: analyze(sentence.text) })),
  };
  if (cache.size >= PASSAGE_ANALYSIS_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, analysis);
  return analysis;
}
