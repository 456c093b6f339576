import { LRUCache } from 'lru-cache';
import { analyze } from '../../retrieval/analyzer.ts';
import { readHeading } from './section-heading.ts';
import { splitSentences, type Sentence } from '../../text/sentences.ts';

/**
 * The analyzed form of a retrieved passage that the second ranking stage
 * (engine/ranking/passage-rerank.ts) and the extractive answerer read: its terms in
 * order, its heading path's terms, and its quotable sentences with theirs.
 * BM25 needs only term frequencies, which the index holds; proximity,
 * phrases and sentences need the terms in order, which it does not, so they
 * are computed here from the passage's text (a forward index, built lazily).
 *
 * Analysis is a pure function of the heading path and the text, so results
 * are memoized in a bounded least-recently-used map (keyed by the
 * passage's storage id, the entry checked against them, else by them): a
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
  /**
   * Distinct analyzed terms of the subject of the passage's own section
   * heading (engine/passages/section-heading.ts: a signature's name without its
   * parameters, a labelled name without its label, a prose heading whole);
   * empty for a passage directly under the document's title (heading path
   * of one), whose only heading is the title.
   */
  readonly subjectTerms: ReadonlySet<string>;
  /** Whether the text holds a fenced code block. */
  readonly hasCode: boolean;
  /**
   * Whether the passage writes code at all: a fenced block, or inline code
   * (a span in single backticks) in its text or heading path. Technical
   * documentation does; prose articles do not (the ``PTB quotes'' of some
   * corpora are not code).
   */
  readonly mentionsCode: boolean;
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

/** A memoized analysis with what it was computed from. */
interface CacheEntry {
  headingPath: readonly string[];
  text: string;
  analysis: PassageAnalysis;
}

/** Keyed by the passage's storage id when it has one (a number hashes at once), else by its heading path and text; least recently used out. */
const cache = new LRUCache<number | string, CacheEntry>({ max: PASSAGE_ANALYSIS_CACHE_SIZE });

/** An inline code span: text in single backticks (not a run of two, as in ``quotes''). */
const INLINE_CODE = /(?<!`)`[^`\n]+`(?!`)/;

/**
 * @param passage the passage's heading path and text, as the store returns
 *   them, and its storage id when it has one (then the cache is looked up by
 *   the id and the entry used only when its heading path and text are the
 *   passage's: an id reused for other text is analyzed afresh)
 * @returns its analysis, memoized (the same object for the same heading path and text)
 */
export function analyzePassage(passage: { chunkId?: number; headingPath: readonly string[]; text: string }): PassageAnalysis {
  const key = passage.chunkId ?? `${passage.headingPath.join('\u0001')}\u0000${passage.text}`;
  const cached = cache.get(key);
  if (cached && cached.text === passage.text && sameStrings(cached.headingPath, passage.headingPath)) return cached.analysis;
  const analysis: PassageAnalysis = {
    terms: analyze(passage.text),
    headingTerms: new Set(analyze(passage.headingPath.join(' '))),
    subjectTerms: new Set(passage.headingPath.length >= 2 ? subjectTermsOf(passage.headingPath.at(-1)!) : []),
    hasCode: /^```/m.test(passage.text),
    mentionsCode: /^```/m.test(passage.text) || [passage.text, ...passage.headingPath].some((text) => INLINE_CODE.test(text)),
    sentences: splitSentences(passage.text).map((sentence) => ({ sentence, terms: analyze(sentence.text) })),
  };
  cache.set(key, { headingPath: passage.headingPath, text: passage.text, analysis });
  return analysis;
}

function sameStrings(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((value, index) => value === right[index]);
}

/** Analyzed terms of a heading's subject ({@link identifierTerms}). */
function subjectTermsOf(heading: string): string[] {
  return identifierTerms(readHeading(heading).subject);
}

/**
 * Analyzed terms of a name as documentation writes it, without repeats: the
 * analyzer also splits each identifier at its case changes and expands its
 * abbreviations (retrieval/analyzer.ts), so that a question's words meet it:
 * `http.createServer` gives `http`, `createserv`, `creat`, `server`.
 *
 * @param name an API name, option name or heading subject
 */
export function identifierTerms(name: string): string[] {
  return [...new Set(analyze(name))];
}
